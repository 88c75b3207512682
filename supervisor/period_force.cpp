#include "supervisor/period_force.hpp"

#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms {

PeriodForce::PeriodForce(const RobotModel& model, const SupervisorConfig& config)
    : model_(model), config_(config), law_(config.dt, config.max_force, config.max_moment) {}

void PeriodForce::read(const proto::ArmSensors* arm) {
  if (arm == nullptr) return;
  if (arm->deflection_size() == 6)
    for (int i = 0; i < 6; ++i) deflection_[i] = arm->deflection(i);
  if (sensedFlangeWrench(*arm, config_.wrist ? &*config_.wrist : nullptr, config_.tool, wrench_)) {
    saturated_ = arm->wrench_saturated();
    has_wrench_ = true;
  }
}

void PeriodForce::estimateContact(const JointVec& angles) {
  contact_ = has_wrench_ ? contactFromReading(config_.tool, model_.gravity, forwardKinematics(model_, angles), wrench_)
                         : Vec6::Zero();
}

bool PeriodForce::overLimits() const {
  return saturated_ != 0 || contact_.head<3>().norm() > config_.max_force ||
         contact_.tail<3>().norm() > config_.max_moment;
}

void PeriodForce::command(const MotionRecord* forced, std::uint64_t move, const Transform& pose, const JointVec& angles,
                          const JointVec& velocities, proto::SMail& s) {
  if (forced == nullptr) {
    law_.stop();
    s.clear_force_command();
    return;
  }
  const ForceInputs in = forceInputsAt(model_, angles, velocities, pose, config_.tool.frame, contact_);
  encode(law_.update(forced->force, forced->compliance, move, in), s.mutable_force_command());

  const ForceSpec& spec = forced->force;
  if (spec.force_axes == 0) return;
  Vec6 setpoint = Vec6::Zero();
  for (int d = 0; d < 6; ++d)
    if ((spec.force_axes >> d) & 1u) setpoint[d] = spec.force[d];
  const double size = setpoint.norm();
  if (move != stats_move_) {
    stats_move_ = move;
    stats_.begin(size);
  }
  const Vec6 applied = law_.appliedForce();
  stats_.add(law_.forceError().norm(), size > 0.0 ? applied.dot(setpoint) / size : 0.0);
}

Transform PeriodForce::forcedT6() const { return law_.setpoint() * config_.tool.frame.inverse(Eigen::Isometry); }

bool PeriodForce::figures(std::uint64_t move, const JointVec& angles, ForceFigures& out) const {
  if (move != stats_move_ || stats_move_ == 0) return false;
  out = stats_.figures(config_.dt);
  out.end_pose = forwardKinematics(model_, angles) * config_.tool.frame;
  return true;
}

Transform PeriodForce::compensated(const Transform& t6, double k1, std::uint32_t compliance, const JointVec& angles) {
  if (k1 <= 0.0 && compensation_.isZero()) return t6;
  // The flange is moved back by K1 of the tool's measured deflection, along the position-controlled
  // axes (the compliant ones are the arm's to yield along), so that the tool settles where the
  // path puts it: X/F = (1 - K1) / K.
  Vec3 back = Vec3::Zero();
  if (k1 > 0.0) {
    back = -k1 * (forwardKinematics(model_, angles).linear() * deflection_.head<3>());
    for (int d = 0; d < 3; ++d)
      if ((compliance >> d) & 1u) back[d] = 0.0;
  }
  // Through a 5 Hz low pass, so that the setpoint never steps: the joints' IK extrapolates from
  // successive setpoints, and a jump of millimetres in one period reads as metres a second. (A
  // move without compensation blended onto one with it lets the offset decay the same way.)
  constexpr double kCompensationHz = 5.0;
  compensation_ += (1.0 - std::exp(-2.0 * std::numbers::pi * kCompensationHz * config_.dt)) * (back - compensation_);
  if (k1 <= 0.0 && compensation_.norm() < 1e-9) compensation_.setZero();
  Transform t = t6;
  t.translation() += compensation_;
  return t;
}

}  // namespace rfms
