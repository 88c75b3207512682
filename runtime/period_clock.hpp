// When each period of the supervisor begins, by clock mode (proto/cluster.proto's ClockMode).
// Lockstep: at once, when the previous period's mail is in. Paced: not before its tick, t0 + k dt.
// Realtime: the supervisor collects mail until the tick, then steps.
#pragma once

#include <chrono>
#include <cstdint>

#include "proto/cluster.pb.h"

namespace rfms {

class PeriodClock {
 public:
  using Clock = std::chrono::steady_clock;
  PeriodClock(proto::ClockMode mode, double dt_s);

  struct Begin {
    Clock::time_point tick;     // this period's tick (lockstep: now)
    std::uint64_t skipped = 0;  // ticks passed over because the process fell behind
  };
  // Period k begins; paced, this sleeps until its tick. When the process is more than a period
  // behind its schedule (the machine stalled it, or in paced mode anyone), the schedule moves on
  // from now instead of catching up in a burst, which would leave the nodes no time to answer
  // (realtime) or run the arm faster than life (paced). The first call starts the schedule.
  Begin begin(std::uint64_t k);

  Clock::duration period() const { return period_; }
  bool ticks() const { return mode_ != proto::CM_LOCKSTEP; }

 private:
  proto::ClockMode mode_;
  Clock::duration period_;
  Clock::time_point t0_;
  bool started_ = false;
};

}  // namespace rfms
