#include "joint_node/shell/joint_shell.hpp"

#include <utility>

#include "node/node_shell.hpp"
#include "node/transport.hpp"

namespace rfms {

JointShell::JointShell(JointCore& core, bool lockstep, std::chrono::milliseconds orphan_timeout,
                       zmq::socket_t& supervisor, zmq::socket_t& arm, zmq::socket_t& to_supervisor,
                       zmq::socket_t& to_arm)
    : core_(core),
      lockstep_(lockstep),
      silence_(orphan_timeout),
      supervisor_(supervisor),
      arm_(arm),
      to_supervisor_(to_supervisor),
      to_arm_(to_arm) {}

JointShell::Ended JointShell::run(std::uint64_t answers) {
  for (std::uint64_t sent = 0; !stopRequested();) {
    if (silence_.gone()) return Ended::kSupervisorGone;
    // Lockstep: the arm's sensors of period k come before the S_MAIL of k (the supervisor waits
    // for them), so they wait unread until the S_MAIL is in. Polling the arm's socket meanwhile
    // would wake this thread twice a period, and six joints waking while the supervisor computes
    // take the CPU from it.
    const int which = lockstep_ && !have_smail_ ? pollAny({&supervisor_}, 100) : pollAny({&supervisor_, &arm_}, 100);
    if (which == 0 && receive(supervisor_, *in_, 0)) {
      silence_.heard();
      if (in_->mail().has_stop()) {
        stop_reason_ = in_->mail().stop().reason();
        return Ended::kStopMail;
      }
      if (in_->mail().has_smail()) std::swap(smail_, in_), have_smail_ = true;
    } else if (which == 1 && receive(arm_, *in_, 0)) {
      if (in_->mail().has_sensors()) std::swap(sensors_, in_), have_sensors_ = true;
    }
    if (!have_smail_ || !have_sensors_) continue;
    const proto::SMail& smail = smail_->mail().smail();
    const proto::ArmSensors& sensors = sensors_->mail().sensors();
    // Lockstep: both mails of the same period; realtime: each S_MAIL with the latest sensors.
    if (lockstep_ && smail.header().period() != sensors.header().period()) continue;
    core_.step(smail, sensors, *jmail_.mutable_jmail(), *torque_.mutable_torque());
    send(to_supervisor_, kTopicControl, jmail_, buffer_);
    send(to_arm_, kTopicControl, torque_, buffer_);
    last_period_ = smail.header().period();
    have_smail_ = false;
    if (lockstep_) have_sensors_ = false;
    if (answers > 0 && ++sent == answers) return Ended::kAnswers;
  }
  return Ended::kSignal;
}

}  // namespace rfms
