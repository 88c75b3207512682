// Where a move comes to rest (the end-of-move policy of force and compliance, docs/force.md): a
// move under force control rests where the servo was holding the arm — the force law, not the
// path, decided where the tool is; a move with the manual's compliance bits rests on its path's
// end with the compliant axes taken from where the arm yielded to; any other move rests at its
// path's end. Pure.
#pragma once

#include <cstdint>

#include "common/types.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

enum class RestAt {
  kPathEnd,    // where the path ends
  kWhereHeld,  // where the servo holds the arm (force control)
  kYielded,    // the path's end, moved along the compliant axes to the arm
};

inline RestAt restAt(const MotionRecord& m) {
  if (m.has_force) return RestAt::kWhereHeld;
  return m.compliance != 0 ? RestAt::kYielded : RestAt::kPathEnd;
}

// The path's end `end` with the compliant axes (the manual's bits: base translations x y z, then
// rotations about the base's x y z at T6's origin) taken from the arm's pose `arm`.
Transform yieldedPose(const Transform& end, const Transform& arm, std::uint32_t compliance);

}  // namespace rfms
