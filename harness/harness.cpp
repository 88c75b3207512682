#include "harness/harness.hpp"

namespace rfms {

namespace {
const proto::ControllerSettings& checked(const proto::ControllerSettings& s) {
  checkControllerSettings(s);
  return s;
}
}  // namespace

Harness::Harness(const RobotModel& model, const proto::ControllerSettings& settings, const Scene& scene)
    : model_(withTool(model, scene.tool)),
      settings_(checked(settings)),
      supervisor_(model_, supervisorConfigFor(settings, scene)),
      math_(model_, mathConfigFor(model_, settings, scene.tool.frame)),
      arm_(model_, armConfigFor(model_, settings, scene)) {
  for (int i = 0; i < kJoints; ++i)
    joints_[static_cast<std::size_t>(i)] = std::make_unique<JointCore>(model_, jointConfigFor(model_, settings, i + 1));
}

void Harness::step() {
  // 1. The arm's sensors for period k, which its last step sensed (before the first, those of its
  // power-up). When the arm is silent the joints keep reading the last sensors that arrived (a
  // swap, not a copy: protobuf copies allocate).
  if (first_) arm_.sense(arm_out_.sensors);
  if (delivered(proto::NODE_ARM)) delivered_sensors_.Swap(&arm_out_.sensors);

  // 2. The supervisor, from the mail of period k-1 and the sensors of k.
  SupervisorInbox in;
  in.period = k_;
  if (delivered(proto::NODE_ARM)) in.arm = &delivered_sensors_;
  if (!first_) {
    for (int i = 0; i < kJoints; ++i)
      if (delivered(static_cast<proto::Node>(proto::NODE_JOINT1 + i)))
        in.joints[static_cast<std::size_t>(i)] = &joint_out_[static_cast<std::size_t>(i)].jmail;
    if (delivered(proto::NODE_MATH)) in.parcel = &math_out_.parcel;
  }
  supervisor_.step(in, outbox_);

  // 3. The math server: M_MAIL(k) in, PARCEL(k) out.
  if (delivered(proto::NODE_MATH)) math_.step({outbox_.mmail}, math_out_);

  // 4. The joints: S_MAIL(k) and their encoders in, J_MAIL(k) and torques out.
  ArmInbox commands;
  for (int i = 0; i < kJoints; ++i) {
    const auto n = static_cast<std::size_t>(i);
    if (!delivered(static_cast<proto::Node>(proto::NODE_JOINT1 + i))) continue;
    joints_[n]->step({outbox_.smail, delivered_sensors_}, joint_out_[n]);
    commands.torques[n] = &joint_out_[n].torque;
  }

  // 5. The arm integrates [k, k+1] with the torques it received, and senses period k+1.
  arm_.step(commands, arm_out_);

  if (on_period) {
    PeriodMail m;
    m.k = k_;
    m.sensors = &delivered_sensors_;
    m.smail = &outbox_.smail;
    m.mmail = &outbox_.mmail;
    m.parcel = &math_out_.parcel;
    for (int i = 0; i < kJoints; ++i) {
      m.jmail[static_cast<std::size_t>(i)] = &joint_out_[static_cast<std::size_t>(i)].jmail;
      m.torque[static_cast<std::size_t>(i)] = &joint_out_[static_cast<std::size_t>(i)].torque;
    }
    m.supervisor = &outbox_;
    on_period(m);
  }
  first_ = false;
  ++k_;
}

bool Harness::runUntil(const std::function<bool()>& done, std::uint64_t max_periods) {
  for (std::uint64_t n = 0; n < max_periods; ++n) {
    if (done()) return true;
    step();
  }
  return done();
}

}  // namespace rfms
