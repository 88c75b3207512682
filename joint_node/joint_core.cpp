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
      velocity_alpha_(std::exp(-kTwoPi * config.velocity_filter_hz * config.dt)) {
  hold_target_ = ik_setpoint_ = sp_previous_ = sp_next_ = config.park_angle;
}

double JointCore::angleFromCount(std::int64_t count) const {
  // Before calibration the joint can only assume it powered up at its park angle.
  return calibrated_ ? joint_.index_angle + static_cast<double>(count - index_count_) * resolution_
                     : config_.park_angle + static_cast<double>(count) * resolution_;
}

void JointCore::readEncoder(const proto::ArmSensors& sensors, proto::RtState state) {
  if (sensors.encoder_size() != kJoints) return;  // keep the last reading
  const std::int64_t count = sensors.encoder(index_);
  last_count_ = count;
  // The pulse flag covers one arm period only: a realtime joint reads the latest sensor mail and
  // may skip the one that carried it. The count latched at the pulse stays, so a change in it is
  // a pulse too (the flag alone would let calibration search on past the index and fail).
  const bool has_index = sensors.index_size() == kJoints && sensors.index_count_size() == kJoints;
  const bool latched_anew = has_index && seen_index_count_ && sensors.index_count(index_) != last_index_count_;
  const bool pulse = has_index && (sensors.index(index_) || latched_anew);
  if (has_index) {
    last_index_count_ = sensors.index_count(index_);
    seen_index_count_ = true;
  }
  if (!calibrated_ && state == proto::RT_CALIB && pulse) {
    // The index pulse: from now on angles are absolute. Shift the targets by the same amount so
    // that the servo does not jump.
    const double before = angleFromCount(count);
    calibrated_ = true;
    index_count_ = sensors.index_count(index_);
    const double shift = angleFromCount(count) - before;
    hold_target_ = angleFromCount(count);
    calib_returning_ = true;
    previous_angle_ += shift;
    ik_setpoint_ += shift;
    sp_previous_ += shift;
    sp_next_ += shift;
  }
  angle_ = angleFromCount(count);
  if (!have_angle_) previous_angle_ = angle_;
  have_angle_ = true;
  const double raw = (angle_ - previous_angle_) / config_.dt;
  velocity_ = velocity_alpha_ * velocity_ + (1.0 - velocity_alpha_) * raw;
  previous_angle_ = angle_;
}

