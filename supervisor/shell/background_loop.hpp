// The supervisor's background in the cluster, on a thread of its own below the period's priority
// (RFMS: "a background process on the supervisor"): it takes the remote clients' requests and
// status requests (RemotePort) and runs the task script. It is made of four parts, one job each:
// this thread's lifetime and its serving loop (here); the hand-shake that keeps it in step with
// the period in lockstep and paced runs (StepHandshake); the period's events on their way to the
// script, the clients, the events file and the log (EventFollower); and the stop signal's
// sequence (StopSequence). The period thread only hands it each period's events and wakes it.
//
// The realtime clock never waits: the background answers requests as they come, and a step
// applies whatever has been handed over before it begins.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "runtime/cluster_config.hpp"
#include "supervisor/shell/event_file.hpp"
#include "supervisor/shell/event_follower.hpp"
#include "supervisor/shell/log_tap.hpp"
#include "supervisor/shell/remote_port.hpp"
#include "supervisor/shell/step_handshake.hpp"
#include "supervisor/shell/stop_sequence.hpp"
#include "supervisor/supervisor.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

class BackgroundLoop {
 public:
  BackgroundLoop(const ClusterSettings& s, SupervisorBackground& background, LogTap& tap, spdlog::logger& log);
  ~BackgroundLoop();
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;

  // Period thread, around a run of periods: the background prepares step `first` first, serving
  // `remote` and running `script` (either may be null); end() returns once it has followed the
  // run's last events and is idle. The thread is made by the first begin() and kept, so that a
  // run starts without allocating.
  void begin(RemotePort* remote, TaskScript* script, std::uint64_t first);
  void end();

  // Period thread. True once the background has prepared step k (at once in realtime); false
  // when it asks for room first: the period applies the link's commands under k (as the step
  // itself would first), calls roomMade(), and asks again (StepHandshake).
  bool prepared(std::uint64_t k) { return handshake_.prepared(k); }
  void roomMade() { handshake_.roomMade(); }
  // After step k (whose tick was at `tick_ns` on the system clock; 0 without a wall clock): its
  // events, and the background woken. Real-time safe: a queue, an atomic and one write.
  void stepped(std::uint64_t k, const SupervisorOutbox& out, std::int64_t tick_ns) noexcept;
  // Realtime: period k began `n` ticks late (the ticks it slept through are skipped); the
  // background writes the log line. Real-time safe: two atomics.
  void lateTicks(std::uint64_t k, std::uint64_t n) noexcept { events_.lateTicks(k, n); }
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
  void handleStop();
  void watchLog();
  void send(const proto::TaskRequest& request);  // a request of the supervisor's own
  void waitForRoom();                            // the link is full: the period must take some
  void setIdle(bool idle);
  // Realtime: the next step to begin, and when (system clock ns); else `steps` and 0 (a step that
  // waits for the background begins once it has answered).
  struct NextStep {
    std::uint64_t k = 0;
    std::int64_t ns = 0;
  };
  NextStep nextStep(std::uint64_t steps) const;

  const ClusterSettings& s_;
  SupervisorBackground& background_;
  LogTap& tap_;
  spdlog::logger& log_;
  RemotePort* remote_ = nullptr;  // set by begin(), while the background is idle
  TaskScript* script_ = nullptr;
  EventFile* event_file_ = nullptr;

  StepHandshake handshake_;
  EventFollower events_;
  StopSequence stop_;
  std::atomic<std::int64_t> tick_ns_{0};  // the last step's tick (system clock ns)
  std::atomic<bool> script_done_{false}, stopping_{false}, failed_{false};
  // The thread's lifetime: a run under way; the background idle; bumped by begin() and quit.
  std::atomic<bool> active_{false}, idle_{true}, quit_{false};
  std::atomic<std::uint64_t> runs_{0};
  std::uint64_t now_k_ = 0;  // the background's: the step it prepares next
  bool log_stopped_ = false;
  std::function<void()> when_full_before_;  // the background's, given back at the end
  std::thread thread_;
};

}  // namespace rfms
