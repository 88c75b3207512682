// The supervisor's background in the cluster, on a thread of its own below the period's priority
// (RFMS: "a background process on the supervisor"): it takes the remote clients' requests and
// status requests (RemotePort), runs the task script, follows the period's events (the script's
// record, the desk's ended moves, the supervisor's log lines), brings the arm to rest on a stop
// signal and notices a run log that stopped writing. The period thread only hands it each
// period's events and wakes it.
//
// The clocks that wait for their mail (lockstep, paced) keep the two in step: the background
// prepares step k — events of k-1 followed, stop and log checked, the script's requests due,
// the remote requests waiting — and the period waits for that before stepping, so that a cluster
// and the in-process harness produce the same mail. Should the link fill meanwhile, the waiting
// period applies what is in it and lets the background go on. The realtime clock never waits: the
// background answers requests as they come, and a step applies whatever has been handed over
// before it begins.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "common/spsc_queue.hpp"
#include "runtime/cluster_config.hpp"
#include "supervisor/shell/event_file.hpp"
#include "supervisor/shell/log_tap.hpp"
#include "supervisor/shell/remote_port.hpp"
#include "supervisor/supervisor.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

class BackgroundLoop {
 public:
  BackgroundLoop(const ClusterSettings& s, Supervisor& supervisor, LogTap& tap, spdlog::logger& log);
  ~BackgroundLoop();
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;

  // Period thread, around a run of periods: the background prepares step `first` first, serving
  // `remote` and running `script` (either may be null); end() returns once it has followed the
  // run's last events and is idle. The thread is made by the first begin() and kept, so that a
  // run starts without allocating.
  void begin(RemotePort* remote, TaskScript* script, std::uint64_t first);
  void end();

  // Period thread. Lockstep and paced: waits until the background has prepared step k, applying
  // the link's commands under k (and logging their records) whenever the background asks for room.
  void prepared(std::uint64_t k);
  // After step k (whose tick was at `tick_ns` on the system clock; 0 without a wall clock): its
  // events, and the background woken. Real-time safe: a queue, an atomic and one write.
  void stepped(std::uint64_t k, const SupervisorOutbox& out, std::int64_t tick_ns) noexcept;
  // Realtime: period k began `n` ticks late (the ticks it slept through are skipped); the
  // background writes the log line. Real-time safe: two atomics.
  void lateTicks(std::uint64_t k, std::uint64_t n) noexcept {
    late_period_.store(k, std::memory_order_relaxed);
    late_ticks_.fetch_add(n, std::memory_order_release);
  }
  // Set by the background: the script has finished (the period ends before its next step), a stop
  // has been asked for.
  bool scriptDone() const { return script_done_.load(std::memory_order_acquire); }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  // The background thread failed (its reason logged): the run must end.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Where the events it follows are also written, one JSON line each (null: nowhere). Set while
  // the background is idle, before begin().
  void setEventFile(EventFile* file) { event_file_ = file; }

 private:
  void run();
  void serveUntilEnded();
  void prepare(std::uint64_t k);  // what is due before step k
  void followEvents();            // and the late ticks
  void handleStop();
  void watchLog();
  void send(const proto::TaskRequest& request);  // a request of the supervisor's own
  void waitForRoom();                            // the link is full: the period must take some
  void wakePeriod();
  // Realtime: the next step to begin, and when (system clock ns); else `steps` and 0 (a step that
  // waits for the background begins once it has answered).
  struct NextStep {
    std::uint64_t k = 0;
    std::int64_t ns = 0;
  };
  NextStep nextStep(std::uint64_t steps) const;

  const ClusterSettings& s_;
  Supervisor& supervisor_;
  SupervisorBackground& background_;
  LogTap& tap_;
  spdlog::logger& log_;
  RemotePort* remote_ = nullptr;  // set by begin(), while the background is idle
  TaskScript* script_ = nullptr;
  EventFile* event_file_ = nullptr;
  const bool in_step_;  // lockstep or paced: the period waits for the background

  SpscQueue<SupervisorEvent> events_{4096};
  std::atomic<std::uint64_t> events_lost_{0};
  std::atomic<std::uint64_t> late_ticks_{0}, late_period_{0};  // ticks skipped since the last line, and the last period
  std::atomic<std::int64_t> tick_ns_{0};                       // the last step's tick (system clock ns)
  std::atomic<std::uint64_t> steps_{0};                        // steps done (k + 1 after step k)
  std::atomic<std::uint64_t> prepared_{0};                     // k + 1 once step k is prepared
  std::atomic<bool> room_asked_{false};                        // the background waits for the period to take commands
  std::atomic<std::uint64_t> to_period_{0}, to_background_{0};  // bumped to wake either side
  std::atomic<bool> script_done_{false}, stopping_{false}, failed_{false};
  std::atomic<bool> active_{false}, idle_{true}, quit_{false};  // a run under way; the background idle
  int wake_fd_ = -1;         // eventfd: the period's wake-up of the background (polled beside the router)
  std::uint64_t now_k_ = 0;  // the background's: the step it prepares next

  // The stop, on the background: power-off sent, the deadline for coming to rest.
  bool power_off_sent_ = false;
  std::chrono::steady_clock::time_point stop_deadline_;
  bool log_stopped_ = false;
  std::function<void()> when_full_before_;  // the background's, given back at the end
  std::thread thread_;
};

}  // namespace rfms
