// One joint server's core (RFMS manual §4.2): six instances differing only in their joint number.
// Each period it reads the supervisor's S_MAIL and its own encoder, and answers with J_MAIL and a
// torque command:
//  - setpoint by parallel inverse kinematics, theta~_i(k) = Lambda_i(T6(k), theta_1..theta_{i-1}
//    of period k-1), the others' angles rebuilt from their sines and cosine signs as RFMS sent
//    them (or the exact serial solution when S_MAIL asks for it);
//  - linear interpolation between setpoints when the update period is several sample periods;
//  - servo: PID on the joint angle plus the feed-forward of A.4 from its latest PARCEL,
//    sum_j D_ij qdd_j + h_i + g_i, and friction; torque saturation; compliance by removing the
//    compliant part of the servo error (the PARCEL's row of 1 - P, the projection that
//    math_node/math_core.hpp's complianceMatrix describes); force control by adding the joint's
//    share of the supervisor's force command, the PARCEL's Jacobian column dotted with it;
//  - encoder <-> angle, CALIB (search for the index pulse, from then on angles are absolute, and
//    return to where the search began, so that calibration leaves the arm where it was), MANU jog,
//    FREE (gravity only), HOLD;
// Its parts, each with its own tests: the encoder and calibration (joint_calibration.hpp), the
// interpolation between updates (setpoint_interpolation.hpp) and the servo with its feed-forward,
// compliance and force share (joint_servo.hpp); PIK and the rtstate's setpoint are this class's.
//  - faults (range, following error, saturation time, IK, calibration) reported in J_MAIL; the
//    supervisor decides on EMGCY.
// step() is real-time safe: no allocation once the mailboxes' repeated fields exist, no throw.
#pragma once

#include <cstdint>

#include "common/controller_settings.hpp"
#include "common/ik_opw.hpp"
#include "common/period_core.hpp"
#include "common/robot_model.hpp"
#include "common/servo_gains.hpp"
#include "joint_node/joint_calibration.hpp"
#include "joint_node/joint_servo.hpp"
#include "joint_node/setpoint_interpolation.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct JointServoConfig {
  int joint = 1;                                       // 1..6
  double dt = 1e-3;                                    // s
  double kp = 0.0, kd = 0.0, ki = 0.0;                 // N m/rad, N m s/rad, N m/(rad s)
  double integral_limit = 0.0;                         // N m
  double following_error_limit = 0.1;                  // rad
  double saturation_time_limit = 0.25;                 // s
  double range_margin = 0.02;                          // rad beyond the joint limits before a range fault
  double park_angle = 0.0;                             // rad: the angle the joint assumes at power-up
  double calib_speed = 0.1;                            // rad/s while searching for the index
  double calib_range = 0.5;                            // rad searched each way from the power-up angle
  double velocity_filter_hz = kJointVelocityFilterHz;  // first-order low-pass on the encoder velocity
  double friction_velocity = 0.05;                     // rad/s: Coulomb feed-forward is F_s tanh(qd / this)
  // |sin(theta5)| below which joint 4 holds its angle: PIK's inner angles are a period old, so
  // theta4 computed from a nearly vertical approach vector would follow their error, not the path.
  double wrist_singular_sin = 1e-3;
  PikScheme pik = pikScheme(proto::ControllerSettings::default_instance());
};

// Gains of a critically damped loop of `bandwidth_hz` on the joint's own inertia at `park`
// (common/servo_gains.hpp), the rest at their defaults.
JointServoConfig defaultServoConfig(const RobotModel& model, int joint, const JointVec& park, double dt,
                                    double bandwidth_hz = 8.0);
// Joint `joint`'s configuration from the controller's settings (checked by the caller).
JointServoConfig jointConfigFor(const RobotModel& model, const proto::ControllerSettings& s, int joint);

// Period k's S_MAIL and the arm's sensors it goes with (the same period's, or in realtime the newest).
struct JointInbox {
  const proto::SMail& smail;
  const proto::ArmSensors& sensors;
};

struct JointOutbox {
  proto::JMail jmail;
  proto::TorqueCommand torque;
};

class JointCore {
 public:
  using Inbox = JointInbox;
  using Outbox = JointOutbox;
  JointCore(const RobotModel& model, const JointServoConfig& config);
  JointCore(const JointCore&) = delete;  // its parts refer to its configuration
  JointCore& operator=(const JointCore&) = delete;

  void step(const JointInbox& in, JointOutbox& out) noexcept;

  // Calibrated and back where the search started.
  bool calibrated() const { return calibration_.done(); }
  double angle() const { return calibration_.angle(); }

 private:
  double solveSetpoint(const proto::SMail& s);  // PIK (or the exact serial solution)
  void startFollowing();                        // SETP or STOP entered: the path starts here, at rest

  // The servo's setpoint this period, by rtstate, and whether the joint is meant to move.
  struct Setpoint {
    double angle = 0.0;
    bool moving = false;
  };
  Setpoint setpointFor(const proto::SMail& s, proto::RtState state);
  double follow(const proto::SMail& s);  // SETP, STOP: solved and interpolated
  std::uint32_t faults(const JointServo::Output& servo, bool powered, bool following) const;

  const RobotModel& model_;
  const JointModel& joint_;
  JointServoConfig config_;
  OpwIk ik_;
  int index_;          // 0-based
  double resolution_;  // rad per count, for MANU's jogs

  // Its parts (they read config_).
  JointCalibration calibration_;
  SetpointInterpolator path_;
  JointServo servo_;

  proto::RtState last_state_ = proto::RT_IDLE;
  double hold_target_ = 0.0;  // where the joint holds (and CALIB and MANU move it)
  double ik_setpoint_ = 0.0;  // theta~_i of the latest solve
  int ik_status_ = 0;
  // The other joints' setpoints of the previous update, for the extrapolating schemes.
  JointVec previous_known_ = JointVec::Zero();
  bool have_previous_known_ = false;
  std::uint64_t sequence_ = 0;
};

static_assert(PeriodCore<JointCore>);

}  // namespace rfms
