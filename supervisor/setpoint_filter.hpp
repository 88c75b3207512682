// The setpoint filter: the last stage of the trajectory generator, between the reference it plans
// and the setpoint the joints receive. Whatever the reference does — a transform redefined while
// the arm moves, a move that starts from a moving arm, a tracked frame's update — the setpoint
// moves toward it with every joint's speed and acceleration, and the wrist's (T6's origin) speed
// and acceleration in Cartesian space, within limits. A reference that keeps within them is passed
// through exactly, with no lag: the filter feeds the reference's own velocity forward and only
// corrects what that leaves.
//
// Each period of length h, with x and v the setpoint and its velocity:
//   v_ref = (r_k - r_{k-1}) / h          the reference's velocity
//   e     = r_k - (x + v_ref h)           what moving with the reference would leave
//   w     = e/|e| min(|e|/h, sqrt(2 a_e |e|))  closes e no faster than braking at a_e can stop,
//                                        a_e the acceleration the limits allow along e
//   v_d   = v_ref + w, scaled down into the speed limits (one factor for all joints, so the
//           direction in joint space is kept)
//   v     = v + lambda (v_d - v), lambda in [0, 1] the largest the acceleration limits allow
//   x     = x + v h
// The speed limits are a convex set holding both the old and the wanted velocity, so every
// velocity on the line between them keeps within it.
//
// Real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"
#include "proto/controller.pb.h"

namespace rfms {

struct SetpointLimits {
  JointVec speed = JointVec::Zero();  // rad/s, each joint (the model's max_velocity)
  JointVec accel = JointVec::Zero();  // rad/s^2, each joint
  double wrist_speed = 0.0;           // m/s of T6's origin
  double wrist_accel = 0.0;           // m/s^2
  double turn_speed = 0.0;            // rad/s of T6's orientation
  double turn_accel = 0.0;            // rad/s^2
};

// Each joint's speed from the model, the rest from the settings' `tracking` block.
SetpointLimits setpointLimits(const RobotModel& model, const proto::TrackingSettings& t);

class SetpointFilter {
 public:
  // `enabled` false passes the reference through unchanged (a study of the raw trajectory).
  SetpointFilter(const RobotModel& model, const SetpointLimits& limits, bool enabled);

  // At rest at q, the reference there too.
  void reset(const JointVec& q);
  // One period of h seconds toward the reference r.
  void update(const JointVec& r, double h);

  const JointVec& q() const { return x_; }
  const JointVec& velocity() const { return v_; }
  // The setpoint is the reference itself (so the reference's own pose can be sent).
  bool onReference() const { return on_reference_; }
  // On the reference and at rest.
  bool settled() const { return on_reference_ && v_.isZero(); }
  const SetpointLimits& limits() const { return limits_; }

 private:
  const RobotModel& model_;
  SetpointLimits limits_;
  bool enabled_;
  JointVec x_ = JointVec::Zero(), v_ = JointVec::Zero(), r_prev_ = JointVec::Zero();
  bool on_reference_ = true;
};

}  // namespace rfms
