#include "runtime/curve_guard.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <zmq_addon.hpp>

#include "common/thread_role.hpp"

namespace rfms {

namespace {

// libzmq asks here (ZeroMQ RFC 27, ZAP 1.0).
constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

std::string shortKey(const Key& k) { return toHex(k.data(), 4) + "..."; }

std::string frameText(const zmq::message_t& m) { return std::string(static_cast<const char*>(m.data()), m.size()); }

}  // namespace

std::string admittedAs(const NodeKeys& keys, const std::string& domain, const Key& key) {
  const std::string who = keys.nameOf(key);
  if (who.empty()) return "";
  // The bridge speaks to the task endpoint alone; the nodes' mail is not its business.
  if (domain == kTaskDomain) return who == "bridge" ? who : "";
  if (domain == kMailDomain) return who != "bridge" ? who : "";
  return "";
}

CurveGuard::CurveGuard(zmq::context_t& context, NodeKeys keys, spdlog::logger& log)
    : context_(context), keys_(std::move(keys)), log_(log) {
  zmq::socket_t zap(context_, zmq::socket_type::rep);
  zap.set(zmq::sockopt::linger, 0);
  zap.bind(kZapEndpoint);
  // The socket moves to the handler's thread here and is used there alone.
  thread_ = std::thread([this, z = std::move(zap)]() mutable { serve(std::move(z)); });
}

CurveGuard::~CurveGuard() {
  if (thread_.joinable()) thread_.join();
}

void CurveGuard::serve(zmq::socket_t zap) {
  belowThePeriod("rfms-curve-zap", 10);  // it answers connections, not periods
  try {
    while (answer(zap)) {
    }
  } catch (const zmq::error_t& e) {
    if (e.num() != ETERM) log_.error("the CURVE authenticator stopped: {}", e.what());
  }
}

bool CurveGuard::answer(zmq::socket_t& zap) {
  std::vector<zmq::message_t> request;
  try {
    if (!zmq::recv_multipart(zap, std::back_inserter(request))) return true;
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return true;
    if (e.num() == ETERM) return false;
    throw;
  }
  // version, request id, domain, address, routing id, mechanism, then the mechanism's credentials.
  std::string status = "400", text = "not a CURVE request", user;
  std::string domain, address;
  if (request.size() >= 7 && frameText(request[0]) == "1.0" && frameText(request[5]) == "CURVE" &&
      request[6].size() == 32) {
    domain = frameText(request[2]);
    address = frameText(request[3]);
    Key key;
    std::memcpy(key.data(), request[6].data(), key.size());
    user = admittedAs(keys_, domain, key);
    if (!user.empty()) {
      status = "200";
      text = "OK";
    } else {
      const std::string holder = keys_.nameOf(key);
      text = holder.empty() ? "not one of the cluster's node keys"
                            : "the key of " + holder + ", which may not connect here";
      ++refused_;
      std::uint64_t held_back = 0;
      const bool write = budget_.take(LogBudget::Clock::now(), held_back);
      if (held_back > 0) log_.warn("{} more refused connections not logged", held_back);
      if (write)
        log_.warn("refused a connection to the {} endpoints from {}: key {} is {}",
                  domain == kTaskDomain ? "task" : "mail", budget_.cut(address), shortKey(key), text);
    }
  }
  std::vector<zmq::message_t> reply;
  reply.emplace_back(std::string("1.0"));
  reply.emplace_back(request.size() >= 2 ? request[1].data() : nullptr, request.size() >= 2 ? request[1].size() : 0);
  reply.emplace_back(status);
  reply.emplace_back(text);
  reply.emplace_back(user);
  reply.emplace_back();  // no metadata
  zmq::send_multipart(zap, reply);
  return true;
}

void CurveGuard::watch(zmq::socket_t& socket, const std::string& endpoint, const std::string& owner) {
  const std::string address = "inproc://rfms-monitor-" + std::to_string(watches_.size());
  if (zmq_socket_monitor(socket.handle(), address.c_str(),
                         ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) != 0)
    throw zmq::error_t();
  zmq::socket_t monitor(context_, zmq::socket_type::pair);
  monitor.set(zmq::sockopt::linger, 0);
  monitor.connect(address);
  watches_.push_back({std::move(monitor), endpoint, owner});
}

std::string CurveGuard::refusal() {
  for (Watch& w : watches_) {
    zmq::message_t event, where;
    while (refusal_.empty() && w.monitor.recv(event, zmq::recv_flags::dontwait)) {
      if (event.more()) (void)w.monitor.recv(where, zmq::recv_flags::dontwait);
      if (event.size() < 6) continue;
      std::uint16_t id = 0;
      std::uint32_t value = 0;
      std::memcpy(&id, event.data(), 2);
      std::memcpy(&value, static_cast<const char*>(event.data()) + 2, 4);
      if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        refusal_ = w.owner + " at " + w.endpoint + " refused this node's key (" + keys_.me +
                   " in node_keys is not the key the " + w.owner + " admits for it: keys of another cluster?)";
      else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
        refusal_ = "the CURVE handshake with " + w.owner + " at " + w.endpoint + " failed (protocol error " +
                   std::to_string(value) + "): do both hold keys of one cluster?";
    }
  }
  return refusal_;
}

}  // namespace rfms
