// The supervisor's shell in the cluster: the start handshake and the period loop around the
// SupervisorCore. Mail moves through ZeroMQ exactly as the in-process harness hands it over, so a
// lockstep cluster and the harness produce the same mailboxes.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/mail_codec.hpp"
#include "common/node_shell.hpp"
#include "supervisor/supervisor_core.hpp"
#include "supervisor/task_script.hpp"

namespace rfms {

// Announces the supervisor and waits until the arm, the math server and the six joints are ready
// and agree with its configuration; refuses those that disagree. False (with one clear log line)
// when the startup timeout passes or a stop signal comes.
bool waitForNodes(const ClusterSettings& s, zmq::socket_t& pub, zmq::socket_t& pull, zmq::socket_t& arm,
                  spdlog::logger& log);

class ClusterLoop {
 public:
  ClusterLoop(const ClusterSettings& s, SupervisorCore& core, zmq::socket_t& pub, zmq::socket_t& pull,
              zmq::socket_t& arm, spdlog::logger& log);

  // Runs periods until the script is done, or until a stop signal has brought the arm to rest and
  // switched the power off. Adds every mail used and sent to `digest` when given.
  void run(TaskScript* script, MailDigest* digest);
  // Tells every node to exit.
  void stopCluster(const std::string& reason);

  std::uint64_t periods() const { return k_; }
  const SupervisorCore& core() const { return core_; }
  // Mail that missed its period, by node (proto::Node).
  const std::array<std::uint64_t, 10>& misses() const { return misses_; }

 private:
  void gather(std::uint64_t k, SupervisorInbox& in);
  void logEvents(const SupervisorOutbox& out);

  const ClusterSettings& s_;
  SupervisorCore& core_;
  zmq::socket_t &pub_, &pull_, &arm_;
  spdlog::logger& log_;
  std::uint64_t k_ = 0;
  proto::Envelope sensors_, parcel_, in_, smail_, mmail_;
  std::array<proto::Envelope, kJoints> jmail_;
  std::array<std::uint64_t, 10> misses_{}, silent_{};  // all misses; consecutive misses
  std::string buffer_;
};

std::string scriptSummaryText(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model);
std::string scriptSummaryJson(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model);

}  // namespace rfms
