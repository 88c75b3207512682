#include "supervisor/shell/stop_sequence.hpp"

namespace rfms {

std::optional<proto::ControlCommand> StopSequence::next(bool asked, proto::RtState state, Clock::time_point now) {
  if (!stopping_) {
    if (!asked) return std::nullopt;
    stopping_ = true;
    deadline_ = now + kTimeout;
    return proto::CC_STOP;
  }
  if (power_off_sent_) return std::nullopt;
  const bool at_rest = state != proto::RT_SETP && state != proto::RT_STOP;
  if (!at_rest && now <= deadline_) return std::nullopt;
  power_off_sent_ = true;
  return proto::CC_POWER_OFF;
}

}  // namespace rfms
