// rfms-bridge's I/O shell around BridgeCore: the UDP socket to the clients and the DEALER socket to
// the supervisor's task endpoint, polled together; datagrams in and out (through a fault injector
// per client when asked), the supervisor's answers, SIGHUP's reload of the admitted keys, and a
// snapshot of the counters once a second for bridge-status.txt, which a thread of its own writes.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <zmq.hpp>

#include "net_bridge/bridge_core.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/udp_socket.hpp"
#include "runtime/transport.hpp"

namespace rfms {

// The counters as one line of text (bridge-status.txt, the log's last line).
std::string countersText(const proto::LinkCounters& c);

struct BridgeFaults {
  FaultRates rates;  // on the datagrams the bridge sends
  std::uint64_t seed = 1;
};

class BridgeLoop {
 public:
  // `keys_file`: where SIGHUP reloads the keys from ("" for an --insecure bridge, which has none).
  BridgeLoop(UdpSocket& udp, zmq::socket_t& supervisor, BridgeCore& core, Transport& transport, std::string keys_file,
             const BridgeFaults& faults, spdlog::logger& log);

  // Until a stop is requested (SIGINT, SIGTERM). Throws ConfigError when the supervisor refuses
  // this bridge's node key (it would never answer).
  void run();
  // The counters now, as the status file shows them.
  std::string snapshot();
  // The faults injected so far, all clients together (closed sessions' included).
  FaultCounts injected() const;

 private:
  void serveDatagrams();
  void serveSupervisor();
  void everySecond();  // the status snapshot, closed sessions' addresses forgotten
  void reloadKeys();
  void send(const std::string& peer, const UdpPeer& to, const std::string& datagram);
  void flush();  // what the core has to send, to the peers it knows

  UdpSocket& udp_;
  zmq::socket_t& supervisor_;
  BridgeCore& core_;
  Transport& transport_;
  std::string keys_file_;
  BridgeFaults faults_;
  spdlog::logger& log_;
  // The addresses of the clients whose sessions are open (the core names them by key).
  std::unordered_map<std::string, UdpPeer> peers_;
  // Fault injection per client, so that a datagram held back goes to its own client.
  std::unordered_map<std::string, FaultInjector> injectors_;
  FaultCounts retired_;  // of the injectors of closed sessions
  std::vector<Outgoing> out_;
  std::vector<std::string> wire_;
  std::string datagram_, buffer_;
  UdpPeer from_;
  proto::Envelope envelope_;
  std::mutex snapshot_mutex_;
  std::string snapshot_;
  std::chrono::steady_clock::time_point last_snapshot_;
};

}  // namespace rfms
