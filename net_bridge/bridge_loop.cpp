#include "net_bridge/bridge_loop.hpp"

#include <cerrno>
#include <csignal>

#include "common/error.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

namespace {

volatile std::sig_atomic_t g_reload_keys = 0;

void add(FaultCounts& to, const FaultCounts& c) {
  to.datagrams += c.datagrams, to.lost += c.lost, to.duplicated += c.duplicated;
  to.reordered += c.reordered, to.corrupted += c.corrupted;
}

}  // namespace

std::string countersText(const proto::LinkCounters& c) {
  return "frames_in " + std::to_string(c.frames_in()) + ", frames_out " + std::to_string(c.frames_out()) +
         ", retransmissions " + std::to_string(c.retransmissions()) + ", duplicates " + std::to_string(c.duplicates()) +
         ", checksum_failures " + std::to_string(c.checksum_failures()) + ", malformed " +
         std::to_string(c.malformed()) + ", queue_depth " + std::to_string(c.queue_depth()) + ", withheld " +
         std::to_string(c.withheld()) + ", clients " + std::to_string(c.clients()) + ", handshakes " +
         std::to_string(c.handshakes()) + ", refused " + std::to_string(c.refused()) + ", forged " +
         std::to_string(c.forged()) + ", unknown_sessions " + std::to_string(c.unknown_sessions()) + ", evicted " +
         std::to_string(c.evicted()) + ", refusals_unsent " + std::to_string(c.refusals_unsent()) +
         ", resends_unsent " + std::to_string(c.resends_unsent()) + ", retries_sent " +
         std::to_string(c.retries_sent()) + (c.insecure() ? ", INSECURE (any key admitted)" : "");
}

BridgeLoop::BridgeLoop(UdpSocket& udp, zmq::socket_t& supervisor, BridgeCore& core, Transport& transport,
                       std::string keys_file, const BridgeFaults& faults, spdlog::logger& log)
    : udp_(udp),
      supervisor_(supervisor),
      core_(core),
      transport_(transport),
      keys_file_(std::move(keys_file)),
      faults_(faults),
      log_(log),
      snapshot_(countersText(core.counters())),
      last_snapshot_(std::chrono::steady_clock::now()) {
  // SIGHUP: the keys file again, as daemons reload their configuration.
  std::signal(SIGHUP, [](int) { g_reload_keys = 1; });
}

void BridgeLoop::run() {
  while (!stopRequested()) {
    if (g_reload_keys != 0) reloadKeys();
    zmq::pollitem_t items[] = {{static_cast<void*>(supervisor_), 0, ZMQ_POLLIN, 0},
                               {nullptr, udp_.fd(), ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 2, std::chrono::milliseconds(5));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;
      continue;  // a signal: the loop condition sees a stop request
    }
    serveDatagrams();
    serveSupervisor();
    for (auto& [key, injector] : injectors_)
      if (auto held = injector.release())
        if (auto p = peers_.find(key); p != peers_.end()) udp_.sendTo(p->second, *held);
    if (const auto now = std::chrono::steady_clock::now(); now - last_snapshot_ > std::chrono::seconds(1)) {
      last_snapshot_ = now;
      everySecond();
    }
  }
  std::string text = countersText(core_.counters());
  std::lock_guard lock(snapshot_mutex_);
  snapshot_.swap(text);
}

std::string BridgeLoop::snapshot() {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

FaultCounts BridgeLoop::injected() const {
  FaultCounts all = retired_;
  for (const auto& [key, injector] : injectors_) add(all, injector.counts());
  return all;
}

void BridgeLoop::serveDatagrams() {
  while (udp_.receive(datagram_, from_, 0)) {
    const std::string key = from_.key();
    const auto arrived = std::chrono::system_clock::now().time_since_epoch();
    // Only senders of authentic frames are remembered; a handshake's answer goes straight back to
    // whoever asked.
    if (core_.receive(key, datagram_, out_, std::chrono::duration_cast<std::chrono::nanoseconds>(arrived).count()))
      peers_[key] = from_;
    for (const Outgoing& o : out_)
      if (o.peer == key) send(key, from_, o.datagram);
    std::erase_if(out_, [&](const Outgoing& o) { return o.peer == key; });
    flush();
  }
}

void BridgeLoop::serveSupervisor() {
  zmq::message_t message;
  while (supervisor_.recv(message, zmq::recv_flags::dontwait)) {
    if (!envelope_.ParseFromArray(message.data(), static_cast<int>(message.size()))) continue;
    if (envelope_.has_task_reply())
      core_.answer(envelope_.task_reply(), out_);
    else if (envelope_.has_status())
      core_.answer(envelope_.status(), out_);
  }
  while (core_.nextForSupervisor(envelope_)) {
    envelope_.SerializeToString(&buffer_);
    supervisor_.send(zmq::buffer(buffer_), zmq::send_flags::dontwait);
  }
  flush();
}

void BridgeLoop::everySecond() {
  // A supervisor that refuses this bridge's node key will never answer: say so and stop.
  if (const std::string why = transport_.refusal(); !why.empty()) throw ConfigError(why);
  // Addresses of closed sessions go: the table is as large as the sessions at most.
  std::erase_if(peers_, [&](const auto& p) { return !core_.knowsPeer(p.first); });
  std::erase_if(injectors_, [&](const auto& i) {
    if (peers_.count(i.first) != 0) return false;
    add(retired_, i.second.counts());
    return true;
  });
  std::string text = countersText(core_.counters());
  std::lock_guard lock(snapshot_mutex_);
  snapshot_.swap(text);
}

// A file that does not load, or that changes the bridge's own key, changes nothing and says why.
void BridgeLoop::reloadKeys() {
  g_reload_keys = 0;
  if (keys_file_.empty()) {
    log_.warn("SIGHUP: this bridge admits any key (--insecure): there are no keys to reload");
    return;
  }
  try {
    BridgeKeys fresh = loadBridgeKeys(keys_file_);
    const std::size_t admitted = fresh.clients.size();
    std::size_t revoked = 0;
    if (const std::string why = core_.replaceKeys(std::move(fresh), revoked); !why.empty())
      log_.error("SIGHUP: keys not reloaded from {}: {}; the keys loaded before stay", keys_file_, why);
    else
      log_.info("SIGHUP: keys reloaded from {}: {} client keys; {} sessions of keys no longer admitted closed",
                keys_file_, admitted, revoked);
  } catch (const Error& e) {
    log_.error("SIGHUP: keys not reloaded: {}; the keys loaded before stay", e.what());
  }
}

void BridgeLoop::send(const std::string& peer, const UdpPeer& to, const std::string& datagram) {
  if (!faults_.rates.any()) {
    udp_.sendTo(to, datagram);
    return;
  }
  auto it = injectors_.try_emplace(peer, faults_.rates, faults_.seed + injectors_.size()).first;
  wire_.clear();
  it->second.apply(datagram, wire_);
  for (const auto& w : wire_) udp_.sendTo(to, w);
}

void BridgeLoop::flush() {
  for (const Outgoing& o : out_)
    if (auto it = peers_.find(o.peer); it != peers_.end()) send(o.peer, it->second, o.datagram);
  out_.clear();
}

}  // namespace rfms
