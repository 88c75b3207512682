// The supervisor's shell in the cluster: the start handshake and the period loop around the
// SupervisorCore. Mail moves through ZeroMQ exactly as the in-process harness hands it over, so a
// lockstep cluster and the harness produce the same mailboxes.
#pragma once

#include <array>
#include <cstdint>
#include <chrono>
#include <string>
#include <vector>

#include "common/mail_codec.hpp"
#include "node/node_shell.hpp"
#include "runlog/run_logger.hpp"
#include "supervisor/event_log.hpp"
#include "supervisor/remote_desk.hpp"
#include "supervisor/supervisor_core.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

using Clock_time_point = std::chrono::steady_clock::time_point;

class ClusterLoop {
 public:
  ClusterLoop(const ClusterSettings& s, SupervisorCore& core, zmq::socket_t& pub, zmq::socket_t& pull,
              zmq::socket_t& arm, spdlog::logger& log);

  // Runs periods until the script is done, or until a stop signal has brought the arm to rest and
  // switched the power off. Adds every mail used and sent to `digest` when given.
  void run(TaskScript* script, MailDigest* digest);
  // Tells every node to exit.
  void stopCluster(const std::string& reason);
  // Where statusText() goes every second ("" for nowhere).
  void setStatusFile(const std::string& path) { status_path_ = path; }
  // Realtime without a task: stop after this many periods (0: run until a stop signal).
  void setPeriodLimit(std::uint64_t periods) { period_limit_ = periods; }
  // Record every period's mail, events and remote requests into this run log.
  void setLog(RunLogger* log) { log_file_ = log; }
  // Serve remote clients (rfms-bridge) on this ROUTER socket through `desk`, every period.
  void setRemoteTasks(zmq::socket_t* router, RemoteDesk* desk) {
    tasks_ = router;
    desk_ = desk;
  }

  std::uint64_t periods() const { return k_; }
  const SupervisorCore& core() const { return core_; }
  // Mail that missed its period, by node (proto::Node).
  const std::array<std::uint64_t, 10>& misses() const { return misses_; }

  // Realtime: how long after the period's tick each node's answer arrived (ms), and how late
  // the supervisor itself sent its mail; the figures `status` and the benchmark report.
  struct Lateness {
    double p50 = 0, p99 = 0, p999 = 0, max = 0;
    std::size_t samples = 0;
  };
  Lateness lateness(proto::Node node) const;
  double bytesPerPeriod() const { return k_ > 0 ? static_cast<double>(bytes_) / static_cast<double>(k_) : 0.0; }
  // One line a node: periods, misses, lateness; written to <run>/status.txt every second.
  std::string statusText() const;
  std::string statsJson() const;

 private:
  void gather(std::uint64_t k, SupervisorInbox& in);
  void gatherRealtime(std::uint64_t k, Clock_time_point deadline, Clock_time_point previous_tick, SupervisorInbox& in);
  void record(proto::Node node, double ms);
  void writeStatus() const;
  void logEvents(const SupervisorOutbox& out);
  void serveRemote();
  void logRequest(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only);
  void logApplied(proto::AppliedTorques& a);

  const ClusterSettings& s_;
  SupervisorCore& core_;
  zmq::socket_t &pub_, &pull_, &arm_;
  spdlog::logger& log_;
  std::uint64_t k_ = 0;
  proto::Envelope sensors_, parcel_, in_, smail_, mmail_;
  std::array<proto::Envelope, kJoints> jmail_;
  std::array<std::uint64_t, 10> misses_{}, silent_{};  // all misses; consecutive misses
  std::array<std::vector<float>, 10> lateness_;          // ms, by node; NODE_SUPERVISOR: sending late
  std::uint64_t bytes_ = 0;                             // on the wire, counting each subscriber's copy
  std::string status_path_;
  int arm_quiet_ = 0;  // realtime: windows since the arm's last sensor mail
  static constexpr std::uint64_t kBrakePeriods = 100;  // after power-off, before the nodes exit
  std::uint64_t powered_off_at_ = 0;
  std::uint64_t period_limit_ = 0;
  std::string buffer_;
  zmq::socket_t* tasks_ = nullptr;
  RemoteDesk* desk_ = nullptr;
  proto::Envelope remote_in_, remote_out_;
  RunLogger* log_file_ = nullptr;
  // Realtime: this period's answers' lateness by node (-1: none yet), for the run log.
  std::array<double, 10> period_late_{};
  std::array<std::uint64_t, 10> misses_before_{};
  proto::PeriodTiming timing_;
};

std::string scriptSummaryText(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model);
std::string scriptSummaryJson(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model);

}  // namespace rfms
