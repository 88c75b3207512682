#include "joint_node/joint_servo.hpp"

#include <algorithm>
#include <cmath>

#include "common/mail_codec.hpp"
#include "joint_node/joint_core.hpp"

namespace rfms {

JointServo::JointServo(const JointModel& joint, const JointServoConfig& config)
    : joint_(joint), config_(config), index_(config.joint - 1) {}

void JointServo::take(const proto::SMail& s) {
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

double JointServo::feedForward(const proto::SMail& s, const State& now, bool moving) const {
  if (!have_parcel_) return 0.0;
  double ff = gravity_torque_;
  if (moving) {
    JointVec acc = decodeJoints(s.desired_acceleration());
    acc[index_] = now.desired_acceleration;
    ff += inertia_row_.dot(acc) + velocity_torque_ +
          joint_.coulomb * std::tanh(now.desired_velocity / config_.friction_velocity) +
          joint_.viscous * now.desired_velocity;
  }
  return ff;
}

JointServo::Output JointServo::run(const proto::SMail& s, proto::RtState state, bool powered, const State& now) {
  const bool following = state == proto::RT_SETP || state == proto::RT_STOP;
  Output out;
  out.error = now.setpoint - now.angle;
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
    out.tau = config_.kp * out.kept + config_.kd * (now.desired_velocity - now.velocity) + integral_ +
              feedForward(s, now, now.moving && following);
    // Force control: this joint's share of the wrench the supervisor asks the tool to apply.
    if (following && have_parcel_ && s.force_command_size() == 6)
      out.tau += jacobian_column_.dot(decodeJoints(s.force_command()));
  }
  out.limited = std::clamp(out.tau, -joint_.tau_max, joint_.tau_max);
  saturated_for_ = (powered && out.limited != out.tau) ? saturated_for_ + config_.dt : 0.0;
  return out;
}

}  // namespace rfms
