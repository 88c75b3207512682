#include "math_node/shell/math_shell.hpp"

namespace rfms {

// One M_MAIL at a time, in order: the wait returns at once while any is unread.
Gathered MathShell::gather() {
  port_.wait(bit(Box::kMMail), bit(Box::kControl), MailPort::Clock::now() + std::chrono::milliseconds(100));
  if (!listen(control_)) return Gathered::kEnded;
  while (port_.next(Box::kMMail, mmail_))
    if (mmail_.mail().has_mmail()) {
      heard();
      return Gathered::kReady;
    }
  return Gathered::kNotYet;
}

void MathShell::publish(const MathInbox&, std::uint64_t k) {
  publishMail(port_, Box::kParcel, parcel_, &proto::Envelope::mutable_parcel, out_.parcel, k);
}

void MathShell::record(const MathInbox& in, std::uint64_t k) {
  if (FaultRecorder* r = recorder(); r != nullptr) {
    r->record(LogTopic::kMMail, k, in.mmail);
    r->record(LogTopic::kParcel, k, out_.parcel);
  }
}

}  // namespace rfms
