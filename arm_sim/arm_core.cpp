#include "arm_sim/arm_core.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/motor.hpp"
#include "common/rk4.hpp"
#include "common/rne.hpp"

namespace rfms {

ArmSimConfig armConfigFor(const RobotModel& model, const proto::ControllerSettings& s, const Scene& scene) {
  ArmSimConfig a;
  a.scene = scene;
  a.dt = sampleSeconds(s);
  a.command_timeout_periods = s.watchdog_periods();  // the supervisor's patience, the arm's too
  a.amplifier = s.amplifier() == proto::ControllerSettings::VOLTAGE ? Amplifier::kVoltage : Amplifier::kCurrent;
  const JointVec park = parkPose(s);
  std::mt19937_64 rng(s.seed());
  std::uniform_real_distribution<double> offset(-s.power_up_error_rad(), s.power_up_error_rad());
  for (int i = 0; i < kJoints; ++i)
    a.q_initial[i] = std::clamp(park[i] + offset(rng), model.joints[i].q_min, model.joints[i].q_max);
  return a;
}

namespace {
constexpr double kTwoPi = 2.0 * std::numbers::pi;
}  // namespace

ArmCore::ArmCore(const RobotModel& model, const ArmSimConfig& config)
    : model_(config.scene.sensor == SensorKind::kCompliantWrist ? withoutTool(model, config.scene.tool) : model),
      config_(config),
      q_(config.q_initial),
      qd_(JointVec::Zero()),
      q_power_up_(config.q_initial) {
  substeps_ = std::max(1, static_cast<int>(std::ceil(config.dt / config.max_substep - 1e-9)));
  locked_.fill(true);  // powered down: the brakes hold every joint
  if (config.scene.sensor == SensorKind::kForceTorque) {
    // Powered up at rest, the sensor already carries the tool: its first mail reads the tool's
    // weight, not nothing (which the controller would take for a pull of that weight).
    ft_.emplace(config.scene.force_torque, config.dt);
    ft_->sample(flangeWrench(forwardKinematics(model_, q_), Vec6::Zero(), Vec6::Zero()));
  }
  if (config.scene.sensor == SensorKind::kCompliantWrist) {
    wrist_.emplace(config.scene.wrist);
    const Transform t6 = forwardKinematics(model_, q_);
    body_ = toolBodyAtRest(config.scene.wrist, config.scene.tool, t6, model_.gravity);
    wrist_load_ = rfms::wristLoad(config.scene.wrist, config.scene.tool, t6, Vec6::Zero(), body_);
    wrist_->sample(wrist_load_);
  }
}

std::int64_t ArmCore::encoderCount(int i, double q) const {
  // Incremental: zero at power-up, whatever the angle was then (the controller cannot know it
  // until it has seen the index pulse).
  return static_cast<std::int64_t>(std::floor((q - q_power_up_[i]) * model_.joints[i].counts_per_rev / kTwoPi));
}

void ArmCore::sense(proto::ArmSensors& out) const {
  out.mutable_header()->set_period(period_);
  out.mutable_header()->set_sequence(period_);
  out.set_powered(powered_);
  out.set_stale_commands(stale_mask_);
  out.set_missing_commands(missing_mask_);
  out.mutable_encoder()->Resize(kJoints, 0);
  out.mutable_index_count()->Resize(kJoints, 0);
  if (ft_) {
    out.mutable_wrench()->Resize(6, 0.0);
    for (int i = 0; i < 6; ++i) out.mutable_wrench()->Set(i, ft_->reading()[i]);
    out.set_wrench_saturated(ft_->saturated());
  }
  if (wrist_) {
    out.mutable_wrist_angle()->Resize(6, 0.0);
    for (int i = 0; i < 6; ++i) out.mutable_wrist_angle()->Set(i, wrist_->reading()[i]);
    out.set_wrench_saturated(wrist_->atStops());
  }
  out.mutable_index()->Resize(kJoints, false);
  for (int i = 0; i < kJoints; ++i) {
    out.mutable_encoder()->Set(i, encoderCount(i, q_[i]));
    out.mutable_index()->Set(i, index_fired_[i]);
    out.mutable_index_count()->Set(i, index_count_[i]);
  }
}

Vec6 ArmCore::contactAtFlange(const Transform& t6, const Vec6& twist, double t, ContactWrench& at_tool) const {
  const Vec3 lever = t6.linear() * config_.scene.tool.frame.translation();
  const Vec3 omega = twist.tail<3>();
  at_tool = contactWrench(config_.scene, t6.translation() + lever, twist.head<3>() + omega.cross(lever), omega, t);
  Vec6 w;
  w << at_tool.force, at_tool.moment + lever.cross(at_tool.force);
  return w;
}

Vec6 ArmCore::flangeWrench(const Transform& t6, const Vec6& twist, const Vec6& contact) {
  const LinkInertia& tool = config_.scene.tool.inertia;
  const Vec3 lever = tool.mass > 0.0 ? Vec3(t6.linear() * tool.first_moment / tool.mass) : Vec3::Zero();
  const Vec3 velocity = twist.head<3>() + twist.tail<3>().cross(lever);
  const Vec3 acceleration = period_ > 1 ? Vec3((velocity - last_com_velocity_) / config_.dt) : Vec3::Zero();
  last_com_velocity_ = velocity;
  const Vec3 load = tool.mass * (model_.gravity - acceleration);
  const Mat3 to_t6 = t6.linear().transpose();
  Vec6 w;
  w << to_t6 * (contact.head<3>() + load), to_t6 * (contact.tail<3>() + lever.cross(load));
  return w;
}

Transform ArmCore::toolPose() const {
  if (wrist_) return toolFrameOf(config_.scene.tool, body_);
  return forwardKinematics(model_, q_) * config_.scene.tool.frame;
}

ToolBody ArmCore::bodyOf(const State& y) {
  ToolBody b;
  b.x = y.segment<3>(kBodyX);
  b.v = y.segment<3>(kBodyV);
  b.r = Eigen::Quaterniond(y[kBodyR], y[kBodyR + 1], y[kBodyR + 2], y[kBodyR + 3]);
  b.w = y.segment<3>(kBodyW);
  return b;
}

ContactWrench ArmCore::bodyContact(const ToolBody& b, double t, Vec3& lever) const {
  lever = b.r * (config_.scene.tool.frame.translation() - config_.scene.tool.com);
  return contactWrench(config_.scene, b.x + lever, b.v + b.w.cross(lever), b.w, t);
}

void ArmCore::toolBodyRate(const ToolBody& b, const WristLoad& load, double t, State& dy) const {
  const ToolModel& tool = config_.scene.tool;
  const Mat3 r = b.r.toRotationMatrix();
  Vec3 force = load.force + tool.inertia.mass * model_.gravity;
  Vec3 moment = load.moment;
  if (!config_.scene.surfaces.empty()) {
    Vec3 lever;
    const ContactWrench c = bodyContact(b, t, lever);
    force += c.force;
    moment += c.moment + lever.cross(c.force);
  }
  const Mat3 inertia = r * tool.inertia_at_com * r.transpose();
  dy.segment<3>(kBodyX) = b.v;
  dy.segment<3>(kBodyV) = force / tool.inertia.mass;
  const Eigen::Quaterniond spin(0.0, b.w.x(), b.w.y(), b.w.z());
  const Eigen::Quaterniond turn = spin * b.r;  // q' = (0, w) q / 2, w in base axes
  dy.segment<4>(kBodyR) << 0.5 * turn.w(), 0.5 * turn.x(), 0.5 * turn.y(), 0.5 * turn.z();
  dy.segment<3>(kBodyW) = inertia.ldlt().solve(moment - b.w.cross(inertia * b.w));
}

ArmCore::State ArmCore::derivative(double t, const State& y) const {
  const JointVec q = y.head<kJoints>(), qd = y.segment<kJoints>(kJoints);
  State dy = State::Zero();
  dy.head<kJoints>() = qd;
  Vec6 wrench = wrench_;
  if (!config_.scene.surfaces.empty() || wrist_ || !wrench_.isZero()) {
    LinkFrames frames;
    linkFrames(model_, q, frames);
    const Mat6 j = jacobianBase(frames);
    const Transform& t6 = frames[kJoints];
    if (wrist_) {
      const ToolBody b = bodyOf(y);
      const WristLoad load = rfms::wristLoad(config_.scene.wrist, config_.scene.tool, t6, j * qd, b);
      wrench += load.onFlange(t6, b);
      toolBodyRate(b, load, t, dy);
    } else if (!config_.scene.surfaces.empty()) {
      ContactWrench unused;
      wrench += contactAtFlange(t6, j * qd, t, unused);
    }
    dy.segment<kJoints>(kJoints) = acceleration(q, qd, j.transpose() * wrench);
  } else {
    dy.segment<kJoints>(kJoints) = acceleration(q, qd, JointVec::Zero());
  }
  for (int i = 0; i < kJoints; ++i)
    if (locked_[i]) dy[i] = 0.0;
  return dy;
}

JointVec ArmCore::acceleration(const JointVec& q, const JointVec& qd, const JointVec& external) const {
  JointVec tau;
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = model_.joints[i];
    double motor = 0.0;
    if (powered_) {
      motor = config_.amplifier == Amplifier::kCurrent
                  ? applied_[i]
                  : torqueFromVoltage(j, j.resistance * currentForTorque(j, applied_[i]), qd[i]);
    }
    const double coulomb = j.coulomb * std::tanh(qd[i] / config_.stiction_velocity);
    tau[i] = motor - coulomb - j.viscous * qd[i];
  }
  tau += external;

