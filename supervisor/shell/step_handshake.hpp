// The period thread and the supervisor's background thread kept in step (lockstep and paced
// clocks): before step k the background prepares it — the events of k-1 followed, the stop and
// the log checked, the script's requests due, the remote requests waiting — and the period waits
// for that, so that a cluster and the in-process harness produce the same mail. Should the link
// between them fill meanwhile, the background asks for room: the waiting period applies the
// commands in the link (as the step itself would first) and lets the background go on. The
// realtime clock never waits: prepared() answers at once.
//
// The period's side is real-time safe: atomics, a futex wait and one eventfd write. The
// background sleeps in poll() on wakeFd() beside its other sockets, and is woken by it after each
// step and by interrupt().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace rfms {

class StepHandshake {
 public:
  using Clock = std::chrono::steady_clock;
  // `in_step`: the clock waits for mail (lockstep, paced). Throws SystemError when the kernel
  // gives no eventfd.
  explicit StepHandshake(bool in_step);
  ~StepHandshake();
  StepHandshake(const StepHandshake&) = delete;
  StepHandshake& operator=(const StepHandshake&) = delete;
  bool inStep() const { return in_step_; }

  // Before a run whose first step is `first`, with both sides idle.
  void restart(std::uint64_t first);

  // Period thread. True once step k is prepared (at once in realtime); false when the background
  // asks for room first: apply the link's commands under k, call roomMade(), and ask again.
  bool prepared(std::uint64_t k);
  void roomMade();
  // Step k is done: the background is woken to prepare the next.
  void stepped(std::uint64_t k) noexcept;

  // Background thread. Steps done so far (k + 1 after step k).
  std::uint64_t stepsDone() const { return steps_.load(std::memory_order_acquire); }
  // Every step before `next` is prepared: the period may go on to it.
  void preparedUpTo(std::uint64_t next);
  // The background cannot prepare any more: the period waits for nothing from now on.
  void preparedAll() { preparedUpTo(~std::uint64_t{0}); }
  // Asks the waiting period to take the link's commands; true once it has, false at `deadline`
  // or when interrupt() came first (the run is ending).
  bool askForRoom(Clock::time_point deadline);
  // The file descriptor the background polls for the period's wake-ups; drainWake() after it fired.
  int wakeFd() const { return wake_fd_; }
  void drainWake();

  // Either thread: cuts a background's askForRoom() and poll() short.
  void interrupt();

 private:
  void wakePeriod();
  void wakeBackground();

  const bool in_step_;
  int wake_fd_ = -1;
  std::atomic<std::uint64_t> steps_{0};     // steps done (k + 1 after step k)
  std::atomic<std::uint64_t> prepared_{0};  // k + 1 once step k is prepared
  std::atomic<bool> room_asked_{false};     // the background waits for the period to take commands
  std::atomic<bool> interrupted_{false};
  std::atomic<std::uint64_t> to_period_{0};  // bumped to wake the period
  std::atomic<std::uint32_t> to_background_{
      0};  // bumped to wake the background (a futex word: it waits with a deadline)
};

}  // namespace rfms
