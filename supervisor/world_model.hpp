// The user's world model (RFMS manual §2, §4.1.1): symbol tables of named
// transforms, position equations and motion records. Definitions arrive from a task (the
// supervisor's background side) and are validated there: a refused definition changes nothing and
// says why. The real-time side only evaluates: solve() multiplies stored transforms by index.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/ik_puma.hpp"
#include "common/types.hpp"
#include "proto/task.pb.h"

namespace rfms {

// Z T6 TOOL = CONV OBJ GRASP, stored as the indices of the transforms left of T6 (Z), right of
// it (TOOL) and on the other side, so that T6 = (Z)^-1 (CONV OBJ GRASP) (TOOL)^-1.
struct PositionEquation {
  std::string name;
  std::vector<int> before_t6, after_t6, rhs;
  int tool = -1;  // index of the tool transform, -1 without one
  ArmConfig config;
};

struct MotionRecord {
  std::string name;
  double segment = 0.0;  // s
  double accel = 0.0;    // s
  bool cartesian = false;
  std::uint32_t compliance = 0;  // bits 0..5: x y z rx ry rz
};

class WorldModel {
 public:
  // At most `max_names` transforms, as many positions and as many motions.
  explicit WorldModel(std::size_t max_names = 1024) : max_names_(max_names) {}

  // Each returns "" when the definition is accepted, otherwise the reason it was refused.
  std::string defineTransform(const proto::DefineTransform& d);
  std::string definePosition(const proto::DefinePosition& d);
  std::string defineMotion(const proto::DefineMotion& d);

  int findTransform(const std::string& name) const { return find(transform_index_, name); }
  int findPosition(const std::string& name) const { return find(position_index_, name); }
  int findMotion(const std::string& name) const { return find(motion_index_, name); }

  // T6 of position equation `i` with the transforms' current values. Real-time safe.
  Transform solve(int i) const;

  const PositionEquation& position(int i) const { return positions_[static_cast<std::size_t>(i)]; }
  const MotionRecord& motion(int i) const { return motions_[static_cast<std::size_t>(i)]; }
  const Transform& transform(int i) const { return transforms_[static_cast<std::size_t>(i)]; }
  int transformCount() const { return static_cast<int>(transforms_.size()); }

 private:
  static int find(const std::map<std::string, int>& index, const std::string& name);

  std::size_t max_names_;
  std::vector<Transform> transforms_;
  std::vector<std::string> transform_names_;
  std::vector<PositionEquation> positions_;
  std::vector<MotionRecord> motions_;
  std::map<std::string, int> transform_index_, position_index_, motion_index_;
};

}  // namespace rfms