void JointCore::enterSetpointMode() {
  sp_previous_ = sp_next_ = ik_setpoint_ = hold_target_;
  have_previous_known_ = false;
  phase_ = 0;
  update_periods_ = 1;
  desired_velocity_ = desired_acceleration_ = 0.0;
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

double JointCore::feedForward(const proto::SMail& s, bool moving) const {
  if (!have_parcel_) return 0.0;
  double ff = gravity_torque_;
  if (moving) {
    JointVec acc = decodeJoints(s.desired_acceleration());
    acc[index_] = desired_acceleration_;
    ff += inertia_row_.dot(acc) + velocity_torque_ +
          joint_.coulomb * std::tanh(desired_velocity_ / config_.friction_velocity) +
          joint_.viscous * desired_velocity_;
  }
  return ff;
}

void JointCore::takeParcel(const proto::SMail& s) {
  if (!s.has_parcel() || s.parcel().joint() != static_cast<std::uint32_t>(config_.joint) ||
      s.parcel().inertia_row_size() != kJoints)
    return;
  const proto::Parcel& p = s.parcel();
  inertia_row_ = decodeJoints(p.inertia_row());
  compliance_row_ = decodeJoints(p.compliance_row());
  jacobian_column_ = decodeJoints(p.jacobian_column());
  velocity_torque_ = p.velocity_torque();
  gravity_torque_ = p.gravity_torque();
  parcel_period_ = p.angles_period();
  have_parcel_ = true;
}

// CALIB: search for the index pulse one way, then the other, then give up; once found, go back to
// where the search began, now known absolutely. True while the joint moves.
bool JointCore::calibrate() {
  if (calibrated_ && calib_returning_) {
    const double home = angleFromCount(calib_start_count_);
    const double step = config_.calib_speed * config_.dt;
    if (std::abs(home - hold_target_) <= step) {
      hold_target_ = home;
      calib_returning_ = false;
      return false;
    }
    hold_target_ += home > hold_target_ ? step : -step;
    return true;
  }
  if (calibrated_ || calib_failed_) return false;
  if (!calib_started_) {
    calib_started_ = true;
    calib_start_ = hold_target_ = angle_;
    calib_start_count_ = last_count_;
    calib_direction_ = 1;
  }
  hold_target_ += calib_direction_ * config_.calib_speed * config_.dt;
  if (std::abs(hold_target_ - calib_start_) > config_.calib_range) {
    // Not found this way: search the other side, then give up.
    if (calib_direction_ > 0)
      calib_direction_ = -1;
    else
      calib_failed_ = true;
  }
  return true;
}

// SETP and STOP: a new setpoint solved at each update, linearly interpolated between updates.
double JointCore::follow(const proto::SMail& s) {
  if (s.new_setpoint() && s.setpoint_restart()) {
    // A step, not a path: the setpoints before it say nothing of the velocity, and extrapolating
    // the inner joints across it would add the step twice.
    enterSetpointMode();
    hold_target_ = sp_previous_ = sp_next_ = ik_setpoint_ = solveSetpoint(s);
    update_periods_ = std::max<int>(1, static_cast<int>(s.update_periods()));
  } else if (s.new_setpoint()) {
    ik_setpoint_ = solveSetpoint(s);
    sp_previous_ = sp_next_;
    sp_next_ = ik_setpoint_;
    update_periods_ = std::max<int>(1, static_cast<int>(s.update_periods()));
    phase_ = 0;
    const double interval = update_periods_ * config_.dt;
    const double velocity = (sp_next_ - sp_previous_) / interval;
    desired_acceleration_ = (velocity - desired_velocity_) / interval;
    desired_velocity_ = velocity;
  }
  const double setpoint = sp_previous_ + (sp_next_ - sp_previous_) * phase_ / update_periods_;
  phase_ = std::min(phase_ + 1, update_periods_);
  hold_target_ = setpoint;
  return setpoint;
}

JointCore::Setpoint JointCore::setpointFor(const proto::SMail& s, proto::RtState state) {
  switch (state) {
    case proto::RT_IDLE:
    case proto::RT_EMGCY:
    case proto::RT_FREE:
      hold_target_ = ik_setpoint_ = angle_;
      integral_ = 0.0;
      return {angle_, false};
    case proto::RT_CALIB: {
      const bool moving = calibrate();
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

JointCore::Servo JointCore::servo(const proto::SMail& s, proto::RtState state, const Setpoint& sp, bool powered) {
  const bool following = state == proto::RT_SETP || state == proto::RT_STOP;
  Servo out;
  out.error = sp.angle - angle_;
  out.kept = out.error;
  if (powered && state == proto::RT_FREE) {
    out.tau = have_parcel_ ? gravity_torque_ : 0.0;
  } else if (powered) {
    const bool compliant = (s.compliance() & 0x3f) != 0 && have_parcel_;
    if (compliant) {
      // Only the part of the error outside the compliant directions is servoed. The integral
      // restarts: a bias built up while stiff would push the arm along the compliant directions.
      if (!was_compliant_) integral_ = 0.0;
      JointVec errors = decodeJoints(s.servo_error());
      errors[index_] = out.error;
      out.kept = compliance_row_.dot(errors);
    }
    was_compliant_ = compliant;
    integral_ =
        std::clamp(integral_ + config_.ki * out.kept * config_.dt, -config_.integral_limit, config_.integral_limit);
    out.tau = config_.kp * out.kept + config_.kd * (desired_velocity_ - velocity_) + integral_ +
              feedForward(s, sp.moving && following);
    // Force control: this joint's share of the wrench the supervisor asks the tool to apply.
    if (following && have_parcel_ && s.force_command_size() == 6)
      out.tau += jacobian_column_.dot(decodeJoints(s.force_command()));
  }
  out.limited = std::clamp(out.tau, -joint_.tau_max, joint_.tau_max);
  saturated_for_ = (powered && out.limited != out.tau) ? saturated_for_ + config_.dt : 0.0;
  return out;
}

std::uint32_t JointCore::faults(const Servo& servo, bool powered, bool following) const {
  std::uint32_t faults = proto::JF_NONE;
  // In a compliant direction the arm is meant to yield: only the servoed part of the error counts.
  if (powered && std::abs(servo.kept) > config_.following_error_limit) faults |= proto::JF_FOLLOWING;
  if (calibrated_ && (angle_ < joint_.q_min - config_.range_margin || angle_ > joint_.q_max + config_.range_margin))
    faults |= proto::JF_RANGE;
  if (saturated_for_ > config_.saturation_time_limit) faults |= proto::JF_SATURATION;
  if (following && !usable(static_cast<IkStatus>(ik_status_))) faults |= proto::JF_IK;
  if (calib_failed_) faults |= proto::JF_CALIBRATION;
  return faults;
}

void JointCore::step(const JointInbox& in, JointOutbox& box) noexcept {
  const proto::SMail& s = in.smail;
  const proto::ArmSensors& sensors = in.sensors;
  proto::JMail& out = box.jmail;
  proto::TorqueCommand& torque = box.torque;
  const proto::RtState state = s.rtstate();
  readEncoder(sensors, state);
  takeParcel(s);

  const bool powered = s.power() && state != proto::RT_IDLE && state != proto::RT_EMGCY;
  const bool following = state == proto::RT_SETP || state == proto::RT_STOP;
  const bool was_following = last_state_ == proto::RT_SETP || last_state_ == proto::RT_STOP;
  if (following && !was_following) enterSetpointMode();
  const Setpoint sp = setpointFor(s, state);
  if (!following) desired_velocity_ = desired_acceleration_ = 0.0;
  const Servo sv = servo(s, state, sp, powered);

  const std::uint64_t k = s.header().period();
  out.mutable_header()->set_period(k);
  out.mutable_header()->set_sequence(++sequence_);
  out.set_joint(static_cast<std::uint32_t>(config_.joint));
  out.set_setpoint(ik_setpoint_);
  out.set_angle(angle_);
  out.set_velocity(velocity_);
  out.set_servo_setpoint(sp.angle);
  out.set_desired_velocity(desired_velocity_);
  out.set_desired_acceleration(desired_acceleration_);
  out.set_servo_error(sv.error);
  out.set_torque(powered ? sv.limited : 0.0);
  out.set_calibrated(calibrated());
  out.set_faults(faults(sv, powered, following));
  out.set_ik_status(ik_status_);
  out.set_parcel_period(parcel_period_);
  out.set_sensors_period(sensors.header().period());

  torque.mutable_header()->set_period(k);
  torque.mutable_header()->set_sequence(sequence_);
  torque.set_joint(static_cast<std::uint32_t>(config_.joint));
  torque.set_torque(powered ? sv.limited : 0.0);
  torque.set_power(powered);
  last_state_ = state;
}

}  // namespace rfms
