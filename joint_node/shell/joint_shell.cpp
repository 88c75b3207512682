#include "joint_node/shell/joint_shell.hpp"

#include <utility>

#include "runtime/node_shell.hpp"

namespace rfms {

JointShell::JointShell(JointCore& core, int joint, ClockRules rules, std::chrono::milliseconds orphan_timeout,
                       MailPort& port)
    : core_(core),
      jmail_box_(jmailBox(joint)),
      torque_box_(torqueBox(joint)),
      rules_(rules),
      silence_(orphan_timeout),
      port_(port) {}

JointShell::Ended JointShell::run(std::uint64_t answers) {
  for (std::uint64_t sent = 0; !stopRequested();) {
    if (silence_.gone()) {
      if (recorder_ != nullptr) recorder_->fault(last_period_, "silent for the orphan timeout", "supervisor");
      return Ended::kSupervisorGone;
    }
    // What completes a period is its S_MAIL (the sensors of the same period came before it); only
    // when the sensors are behind does this joint also wait for them, or for a newer S_MAIL.
    const BoxSet all = have_smail_ ? 0 : bit(Box::kSMail);
    const BoxSet any = bit(Box::kControl) | (have_smail_ ? bit(Box::kSMail) | bit(Box::kSensors) : 0);
    port_.wait(all, any, MailPort::Clock::now() + std::chrono::milliseconds(100));
    if (!fromSupervisor()) return Ended::kStopMail;
    if (port_.latest(Box::kSensors, *in_) && in_->mail().has_sensors()) std::swap(sensors_, in_), have_sensors_ = true;
    if (!have_smail_ || !have_sensors_) continue;
    const std::uint64_t k = smail_->mail().smail().header().period();
    const std::uint64_t p = sensors_->mail().sensors().header().period();
    if (!rules_.isInput(p, k)) {
      // Lockstep: sensors of a later period mean the arm went on without this S_MAIL's answer.
      if (p > k) have_smail_ = false;
      continue;
    }
    answer();
    if (answers > 0 && ++sent == answers) return Ended::kAnswers;
  }
  return Ended::kSignal;
}

// The supervisor's mail since the last look: a stop ends the run; its S_MAILs are taken one by
// one, in order, whatever the clock (runtime/clock_rules.hpp).
bool JointShell::fromSupervisor() {
  while (port_.next(Box::kControl, *in_)) {
    silence_.heard();
    takeFaultNotice(recorder_, in_->mail());
    if (in_->mail().has_stop()) {
      stop_reason_ = in_->mail().stop().reason();
      return false;
    }
  }
  if (port_.next(Box::kSMail, *in_) && in_->mail().has_smail()) {
    silence_.heard();
    std::swap(smail_, in_);
    have_smail_ = true;
  }
  return true;
}

void JointShell::answer() {
  const proto::SMail& smail = smail_->mail().smail();
  core_.step({smail, sensors_->mail().sensors()}, out_);
  const std::uint64_t k = smail.header().period();
  publishMail(port_, jmail_box_, jmail_, &proto::Envelope::mutable_jmail, out_.jmail, k);
  publishMail(port_, torque_box_, torque_, &proto::Envelope::mutable_torque, out_.torque, k);
  if (recorder_ != nullptr) {
    recorder_->record(LogTopic::kSMail, k, smail);
    recorder_->record(LogTopic::kSensors, k, sensors_->mail().sensors(), sensors_->mail().sensors().header().period());
    recorder_->record(LogTopic::kJMail, k, out_.jmail);
    recorder_->record(LogTopic::kTorque, k, out_.torque);
  }
  last_period_ = k;
  have_smail_ = false;
  if (rules_.waitsForMail()) have_sensors_ = false;
}

}  // namespace rfms
