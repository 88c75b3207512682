// A Cartesian jog's pose (MANU's wrist jog, `jog AXIS`): the wrist (T6) moved along, or
// turned about its own centre around, an axis of the base frame or of T6's frame as the jog began,
// `done` metres or radians from where it began. Whether the arm can get there (IK, and no joint
// turning faster than its share of the speed limit) is the trajectory generator's to judge. Pure.
#pragma once

#include <algorithm>

#include "common/types.hpp"

namespace rfms {

// A Cartesian jog: the wrist (T6) moved along (axis 0..2) or turned about (3..5) an axis of the
// base frame or of T6's own frame as the jog began, at `speed` (m/s or rad/s), for `length` (m or
// rad; 0: until stopped), keeping the arm's configuration.
struct JogSpec {
  int axis = 0;
  int direction = 1;  // +1 or -1
  bool tool_frame = false;
  double speed = 0.0;
  double length = 0.0;
};

// How far a jog has gone `seconds` after it had gone `done`: at its speed, up to its length when
// it has one (0: on until stopped).
double jogDistance(const JogSpec& jog, double done, double seconds);

Transform jogPose(const Transform& start, const JogSpec& jog, double done);

}  // namespace rfms