  // M qdd = tau - bias over the joints that are free; locked joints do not accelerate.
  JointMat m = massMatrix(model_, q);
  JointVec rhs = tau - inverseDynamics(model_, q, qd, JointVec::Zero());
  for (int i = 0; i < kJoints; ++i) {
    if (!locked_[i]) continue;
    m.row(i).setZero();
    m.col(i).setZero();
    m(i, i) = 1.0;
    rhs[i] = 0.0;
  }
  return m.llt().solve(rhs);
}

const proto::TorqueCommand* ArmCore::renewed(int i, const proto::TorqueCommand* c) {
  const auto j = static_cast<std::size_t>(i);
  if (c == nullptr) {
    commanded_[j] = false;
    unrenewed_[j] = 0;
  } else {
    const bool same = commanded_[j] && c->header().period() == command_period_[j];
    unrenewed_[j] = same ? unrenewed_[j] + 1 : 0;
    commanded_[j] = true;
    command_period_[j] = c->header().period();
  }
  const bool stale = unrenewed_[j] >= config_.command_timeout_periods;
  stale_mask_ = stale ? stale_mask_ | (1u << i) : stale_mask_ & ~(1u << i);
  return stale ? nullptr : c;
}

void ArmCore::step(const ArmInbox& in, ArmOutbox& out) noexcept {
  integrate(in.torques);
  sense(out.sensors);
}

