// The supervisor's task endpoint in the cluster: requests and status requests from rfms-bridge on
// a ROUTER socket, answered through the remote desk by the supervisor's background
// (background_loop.hpp), whose commands the next step applies. A bounded number at a time, so that
// a flood cannot hold the background's other work up: the bridge's queue holds the rest, and its
// clients wait for their answers. Its log lines go through the node's asynchronous logger
// (written on spdlog's thread) within a budget.
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <map>
#include <string>
#include <zmq.hpp>

#include "proto/cluster.pb.h"
#include "runtime/log_budget.hpp"
#include "supervisor/remote_desk.hpp"
#include "supervisor/shell/log_tap.hpp"

namespace rfms {

class RemotePort {
 public:
  RemotePort(zmq::socket_t& router, RemoteDesk& desk, LogTap& tap, spdlog::logger& log)
      : router_(router), desk_(desk), tap_(tap), log_(log) {}

  // Answers what has arrived, for step k; `step_ns` (system clock) is when the step that will
  // apply it begins, 0: now (a step that waits for this answer).
  void serve(std::uint64_t k, SupervisorBackground& supervisor, std::int64_t step_ns = 0);
  // After step k, on the period's thread: the watched signals' samples. Real-time safe.
  void sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) { desk_.sample(k, in, out); }
  // An event of the period's, on the background's thread: the desk learns which moves ended.
  void note(const SupervisorEvent& e) { desk_.note(e); }
  zmq::socket_t& socket() { return router_; }

  static constexpr int kPerPeriod = 64;

 private:
  zmq::socket_t& router_;
  RemoteDesk& desk_;
  LogTap& tap_;
  spdlog::logger& log_;
  proto::Envelope in_, out_;
  std::string buffer_;
  // Refusals are the clients' doing, so each client key has a budget of its own (five lines a
  // second, 120 an hour, each cut short): one key's flood silences only its own lines. At most
  // kKeysLogged keys are followed; the rest share one budget. What a budget held back is said
  // within a second, by the next serve(), whether or not that key sends again.
  LogBudget& refusalsOf(std::uint64_t key_id);
  void sayHeldBack();
  static constexpr std::size_t kKeysLogged = 64;
  std::map<std::uint64_t, LogBudget> refusals_;
  LogBudget others_{5, 200, 120};
  LogBudget::Clock::time_point said_{};
};

}  // namespace rfms
