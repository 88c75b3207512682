// Paul's Denavit–Hartenberg parameters of a six-revolute-joint chain from where its joint axes
// lie at the zero pose (a URDF's joint origins and axes, composed): the way a DH table is drawn by
// hand, as arithmetic. Configuration time only; throws ConfigError naming the joint that breaks it.
#pragma once

#include <array>

#include "common/robot_model.hpp"

namespace rfms {

// A joint axis at the zero pose, in the base frame: a point on it and its direction (turning by
// the right-hand rule about `direction` is the joint's positive sense).
struct JointAxis {
  Vec3 point = Vec3::Zero();
  Vec3 direction = Vec3::UnitZ();
};

struct DhChain {
  std::array<DhParams, kJoints> dh;
  // The model's angle per the source's: +1, or -1 where the DH z axis had to point the other way
  // (only joint 1's, whose z is the base frame's).
  std::array<double, kJoints> sign{1, 1, 1, 1, 1, 1};
  // Each DH frame i (1..6) in the base frame at the zero pose: to carry link i's mass properties
  // from the source's link frame into it.
  std::array<Transform, kJoints> frame;
};

// `tip` is the frame T6 must be, at the zero pose: its z along joint 6's axis (either sense) and
// its origin on that axis or off it along its own x. Joint 1's axis must be the base frame's z
// axis (either sense): a DH table has no base transform.
DhChain dhFromAxes(const std::array<JointAxis, kJoints>& axes, const Transform& tip);

}  // namespace rfms
