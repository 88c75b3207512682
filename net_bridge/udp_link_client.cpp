#include "net_bridge/udp_link_client.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rfms {

LinkIdentity loadLinkIdentity(const std::string& key_file) {
  LinkIdentity id;
  if (key_file.empty()) {
    id.key = KeyPair::generate();
    return id;
  }
  const KeyFile f = loadKeyFile(key_file);
  if (!f.has_bridge)
    throw ConfigError(key_file + ": no 'bridge' line: not a client's key file (rfms-keys client makes them)");
  id.key = f.pair;
  id.bridge = f.bridge;
  id.bridge_pinned = true;
  return id;
}

UdpLinkClient::UdpLinkClient(const std::string& bridge, const LinkIdentity& identity, const LinkOptions& options,
                             const FaultRates& faults, std::uint64_t fault_seed, std::uint64_t client_session)
    : bridge_name_(bridge),
      bridge_(resolvePeer(bridge)),
      socket_(UdpSocket::forPeer(bridge_)),
      options_(options),
      link_(identity, client_session != 0 ? client_session : randomNonZero64(), options),
      faults_(faults, fault_seed) {}

double UdpLinkClient::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string UdpLinkClient::exchange(proto::FrameType type, const std::string& payload) {
  link_.begin(type, payload);
  std::string datagram, reply;
  std::vector<std::string> wire;
  UdpPeer from;
  for (;;) {
    if (link_.due(now(), datagram)) {
      wire.clear();
      faults_.apply(datagram, wire);
      for (const auto& d : wire) socket_.sendTo(bridge_, d);
    }
    if (link_.failed()) {
      // Whether the bridge got the frame is unknown: the next request starts a new client
      // session (numbered from 1), so that it is not refused for skipping the lost number.
      link_.restart(randomNonZero64());
      throw LinkError(link_.failure().empty() ? "no answer from the bridge at " + bridge_name_ + " after " +
                                                    std::to_string(options_.max_tries) + " tries"
                                              : link_.failure() + " (bridge at " + bridge_name_ + ")");
    }
    const int wait_ms = std::max(1, static_cast<int>(std::ceil((link_.nextSend() - now()) * 1e3)));
    if (!socket_.receive(reply, from, wait_ms)) {
      if (auto held = faults_.release()) socket_.sendTo(bridge_, *held);
      continue;
    }
    switch (link_.receive(reply)) {
      case ClientLinkCore::Event::kAcked:
        counts_.retransmissions = link_.retransmissions();
        counts_.handshakes = link_.handshakes();
        return link_.answer();
      case ClientLinkCore::Event::kBadChecksum: ++counts_.bad_checksums; break;
      case ClientLinkCore::Event::kHandshake:
      case ClientLinkCore::Event::kPathProof:
      case ClientLinkCore::Event::kRefused:
      case ClientLinkCore::Event::kRefusalNoted: break;
      case ClientLinkCore::Event::kMalformed:
      case ClientLinkCore::Event::kStale:
      case ClientLinkCore::Event::kNone: ++counts_.stale; break;
    }
  }
}

}  // namespace rfms
