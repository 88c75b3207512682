// The supervisor's shell in the cluster, one period after another on the period's thread (the
// node loop, runtime/node_loop.hpp): the clock's tick (runtime/period_clock), the period's mail
// (MailCollector), the core's step, the watched signals sampled, the mail sent, the run log
// (LogTap) and the figures (ClusterStats, which another thread writes to the status file). Remote requests, the task
// script, the stop and the log's health are the background's (BackgroundLoop, its own thread). Mail moves through the
// node's mail port (shared memory or ZeroMQ) exactly as the in-process harness hands it over, so
// a lockstep cluster and the harness produce the same mailboxes. Nothing here allocates in steady
// state (tests/runtime/test_shell_allocation.cpp).
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <string>

#include "common/mail_codec.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_loop.hpp"
#include "runtime/period_clock.hpp"
#include "supervisor/shell/background_loop.hpp"
#include "supervisor/shell/cluster_stats.hpp"
#include "supervisor/shell/log_tap.hpp"
#include "supervisor/shell/mail_collector.hpp"
#include "supervisor/shell/remote_port.hpp"
#include "supervisor/supervisor.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

class ClusterLoop : private NodeLoop<SupervisorCore, ClusterLoop> {
 public:
  ClusterLoop(const ClusterSettings& s, Supervisor& supervisor, MailPort& port, ClusterStats& stats, LogTap& tap,
              spdlog::logger& log);

  // Runs periods until the script is done (or, without one, the period limit is reached), or
  // until a stop signal has brought the arm to rest and switched the power off. Adds every mail
  // used and sent to `digest` when given.
  void run(TaskScript* script, MailDigest* digest);
  // Tells every node to exit.
  void stopCluster(const std::string& reason);

  // Serve remote clients (rfms-bridge) through this port, every period.
  void setRemotePort(RemotePort* port) { remote_ = port; }
  // The run's events as JSON lines (RUN_DIR/events.jsonl), written by the background.
  void setEventFile(EventFile* file) { background_.setEventFile(file); }
  // Without a task: stop after this many periods (0: run until a stop signal).
  void setPeriodLimit(std::uint64_t periods) { period_limit_ = periods; }

  std::uint64_t periods() const { return k_; }
  double dt() const { return sampleSeconds(s_.config.controller()); }
  const SupervisorCore& core() const { return supervisor_.core(); }
  const Supervisor& supervisor() const { return supervisor_; }

 private:
  friend class NodeLoop<SupervisorCore, ClusterLoop>;
  // The period's hooks (runtime/node_loop.hpp). The supervisor is the clock: it never listens.
  Gathered gather();
  std::uint64_t period() const { return k_; }
  const SupervisorInbox& inbox() const { return in_; }
  SupervisorOutbox& outbox() { return out_; }
  void publish(const SupervisorInbox& in, std::uint64_t k);
  void record(const SupervisorInbox& in, std::uint64_t k);
  bool stepped(std::uint64_t k);
  void ended(LoopEnd) {}

  bool finished(bool stopping);
  // Sends S_MAIL and M_MAIL; realtime, stamps them and times the supervisor's own lateness.
  LogTap::Timing send(SupervisorOutbox& out, PeriodClock::Clock::time_point tick);
  // An emergency of this period: every node is told to write its last periods out.
  void noticeFaults(const SupervisorOutbox& out);

  const ClusterSettings& s_;
  Supervisor& supervisor_;
  ClusterStats& stats_;
  LogTap& tap_;
  spdlog::logger& log_;
  PeriodClock clock_;
  MailCollector collector_;
  BackgroundLoop background_;
  RemotePort* remote_ = nullptr;
  MailDigest* digest_ = nullptr;
  std::uint64_t k_ = 0, period_limit_ = 0;
  PeriodClock::Clock::time_point tick_{};              // this period's
  LogTap::Timing timing_;                              // this period's
  std::uint64_t powered_off_at_ = 0;                   // the period the power went off on a stop
  static constexpr std::uint64_t kBrakePeriods = 100;  // after power-off, before the nodes exit
  SupervisorInbox in_;
  SupervisorOutbox out_;  // kept across periods: its mail's fields keep their storage
  proto::Envelope smail_, mmail_, notice_;
};

// The task's summary as the cluster prints it: the shared lines (supervisor/task_summary.hpp) with
// the final error measured from the encoders, and the mail that missed its period by node.
std::string scriptSummaryText(const ScriptLog& l, const ClusterLoop& loop, const ClusterStats& stats,
                              const RobotModel& model);
std::string scriptSummaryJson(const ScriptLog& l, const ClusterLoop& loop, const ClusterStats& stats,
                              const RobotModel& model);

}  // namespace rfms
