// The CURVE side of a node's transport (runtime/transport.hpp). Two jobs:
//  - the ZAP handler: libzmq asks it, on a thread of this guard's own, whether a peer's key may
//    connect to a tcp endpoint this node binds. The mail endpoints admit the nine nodes' keys, the
//    task endpoint the bridge's alone; a refusal is logged (a bounded number of lines a second) with
//    the peer's address and key, and named when the key is another node's.
//  - monitors on the tcp connections this node makes, so that a peer's refusal of this node's key
//    becomes a clear error at start-up rather than a silence.
// Connection-time work only: nothing here runs in the period loop.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#include <zmq.hpp>

#include "runtime/log_budget.hpp"
#include "runtime/node_keys.hpp"

namespace rfms {

// The ZAP domains of the endpoints a node binds.
inline constexpr const char* kMailDomain = "rfms-mail";
inline constexpr const char* kTaskDomain = "rfms-tasks";

// Whether `key` may connect in `domain`, and as whom ("" when not): the decision alone.
std::string admittedAs(const NodeKeys& keys, const std::string& domain, const Key& key);

class CurveGuard {
 public:
  // Binds the ZAP handler in `context`, before any endpoint of it is bound.
  CurveGuard(zmq::context_t& context, NodeKeys keys, spdlog::logger& log);
  // The owner of `context` shuts it down first, which ends the handler's wait.
  ~CurveGuard();
  CurveGuard(const CurveGuard&) = delete;
  CurveGuard& operator=(const CurveGuard&) = delete;

  const NodeKeys& keys() const { return keys_; }
  // Watches a connection to `endpoint` (bound by node `owner`) for a refusal of this node's key.
  void watch(zmq::socket_t& socket, const std::string& endpoint, const std::string& owner);
  // Why a peer refused this node's key, or "" while none has. Reads the monitors; never blocks.
  std::string refusal();
  // Connections refused by the handler so far.
  long refused() const { return refused_.load(); }

 private:
  struct Watch {
    zmq::socket_t monitor;
    std::string endpoint, owner;
  };
  void serve(zmq::socket_t zap);
  bool answer(zmq::socket_t& zap);

  zmq::context_t& context_;
  NodeKeys keys_;
  spdlog::logger& log_;
  std::vector<Watch> watches_;
  std::string refusal_;
  std::atomic<long> refused_{0};
  LogBudget budget_{10};  // used by the handler's thread alone
  std::thread thread_;
};

}  // namespace rfms
