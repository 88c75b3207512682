// A node's ZeroMQ sockets, protected as the cluster's configuration asks: the mail that travels
// between hosts (runtime/zmq_links.hpp) and the bridge's task requests. "Would block" is an empty
// result; real failures are exceptions (cppzmq's).
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <zmq.hpp>

#include "proto/cluster.pb.h"
#include "runtime/cluster_config.hpp"
#include "runtime/curve_guard.hpp"
#include "runtime/node_keys.hpp"

namespace rfms {

// A node's sockets, all from one ZeroMQ context. A node of a cluster protects what it binds and
// connects (docs/security.md): every tcp endpoint is encrypted and authenticated with CURVE, the
// binder admitting only the cluster's node keys (runtime/curve_guard.hpp), and an ipc endpoint is bound
// only in a directory no other user can open. The plain constructor protects nothing: in-process
// endpoints for tests.
class Transport {
 public:
  Transport();
  // Node `me` of cluster `s`: its keys come from s.config.node_keys() when any endpoint is tcp.
  Transport(const ClusterSettings& s, const std::string& me, spdlog::logger& log);
  // With `keys` given (keys.me empty: no tcp endpoint) and `owners`, the node that binds each tcp
  // endpoint this one connects to.
  Transport(NodeKeys keys, std::map<std::string, std::string> owners, spdlog::logger& log);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  zmq::socket_t bindPublisher(const std::string& endpoint);
  zmq::socket_t bindPull(const std::string& endpoint);
  // Subscribed to the one-byte topics in `topics`.
  zmq::socket_t connectSubscriber(const std::string& endpoint, const std::string& topics);
  zmq::socket_t connectPush(const std::string& endpoint);
  // Task requests and status between rfms-bridge (dealer) and the supervisor (router).
  zmq::socket_t bindRouter(const std::string& endpoint);
  zmq::socket_t connectDealer(const std::string& endpoint);

  // Why a peer refused this node's key, or "" (none has, or nothing is encrypted). Never blocks.
  std::string refusal();

 private:
  zmq::socket_t bound(zmq::socket_type type, const std::string& endpoint, const char* domain);
  zmq::socket_t connected(zmq::socket_type type, const std::string& endpoint, const std::string& topics = "");

  zmq::context_t context_;
  bool protect_ = false;  // a cluster node's transport: ipc directories are checked
  std::map<std::string, std::string> owners_;
  std::unique_ptr<CurveGuard> guard_;  // with keys: the authenticator and the monitors
};

// Why the directory of an ipc endpoint may be opened by another user, or "" when it may not.
std::string ipcDirectoryProblem(const std::string& endpoint);

// Which of the sockets has a message, waiting up to timeout_ms; -1 when none.
int pollAny(std::span<zmq::socket_t* const> sockets, int timeout_ms);
inline int pollAny(std::initializer_list<zmq::socket_t*> sockets, int timeout_ms) {
  return pollAny(std::span<zmq::socket_t* const>(sockets.begin(), sockets.size()), timeout_ms);
}

}  // namespace rfms
