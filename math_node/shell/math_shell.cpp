#include "math_node/shell/math_shell.hpp"

#include "node/node_shell.hpp"
#include "node/transport.hpp"

namespace rfms {

MathShell::Ended MathShell::run(std::uint64_t answers) {
  for (std::uint64_t sent = 0; !stopRequested();) {
    if (silence_.gone()) return Ended::kSupervisorGone;
    if (!receive(supervisor_, in_, 100)) continue;
    silence_.heard();
    if (in_.mail().has_stop()) {
      stop_reason_ = in_.mail().stop().reason();
      return Ended::kStopMail;
    }
    if (!in_.mail().has_mmail()) continue;
    core_.step(in_.mail().mmail(), *out_.mutable_parcel());
    send(to_supervisor_, kTopicControl, out_, buffer_);
    ++answered_;
    last_period_ = in_.mail().mmail().header().period();
    if (answers > 0 && ++sent == answers) return Ended::kAnswers;
  }
  return Ended::kSignal;
}

}  // namespace rfms
