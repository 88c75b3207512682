#include "net_bridge/link_client.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace rfms {

namespace {
std::uint64_t randomSession() {
  std::random_device rd;
  std::uint64_t s = 0;
  while (s == 0) s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return s;
}
}  // namespace

LinkClient::LinkClient(const std::string& bridge, const LinkOptions& options, const FaultRates& faults,
                       std::uint64_t fault_seed, std::uint64_t session)
    : bridge_name_(bridge),
      bridge_(resolvePeer(bridge)),
      socket_(UdpSocket::forPeer(bridge_)),
      options_(options),
      link_(session != 0 ? session : randomSession(), options),
      faults_(faults, fault_seed) {}

double LinkClient::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void LinkClient::run(proto::FrameType type, const std::string& payload) {
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
    if (link_.failed())
      throw LinkError("no answer from the bridge at " + bridge_name_ + " after " + std::to_string(options_.max_tries) +
                      " tries");
    const int wait_ms = std::max(1, static_cast<int>(std::ceil((link_.nextSend() - now()) * 1e3)));
    if (!socket_.receive(reply, from, wait_ms)) {
      if (auto held = faults_.release()) socket_.sendTo(bridge_, *held);
      continue;
    }
    switch (link_.receive(reply)) {
      case ClientLink::Event::kAcked: counts_.retransmissions = link_.retransmissions(); return;
      case ClientLink::Event::kResync: {
        // The bridge restarted: synchronise, then send the same frame again.
        ++counts_.resyncs;
        const std::string again = link_.pendingPayload();
        const proto::FrameType again_type = link_.pendingType();
        link_.abandon();
        run(proto::FT_SYNC, "");
        link_.begin(again_type, again);
        break;
      }
      case ClientLink::Event::kBadChecksum: ++counts_.bad_checksums; break;
      case ClientLink::Event::kMalformed:
      case ClientLink::Event::kStale:
      case ClientLink::Event::kNone: ++counts_.stale; break;
    }
  }
}

std::string LinkClient::exchange(proto::FrameType type, const std::string& payload) {
  if (!synced_) {
    run(proto::FT_SYNC, "");
    synced_ = true;
  }
  run(type, payload);
  return link_.answer();
}

}  // namespace rfms
