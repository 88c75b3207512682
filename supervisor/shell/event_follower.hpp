// The period's events on their way to whoever follows them: the period thread hands each
// period's events (moves started and ended, state changes, emergencies) and its late ticks over
// without waiting; the background thread follows them — the task script, the remote clients'
// desk, the events file — and writes the supervisor's log line of each. Should the background fall
// so far behind that the queue fills, the events that do not fit are counted and said, never
// waited for.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/spsc_queue.hpp"
#include "supervisor/shell/event_file.hpp"
#include "supervisor/shell/remote_port.hpp"
#include "supervisor/supervisor_core.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

class EventFollower {
 public:
  explicit EventFollower(spdlog::logger& log, std::size_t capacity = 4096) : log_(log), events_(capacity) {}

  // Period thread. Real-time safe: a queue and atomics.
  void take(const SupervisorOutbox& out) noexcept;
  // Realtime: period k began `n` ticks late (the ticks it slept through are skipped).
  void lateTicks(std::uint64_t k, std::uint64_t n) noexcept {
    late_period_.store(k, std::memory_order_relaxed);
    late_ticks_.fetch_add(n, std::memory_order_release);
  }

  // Background thread: every event handed over so far, to each follower given (any may be null)
  // and to the log; then one line for the late ticks and one for events lost, if any.
  void follow(TaskScript* script, RemotePort* remote, EventFile* file);

 private:
  void logLine(const SupervisorEvent& e);

  spdlog::logger& log_;
  SpscQueue<SupervisorEvent> events_;
  std::atomic<std::uint64_t> lost_{0};
  std::atomic<std::uint64_t> late_ticks_{0}, late_period_{0};  // ticks skipped since the last line, and the last period
};

}  // namespace rfms
