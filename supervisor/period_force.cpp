#include "supervisor/period_force.hpp"

#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms {

namespace {

SwingCounter cycleCounter(double dt) {
  return SwingCounter(dt, PeriodForce::kCompensationCycleHalfSwings, PeriodForce::kCompensationCycleWindowS);
}

}  // namespace

PeriodForce::PeriodForce(const RobotModel& model, const SupervisorConfig& config)
    : model_(model),
      config_(config),
      law_(config.dt, config.max_force, config.max_moment),
      monitor_(config.dt, config.max_force),
      compensation_swings_{SwingCounter(config.dt), SwingCounter(config.dt), SwingCounter(config.dt)},
      compensation_cycles_{cycleCounter(config.dt), cycleCounter(config.dt), cycleCounter(config.dt)} {}

void PeriodForce::read(const proto::ArmSensors* arm) {
  if (arm == nullptr) return;
  bool read = false;
  if (config_.wrist) {
    read = sensedWristDeflection(*arm, *config_.wrist, config_.tool, deflection_);
    if (read) wrench_ = wrenchFromDeflection(*config_.wrist, config_.tool, deflection_);
  } else {
    read = sensedFlangeWrench(*arm, nullptr, config_.tool, wrench_);
  }
  if (read) {
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
    monitor_.begin(Vec3::Zero(), Vec3::Zero(), 1.0);
    return;
  }
  const ForceInputs in = forceInputsAt(model_, angles, velocities, pose, config_.tool.frame, contact_);
  const Vec6 drive = law_.update(forced->force, forced->compliance, move, in);
  encode(drive, s.mutable_force_command());

  const ForceSpec& spec = forced->force;
  Vec6 setpoint = Vec6::Zero();
  for (int d = 0; d < 6; ++d)
    if ((spec.force_axes >> d) & 1u) setpoint[d] = spec.force[d];
  const double size = setpoint.norm();
  const Mat3 frame = complianceAxes(spec, in);
  const Vec3 position = frame.transpose() * in.tool.translation();
  if (move != stats_move_) {
    stats_move_ = move;
    // What A.1's laws settle to: all of the setpoint with an integral, K_p / (1 + K_p) without.
    const double settles = spec.gains.law == ForceLawKind::kPI ? 1.0 : spec.gains.kp / (1.0 + spec.gains.kp);
    stats_.begin(size, size * settles, config_.dt);
    monitor_.begin(setpoint.head<3>(), position, settles);
    monitor_in_tool_ = spec.tool_frame;
  }
  const Vec6 applied = law_.appliedForce();
  if (spec.force_axes == 0) {
    // An impedance: the force it came to apply along its compliant axes.
    Vec6 along = Vec6::Zero();
    for (int d = 0; d < 3; ++d)
      if ((forced->compliance >> d) & 1u) along[d] = applied[d];
    stats_.add(along.norm(), along.norm());
    return;
  }
  stats_.add(law_.forceError().norm(), size > 0.0 ? applied.dot(setpoint) / size : 0.0);
  monitor_.update(applied.head<3>(), position, frame.transpose() * drive.head<3>());
}

Transform PeriodForce::forcedT6() const { return law_.setpoint() * config_.tool.frame.inverse(Eigen::Isometry); }

std::optional<ForceFigures> PeriodForce::figures(std::uint64_t move, const JointVec& angles) const {
  if (move != stats_move_ || stats_move_ == 0) return std::nullopt;
  std::optional<ForceFigures> f = stats_.figures(config_.dt);
  if (f) f->end_pose = toolFrame(angles);
  return f;
}

Transform PeriodForce::toolFrame(const JointVec& angles) const {
  const Transform t6 = forwardKinematics(model_, angles);
  if (!config_.wrist) return t6 * config_.tool.frame;
  // On the compliant wrist the tool sits where its springs let it: its centre of mass moved by the
  // measured deflection d and turned about it by a (T6's axes; a's size is the angle when small).
  const Vec3 d = deflection_.head<3>(), a = deflection_.tail<3>();
  Transform deflected = Transform::Identity();
  if (a.norm() > 0.0)
    deflected.linear() = Eigen::AngleAxisd(std::asin(std::min(a.norm(), 1.0)), a.normalized()).toRotationMatrix();
  deflected.translation() = config_.tool.com + d - deflected.linear() * config_.tool.com;
  return t6 * deflected * config_.tool.frame;
}

Transform PeriodForce::compensated(const Transform& t6, const CompensatorGains& gains, std::uint64_t move,
                                   std::uint32_t compliance, const JointVec& angles) {
  const bool active = compensates(gains);
  if (!active && compensation_.isZero()) return t6;
  if (move != compensator_move_) {
    compensator_move_ = move;
    for (int i = 0; i < 3; ++i) {
      const auto axis = static_cast<std::size_t>(i);
      compensator_[axis] = PositionCompensator(gains, config_.dt);
      compensator_[axis].start(-compensation_[i]);
      compensation_swings_[axis].begin();
      compensation_cycles_[axis].begin();
    }
    compensation_fault_ = proto::ER_NONE;
    compensation_axis_ = -1;
  }
  // The flange is moved back by H of the tool's measured deflection along the position-controlled
  // axes (the compliant ones are the arm's to yield along), so that the tool settles where the path
  // puts it: X/F = (1 - K1) / K. The default lag keeps the setpoint from stepping: the joints' IK
  // extrapolates from successive setpoints, and a jump of millimetres in one period reads as
  // metres a second.
  const Vec3 d = active ? Vec3(forwardKinematics(model_, angles).linear() * deflection_.head<3>()) : Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    const auto axis = static_cast<std::size_t>(i);
    const bool compliant = ((compliance >> i) & 1u) != 0;
    compensation_[i] = -compensator_[axis].update(compliant ? 0.0 : d[i]);
    // A compensator whose loop does not hold on this arm rings: stop it before a joint's following
    // error or IK does, and say why.
    const bool swings = compensation_swings_[axis].update(compensation_[i], kCompensationSwingM);
    const bool cycles = compensation_cycles_[axis].update(compensation_[i], kCompensationCycleM);
    if ((swings || cycles) && compensation_fault_ == proto::ER_NONE)
      compensation_fault_ = proto::ER_COMPENSATION_OSCILLATION, compensation_axis_ = i;
  }
  if (!active && compensation_.norm() < 1e-9) compensation_.setZero();
  Transform t = t6;
  t.translation() += compensation_;
  return t;
}

}  // namespace rfms
