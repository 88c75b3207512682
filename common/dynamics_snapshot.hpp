// One background update of the math server (A.4's split): everything that changes slowly with the
// arm's configuration, computed from the latest joint angles and speeds, so that the per-period
// servo needs only D qdd + (C qd + g) — six multiplies and adds per joint.
// Real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

struct DynamicsSnapshot {
  JointVec q = JointVec::Zero(), qd = JointVec::Zero();  // the state it was computed at
  JointMat inertia = JointMat::Zero();                   // D(q), rotor inertias included
  JointVec gravity = JointVec::Zero();                   // g(q)
  JointVec velocity = JointVec::Zero();                  // C(q, qd) qd
  Mat6 jacobian = Mat6::Zero();                          // base frame, origin of frame 6
  Mat6 jacobian_inverse = Mat6::Zero();                  // valid only when !singular
  double jacobian_condition = 0.0;                       // reciprocal condition estimate of the Jacobian
  bool singular = false;
};

void updateDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, DynamicsSnapshot& out);

}  // namespace rfms
