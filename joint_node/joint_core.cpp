#include "joint_node/joint_core.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/mail_codec.hpp"
#include "common/servo_gains.hpp"
#include "common/transform.hpp"

namespace rfms {

namespace {
constexpr double kTwoPi = 2.0 * std::numbers::pi;
}  // namespace

JointServoConfig defaultServoConfig(const RobotModel& model, int joint, const JointVec& park, double dt,
                                    double bandwidth_hz) {
  JointServoConfig c;
  c.joint = joint;
  c.dt = dt;
  const ServoGains g = designServoGains(model, joint, park, bandwidth_hz);
  c.kp = g.kp;
  c.kd = g.kd;
  c.ki = g.ki;
  c.integral_limit = g.integral_limit;
  c.park_angle = park[joint - 1];
  return c;
}

JointServoConfig jointConfigFor(const RobotModel& model, const proto::ControllerSettings& s, int joint) {
  JointServoConfig c = defaultServoConfig(model, joint, parkPose(s), sampleSeconds(s), s.servo().bandwidth_hz());
  c.pik = pikScheme(s);
  return c;
}

JointCore::JointCore(const RobotModel& model, const JointServoConfig& config)
    : model_(model),
      joint_(model.joints[config.joint - 1]),
      config_(config),
      ik_(model, config.wrist_singular_sin),
      index_(config.joint - 1),
      resolution_(kTwoPi / model.joints[config.joint - 1].counts_per_rev),
      calibration_(joint_, config_),
      path_(config.dt, config.park_angle),
      servo_(joint_, config_) {
  hold_target_ = ik_setpoint_ = config.park_angle;
}

void JointCore::startFollowing() {
  ik_setpoint_ = hold_target_;
  have_previous_known_ = false;
  path_.start(hold_target_);
}

double JointCore::solveSetpoint(const proto::SMail& s) {
  Transform t6;
  if (!decode(s.t6(), t6)) {
    ik_status_ = static_cast<int>(IkStatus::kOutOfReachShoulder);
    return ik_setpoint_;
  }
  const ArmConfig config = decode(s.config());
  JointVec known = decodeSetpoints(s);
  JointVec near = known;
  near[index_] = ik_setpoint_;
  JointSolution sol;
  if (s.serial_ik() || s.setpoint_restart()) {
    // The exact solution: solve the inner joints first from this period's T6.
    for (int j = 1; j <= config_.joint; ++j) {
      sol = ik_.solveJoint(j, t6, known, config, near);
      if (!usable(sol.status)) break;
      known[j - 1] = sol.q;
    }
  } else {
    const bool extrapolate =
        config_.pik == PikScheme::kPaperExtrapolated || config_.pik == PikScheme::kDecoupledExtrapolated;
    JointVec inner = known;
    // Angles rebuilt from sines wrap at pi; only their sines and cosines are used downstream, so
    // the step is taken modulo 2 pi and the extrapolated angle may lie outside (-pi, pi].
    if (extrapolate && have_previous_known_)
      for (int j = 0; j < kJoints; ++j) inner[j] += wrapToPi(known[j] - previous_known_[j]);
    previous_known_ = known;
    have_previous_known_ = true;
    const bool decoupled = config_.pik == PikScheme::kDecoupled || config_.pik == PikScheme::kDecoupledExtrapolated;
    sol = decoupled ? ik_.solveJointDecoupled(config_.joint, t6, inner, config, near)
                    : ik_.solveJoint(config_.joint, t6, inner, config, near);
  }
  ik_status_ = static_cast<int>(sol.status);
  return usable(sol.status) ? sol.q : ik_setpoint_;
}

// SETP and STOP: a new setpoint solved at each update, linearly interpolated between updates.
double JointCore::follow(const proto::SMail& s) {
  const int update_periods = static_cast<int>(s.update_periods());
  if (s.new_setpoint() && s.setpoint_restart()) {
    // A step, not a path: the setpoints before it say nothing of the velocity, and extrapolating
    // the inner joints across it would add the step twice.
    startFollowing();
    hold_target_ = ik_setpoint_ = solveSetpoint(s);
    path_.restart(ik_setpoint_, update_periods);
  } else if (s.new_setpoint()) {
    ik_setpoint_ = solveSetpoint(s);
    path_.next(ik_setpoint_, update_periods);
  }
  hold_target_ = path_.advance();
  return hold_target_;
}

JointCore::Setpoint JointCore::setpointFor(const proto::SMail& s, proto::RtState state) {
  const double angle = calibration_.angle();
  switch (state) {
    case proto::RT_IDLE:
    case proto::RT_EMGCY:
    case proto::RT_FREE:
      hold_target_ = ik_setpoint_ = angle;
      servo_.resetIntegral();
      return {angle, false};
    case proto::RT_CALIB: {
      const bool moving = calibration_.search(hold_target_);
      ik_setpoint_ = hold_target_;
      return {hold_target_, moving};
    }
    case proto::RT_MANU:
      if (s.jog_joint() == config_.joint)
        hold_target_ += (s.jog_direction() >= 0 ? 1 : -1) * s.jog_counts() * resolution_;
      ik_setpoint_ = hold_target_;
      return {hold_target_, false};
    case proto::RT_HOLD: ik_setpoint_ = hold_target_; return {hold_target_, false};
    case proto::RT_SETP:
    case proto::RT_STOP: return {follow(s), true};
    default: return {hold_target_, false};
  }
}

std::uint32_t JointCore::faults(const JointServo::Output& servo, bool powered, bool following) const {
  std::uint32_t faults = proto::JF_NONE;
  // In a compliant direction the arm is meant to yield: only the servoed part of the error counts.
  if (powered && std::abs(servo.kept) > config_.following_error_limit) faults |= proto::JF_FOLLOWING;
  const double angle = calibration_.angle();
  if (calibration_.calibrated() &&
      (angle < joint_.q_min - config_.range_margin || angle > joint_.q_max + config_.range_margin))
    faults |= proto::JF_RANGE;
  if (servo_.saturatedFor() > config_.saturation_time_limit) faults |= proto::JF_SATURATION;
  if (following && !usable(static_cast<IkStatus>(ik_status_))) faults |= proto::JF_IK;
  if (calibration_.failed()) faults |= proto::JF_CALIBRATION;
  return faults;
}

void JointCore::step(const JointInbox& in, JointOutbox& box) noexcept {
  const proto::SMail& s = in.smail;
  const proto::ArmSensors& sensors = in.sensors;
  proto::JMail& out = box.jmail;
  proto::TorqueCommand& torque = box.torque;
  const proto::RtState state = s.rtstate();
  if (const JointCalibration::Pulse p = calibration_.read(sensors, state == proto::RT_CALIB); p.found) {
    hold_target_ = p.angle;
    ik_setpoint_ += p.shift;
    path_.shift(p.shift);
  }
  servo_.take(s);

  const bool powered = s.power() && state != proto::RT_IDLE && state != proto::RT_EMGCY;
  const bool following = state == proto::RT_SETP || state == proto::RT_STOP;
  const bool was_following = last_state_ == proto::RT_SETP || last_state_ == proto::RT_STOP;
  if (following && !was_following) startFollowing();
  const Setpoint sp = setpointFor(s, state);
  if (!following) path_.still();
  JointServo::State now;
  now.angle = calibration_.angle();
  now.velocity = calibration_.velocity();
  now.setpoint = sp.angle;
  now.desired_velocity = path_.velocity();
  now.desired_acceleration = path_.acceleration();
  now.moving = sp.moving;
  const JointServo::Output sv = servo_.run(s, state, powered, now);

  const std::uint64_t k = s.header().period();
  out.mutable_header()->set_period(k);
  out.mutable_header()->set_sequence(++sequence_);
  out.set_joint(static_cast<std::uint32_t>(config_.joint));
  out.set_setpoint(ik_setpoint_);
  out.set_angle(now.angle);
  out.set_velocity(now.velocity);
  out.set_servo_setpoint(sp.angle);
  out.set_desired_velocity(now.desired_velocity);
  out.set_desired_acceleration(now.desired_acceleration);
  out.set_servo_error(sv.error);
  out.set_torque(powered ? sv.limited : 0.0);
  out.set_calibrated(calibrated());
  out.set_faults(faults(sv, powered, following));
  out.set_ik_status(ik_status_);
  out.set_parcel_period(servo_.parcelPeriod());
  out.set_sensors_period(sensors.header().period());

  torque.mutable_header()->set_period(k);
  torque.mutable_header()->set_sequence(sequence_);
  torque.set_joint(static_cast<std::uint32_t>(config_.joint));
  torque.set_torque(powered ? sv.limited : 0.0);
  torque.set_power(powered);
  last_state_ = state;
}

}  // namespace rfms
