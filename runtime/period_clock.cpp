#include "runtime/period_clock.hpp"

#include <thread>

namespace rfms {

PeriodClock::PeriodClock(proto::ClockMode mode, double dt_s)
    : mode_(mode), period_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dt_s))) {}

PeriodClock::Begin PeriodClock::begin(std::uint64_t k) {
  const auto now = Clock::now();
  if (!started_) {
    t0_ = now;
    started_ = true;
  }
  if (!ticks()) return {now, 0};
  Begin b{t0_ + static_cast<Clock::rep>(k) * period_, 0};
  if (now > b.tick + period_) {
    const auto behind = (now - b.tick) / period_;
    t0_ += behind * period_;
    b.tick += behind * period_;
    b.skipped = static_cast<std::uint64_t>(behind);
  }
  if (mode_ == proto::CM_PACED) std::this_thread::sleep_until(b.tick);
  return b;
}

}  // namespace rfms
