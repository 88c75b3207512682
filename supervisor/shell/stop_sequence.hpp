// How the supervisor's background brings the arm to rest on a stop signal (SIGINT, SIGTERM)
// before the cluster exits: the motion is stopped first (CC_STOP: the arm decelerates on its
// path), and the power is switched off (CC_POWER_OFF: the brakes go on) once the arm is at rest —
// or after a timeout whatever it is doing, so that a stop that cannot finish never holds the
// power on. A pure decision: the caller says what it sees and sends what this answers.
#pragma once

#include <chrono>
#include <optional>

#include "proto/mailboxes.pb.h"
#include "proto/task.pb.h"

namespace rfms {

class StopSequence {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kTimeout = std::chrono::seconds(5);

  // What to send now, given whether a stop has been asked for, the arm's state and the time:
  // CC_STOP once, when the stop is first asked for; CC_POWER_OFF once, when the arm is neither
  // moving nor stopping (RT_SETP, RT_STOP) or kTimeout after the stop; otherwise nothing.
  std::optional<proto::ControlCommand> next(bool asked, proto::RtState state, Clock::time_point now);
  bool stopping() const { return stopping_; }

 private:
  bool stopping_ = false, power_off_sent_ = false;
  Clock::time_point deadline_{};
};

}  // namespace rfms
