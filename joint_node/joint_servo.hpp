// A joint's servo (RFMS manual §4.2; the feed-forward of A.4): PID on the joint angle plus the
// feed-forward of its latest PARCEL, sum_j D_ij qdd_j + h_i + g_i, and friction; the torque limit
// and how long the joint has been held at it; gravity alone in FREE. Under the manual's compliance
// only the part of the servo error outside the compliant directions is servoed (the PARCEL's row
// of 1 - P: math_node/math_core.hpp's complianceMatrix); under force control the joint adds its
// share of the supervisor's force command, its Jacobian column dotted with it. Pure and
// real-time safe.
#pragma once

#include <cstdint>

#include "common/robot_model.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct JointServoConfig;

class JointServo {
 public:
  JointServo(const JointModel& joint, const JointServoConfig& config);

  // This joint's PARCEL, when the S_MAIL routes one here.
  void take(const proto::SMail& s);
  std::uint64_t parcelPeriod() const { return parcel_period_; }

  // Where the joint is, and where its path goes.
  struct State {
    double angle = 0.0, velocity = 0.0;                         // measured
    double setpoint = 0.0;                                      // this period's
    double desired_velocity = 0.0, desired_acceleration = 0.0;  // the path's
    bool moving = false;                                        // meant to move (feed-forward on)
  };
  // The torque before and after the limit, the error and the part of it servoed.
  struct Output {
    double error = 0.0, kept = 0.0, tau = 0.0, limited = 0.0;
  };
  Output run(const proto::SMail& s, proto::RtState state, bool powered, const State& now);
  // The integral starts again (the arm is not held: IDLE, EMGCY, FREE).
  void resetIntegral() { integral_ = 0.0; }
  double saturatedFor() const { return saturated_for_; }

 private:
  double feedForward(const proto::SMail& s, const State& now, bool moving) const;

  const JointModel& joint_;
  const JointServoConfig& config_;
  int index_;  // 0-based
  double integral_ = 0.0, saturated_for_ = 0.0;
  bool was_compliant_ = false;
  // The latest PARCEL for this joint.
  bool have_parcel_ = false;
  JointVec inertia_row_ = JointVec::Zero(), compliance_row_ = JointVec::Zero();
  JointVec jacobian_column_ = JointVec::Zero();  // d(tool twist)/d(theta_i), for J^T W
  double velocity_torque_ = 0.0, gravity_torque_ = 0.0;
  std::uint64_t parcel_period_ = 0;
};

}  // namespace rfms
