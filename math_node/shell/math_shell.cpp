#include "math_node/shell/math_shell.hpp"

#include "runtime/node_shell.hpp"

namespace rfms {

MathShell::Ended MathShell::run(std::uint64_t answers) {
  for (std::uint64_t sent = 0; !stopRequested();) {
    if (silence_.gone()) {
      if (recorder_ != nullptr) recorder_->fault(last_period_, "silent for the orphan timeout", "supervisor");
      return Ended::kSupervisorGone;
    }
    port_.wait(bit(Box::kMMail), bit(Box::kControl), MailPort::Clock::now() + std::chrono::milliseconds(100));
    while (port_.next(Box::kControl, in_)) {
      silence_.heard();
      takeFaultNotice(recorder_, in_.mail());
      if (in_.mail().has_stop()) {
        stop_reason_ = in_.mail().stop().reason();
        return Ended::kStopMail;
      }
    }
    while (port_.next(Box::kMMail, in_)) {
      if (!in_.mail().has_mmail()) continue;
      silence_.heard();
      core_.step({in_.mail().mmail()}, out_);
      last_period_ = in_.mail().mmail().header().period();
      publishMail(port_, Box::kParcel, parcel_, &proto::Envelope::mutable_parcel, out_.parcel, last_period_);
      if (recorder_ != nullptr) {
        recorder_->record(LogTopic::kMMail, last_period_, in_.mail().mmail());
        recorder_->record(LogTopic::kParcel, last_period_, out_.parcel);
      }
      ++answered_;
      if (answers > 0 && ++sent == answers) return Ended::kAnswers;
    }
  }
  return Ended::kSignal;
}

}  // namespace rfms
