#include "runtime/transport.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "runtime/private_directory.hpp"

namespace rfms {

namespace {

bool isTcp(const std::string& endpoint) { return endpoint.rfind("tcp://", 0) == 0; }

std::string_view bytesOf(const Key& k) { return {reinterpret_cast<const char*>(k.data()), k.size()}; }

// Who binds each endpoint of the cluster: a connecting node checks that it reached that node's key.
std::map<std::string, std::string> ownersOf(const proto::ClusterConfig& c) {
  std::map<std::string, std::string> owners;
  for (const std::string* e : {&c.supervisor_pub(), &c.supervisor_pull(), &c.supervisor_tasks()})
    if (!e->empty()) owners[*e] = "supervisor";
  owners[c.arm_pub()] = "arm";
  owners[c.arm_pull()] = "arm";
  return owners;
}

NodeKeys keysFor(const ClusterSettings& s, const std::string& me) {
  const proto::ClusterConfig& c = s.config;
  const bool tcp = isTcp(c.supervisor_pub()) || isTcp(c.supervisor_pull()) || isTcp(c.arm_pub()) ||
                   isTcp(c.arm_pull()) || isTcp(c.supervisor_tasks());
  if (!tcp) return {};
  try {
    return loadNodeKeys(c.node_keys(), me);
  } catch (const ConfigError& e) {
    throw ConfigError(s.source + ": node_keys (the tcp endpoints are encrypted with CURVE): " + e.what());
  }
}

}  // namespace

std::string ipcDirectoryProblem(const std::string& endpoint) {
  if (endpoint.rfind("ipc://", 0) != 0) return "";
  const std::filesystem::path dir = std::filesystem::path(endpoint.substr(6)).parent_path();
  const std::string why = privateDirectoryProblem(dir.empty() ? "." : dir.string());
  return why.empty() ? "" : "its directory " + why;
}

Transport::Transport() : context_(1) {}

Transport::Transport(const ClusterSettings& s, const std::string& me, spdlog::logger& log)
    : Transport(keysFor(s, me), ownersOf(s.config), log) {}

Transport::Transport(NodeKeys keys, std::map<std::string, std::string> owners, spdlog::logger& log)
    : context_(1), protect_(true), owners_(std::move(owners)) {
  if (!keys.me.empty()) guard_ = std::make_unique<CurveGuard>(context_, std::move(keys), log);
}

Transport::~Transport() {
  // Every socket a caller took is closed by now; shutting the context down ends the handler's wait.
  if (guard_) {
    context_.shutdown();
    guard_.reset();
  }
}

zmq::socket_t Transport::bound(zmq::socket_type type, const std::string& endpoint, const char* domain) {
  zmq::socket_t s(context_, type);
  s.set(zmq::sockopt::linger, 0);  // a node that exits does not wait for peers that are gone
  if (protect_ && isTcp(endpoint)) {
    if (!guard_) throw ConfigError(endpoint + ": a tcp endpoint needs node keys");
    s.set(zmq::sockopt::zap_domain, domain);
    s.set(zmq::sockopt::curve_server, true);
    s.set(zmq::sockopt::curve_secretkey, bytesOf(guard_->keys().mine.secret_key));
  } else if (protect_) {
    if (const std::string why = ipcDirectoryProblem(endpoint); !why.empty())
      throw ConfigError(endpoint + ": " + why + ": an ipc endpoint must be in a directory only this user can open");
  }
  try {
    s.bind(endpoint);
  } catch (const zmq::error_t& e) {
    throw ConfigError(endpoint + ": cannot bind it here (" + e.what() + ")");
  }
  return s;
}

zmq::socket_t Transport::connected(zmq::socket_type type, const std::string& endpoint, const std::string& topics) {
  zmq::socket_t s(context_, type);
  s.set(zmq::sockopt::linger, 0);
  for (char t : topics) s.set(zmq::sockopt::subscribe, std::string(1, t));
  std::string owner;
  if (protect_ && isTcp(endpoint)) {
    if (!guard_) throw ConfigError(endpoint + ": a tcp endpoint needs node keys");
    const auto it = owners_.find(endpoint);
    const Key* server = it == owners_.end() ? nullptr : guard_->keys().publicKeyOf(it->second);
    if (server == nullptr) throw ConfigError(endpoint + ": no node key for the node that binds it");
    owner = it->second;
    s.set(zmq::sockopt::curve_serverkey, bytesOf(*server));
    s.set(zmq::sockopt::curve_publickey, bytesOf(guard_->keys().mine.public_key));
    s.set(zmq::sockopt::curve_secretkey, bytesOf(guard_->keys().mine.secret_key));
    guard_->watch(s, endpoint, owner);
  }
  try {
    s.connect(endpoint);
  } catch (const zmq::error_t& e) {
    throw ConfigError(endpoint + ": cannot connect to it (" + e.what() + ")");
  }
  return s;
}

zmq::socket_t Transport::bindPublisher(const std::string& endpoint) {
  return bound(zmq::socket_type::pub, endpoint, kMailDomain);
}
zmq::socket_t Transport::bindPull(const std::string& endpoint) {
  return bound(zmq::socket_type::pull, endpoint, kMailDomain);
}
zmq::socket_t Transport::bindRouter(const std::string& endpoint) {
  return bound(zmq::socket_type::router, endpoint, kTaskDomain);
}
zmq::socket_t Transport::connectSubscriber(const std::string& endpoint, const std::string& topics) {
  return connected(zmq::socket_type::sub, endpoint, topics);
}
zmq::socket_t Transport::connectPush(const std::string& endpoint) {
  return connected(zmq::socket_type::push, endpoint);
}
zmq::socket_t Transport::connectDealer(const std::string& endpoint) {
  return connected(zmq::socket_type::dealer, endpoint);
}

std::string Transport::refusal() { return guard_ ? guard_->refusal() : ""; }

int pollAny(std::span<zmq::socket_t* const> sockets, int timeout_ms) {
  std::array<zmq::pollitem_t, 8> items{};
  std::size_t n = 0;
  for (zmq::socket_t* s : sockets)
    if (n < items.size()) items[n++] = {s->handle(), 0, ZMQ_POLLIN, 0};
  try {
    zmq::poll(items.data(), n, std::chrono::milliseconds(timeout_ms));
  } catch (const zmq::error_t& error) {
    if (error.num() == EINTR) return -1;  // a stop signal: the caller's loop looks at the flag
    throw;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (items[i].revents & ZMQ_POLLIN) return static_cast<int>(i);
  return -1;
}

}  // namespace rfms