void ArmCore::integrate(const std::array<const proto::TorqueCommand*, kJoints>& commands) {
  bool all_power = true;
  missing_mask_ = 0;
  for (int i = 0; i < kJoints; ++i) {
    const proto::TorqueCommand* c = renewed(i, commands[static_cast<std::size_t>(i)]);
    if (c == nullptr) missing_mask_ |= 1u << i;
    all_power = all_power && c != nullptr && c->power();
    command_[i] = c != nullptr && std::isfinite(c->torque()) ? c->torque() : 0.0;
  }
  powered_ = all_power;
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = model_.joints[i];
    // The amplifier limits current; the joint's torque limit bounds what the drive may deliver.
    applied_[i] = powered_ ? saturateTorque(j, torqueFromCurrent(j, currentForTorque(j, command_[i]))) : 0.0;
    if (powered_) locked_[i] = false;
  }

  const JointVec q_start = q_;
  const double h = config_.dt / substeps_;
  State x;
  x << q_, qd_, body_.x, body_.v, body_.r.w(), body_.r.x(), body_.r.y(), body_.r.z(), body_.w;
  for (int s = 0; s < substeps_; ++s) {
    rk4Step(x, time() + s * h, h, [this](double t, const State& y) { return derivative(t, y); });
    if (wrist_) x.segment<4>(kBodyR).normalize();
    if (!powered_) {
      // The brakes, as dry friction applied after the smooth dynamics: each takes up to
      // B h / M_ii of its joint's speed per sub-step, and a joint it stops is held fast. (A brake
      // torque inside RK4 would switch sign between the stages and stall the integration.)
      const JointMat m = massMatrix(model_, x.head<kJoints>());
      for (int i = 0; i < kJoints; ++i) {
        if (locked_[i]) continue;
        const double v = x[kJoints + i];
        const double taken = config_.brake_torque_factor * model_.joints[i].tau_max * h / m(i, i);
        if (std::abs(v) <= std::max(taken, config_.brake_lock_velocity)) {
          locked_[i] = true;
          x[kJoints + i] = 0.0;
        } else {
          x[kJoints + i] = v - (v > 0.0 ? taken : -taken);
        }
      }
    }
  }
  q_ = x.head<kJoints>();
  qd_ = x.segment<kJoints>(kJoints);
  if (wrist_) body_ = bodyOf(x);

  // Index pulses: once per joint revolution, where the angle passes the model's index angle.
  for (int i = 0; i < kJoints; ++i) {
    const double index = model_.joints[i].index_angle;
    const double before = std::floor((q_start[i] - index) / kTwoPi);
    const double after = std::floor((q_[i] - index) / kTwoPi);
    index_fired_[i] = before != after;
    if (index_fired_[i]) index_count_[i] = encoderCount(i, index + std::max(before, after) * kTwoPi);
  }
  ++period_;
  if (!config_.scene.surfaces.empty() || ft_ || wrist_) {
    LinkFrames frames;
    linkFrames(model_, q_, frames);
    Vec6 at_flange = Vec6::Zero();
    const Vec6 twist = jacobianBase(frames) * qd_;
    if (wrist_) {
      wrist_load_ = rfms::wristLoad(config_.scene.wrist, config_.scene.tool, frames[kJoints], twist, body_);
      wrist_->sample(wrist_load_);
      Vec3 lever;
      if (!config_.scene.surfaces.empty()) contact_ = bodyContact(body_, time(), lever);
    } else if (!config_.scene.surfaces.empty()) {
      at_flange = contactAtFlange(frames[kJoints], twist, time(), contact_);
    }
    if (ft_) ft_->sample(flangeWrench(frames[kJoints], twist, at_flange));
  }
}

}  // namespace rfms
