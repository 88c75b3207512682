#include "math_node/shell/math_shell.hpp"

#include "node/node_shell.hpp"

namespace rfms {

MathShell::Ended MathShell::run(std::uint64_t answers) {
  for (std::uint64_t sent = 0; !stopRequested();) {
    if (silence_.gone()) return Ended::kSupervisorGone;
    port_.wait(bit(Box::kMMail), bit(Box::kControl), MailPort::Clock::now() + std::chrono::milliseconds(100));
    while (port_.next(Box::kControl, in_)) {
      silence_.heard();
      if (in_.mail().has_stop()) {
        stop_reason_ = in_.mail().stop().reason();
        return Ended::kStopMail;
      }
    }
    while (port_.next(Box::kMMail, in_)) {
      if (!in_.mail().has_mmail()) continue;
      silence_.heard();
      core_.step(in_.mail().mmail(), *out_.mutable_parcel());
      last_period_ = in_.mail().mmail().header().period();
      port_.publish(Box::kParcel, out_, last_period_);
      ++answered_;
      if (answers > 0 && ++sent == answers) return Ended::kAnswers;
    }
  }
  return Ended::kSignal;
}

}  // namespace rfms
