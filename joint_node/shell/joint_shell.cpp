#include "joint_node/shell/joint_shell.hpp"

#include <utility>

namespace rfms {

JointShell::JointShell(JointCore& core, int joint, ClockRules rules, std::chrono::milliseconds orphan_timeout,
                       MailPort& port)
    : NodeLoop(core, port, orphan_timeout), jmail_box_(jmailBox(joint)), torque_box_(torqueBox(joint)), rules_(rules) {}

// What completes a period is its S_MAIL (the sensors of the same period came before it); only when
// the sensors are behind does this joint also wait for them, or for a newer S_MAIL.
Gathered JointShell::gather() {
  const BoxSet all = have_smail_ ? 0 : bit(Box::kSMail);
  const BoxSet any = bit(Box::kControl) | (have_smail_ ? bit(Box::kSMail) | bit(Box::kSensors) : 0);
  port_.wait(all, any, MailPort::Clock::now() + std::chrono::milliseconds(100));
  if (!fromSupervisor()) return Gathered::kEnded;
  if (port_.latest(Box::kSensors, *in_) && in_->mail().has_sensors()) std::swap(sensors_, in_), have_sensors_ = true;
  if (!have_smail_ || !have_sensors_) return Gathered::kNotYet;
  const std::uint64_t k = smail_->mail().smail().header().period();
  const std::uint64_t p = sensors_->mail().sensors().header().period();
  if (!rules_.isInput(p, k)) {
    // Lockstep: sensors of a later period mean the arm went on without this S_MAIL's answer.
    if (p > k) have_smail_ = false;
    return Gathered::kNotYet;
  }
  return Gathered::kReady;
}

// The supervisor's mail since the last look: a stop ends the run; its S_MAILs are taken one by
// one, in order, whatever the clock (runtime/clock_rules.hpp).
bool JointShell::fromSupervisor() {
  if (!listen(*in_)) return false;
  if (port_.next(Box::kSMail, *in_) && in_->mail().has_smail()) {
    heard();
    std::swap(smail_, in_);
    have_smail_ = true;
  }
  return true;
}

void JointShell::publish(const JointInbox&, std::uint64_t k) {
  publishMail(port_, jmail_box_, jmail_, &proto::Envelope::mutable_jmail, out_.jmail, k);
  publishMail(port_, torque_box_, torque_, &proto::Envelope::mutable_torque, out_.torque, k);
}

void JointShell::record(const JointInbox& in, std::uint64_t k) {
  FaultRecorder* r = recorder();
  if (r == nullptr) return;
  r->record(LogTopic::kSMail, k, in.smail);
  r->record(LogTopic::kSensors, k, in.sensors, in.sensors.header().period());
  r->record(LogTopic::kJMail, k, out_.jmail);
  r->record(LogTopic::kTorque, k, out_.torque);
}

bool JointShell::stepped(std::uint64_t) {
  have_smail_ = false;
  if (rules_.waitsForMail()) have_sensors_ = false;
  return true;
}

}  // namespace rfms
