// The link's cores on one simulated network, for the link's tests: a bridge with a cell's keys,
// clients, and the supervisor's remote desk with a real Supervisor behind it. Delivery is
// instant; faults are seeded.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "common/transform.hpp"
#include "net_bridge/bridge_core.hpp"
#include "net_bridge/client_link_core.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/link_frame.hpp"
#include "supervisor/remote_desk.hpp"
#include "supervisor/supervisor.hpp"
#include "tests/support/build_paths.hpp"

namespace rfms::test {

inline const RobotModel& puma260() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  return m;
}

inline proto::TaskRequest trackUpdate(std::uint64_t session, std::uint64_t number) {
  proto::TaskRequest r;
  r.set_session(session);
  r.set_number(number);
  r.set_id(number);
  r.mutable_transform()->set_name("track");
  encode(trans(1e-3 * static_cast<double>(number), 0.0, 0.0), *r.mutable_transform()->mutable_value());
  return r;
}

// The keys of one cell: the bridge's, an operator's, an observer's, and a stranger's it does not admit.
struct CellKeys {
  KeyPair bridge = KeyPair::generate();
  KeyPair op = KeyPair::generate(), observer = KeyPair::generate(), stranger = KeyPair::generate();
  BridgeKeys allowed() const {
    BridgeKeys k;
    k.bridge = bridge;
    k.clients.push_back({"op", op.public_key, proto::CR_OPERATOR});
    k.clients.push_back({"eye", observer.public_key, proto::CR_OBSERVER});
    return k;
  }
  LinkIdentity identity(const KeyPair& k) const { return {k, bridge.public_key, true}; }
};

constexpr std::int64_t kEpochNs = 1'790'000'000'000'000'000;  // the simulated system clock's origin

inline BridgeLimits limits(std::size_t queue = 64, std::size_t sessions = 64) {
  BridgeLimits l;
  l.queue = queue;
  l.sessions = sessions;
  return l;
}

// Clients, a bridge and the supervisor's desk on one simulated network. Delivery is instant;
// reordering is the injector's holding back of a datagram until the next one.
struct Network {
  CellKeys keys;
  Supervisor core{puma260(), SupervisorConfig{}};
  RemoteDesk desk{puma260(), SupervisorConfig{}};
  std::unique_ptr<BridgeCore> bridge = std::make_unique<BridgeCore>(keys.allowed(), limits());
  FaultInjector up, down;  // client -> bridge, bridge -> client
  double now = 0.0;
  std::uint64_t k = 1;
  bool drop_answers = false;  // the supervisor applies but its answers are lost (a dying bridge)
  std::function<void(const proto::TaskRequest&)> on_request;  // sees each request as the supervisor does

  Network(const FaultRates& faults, std::uint64_t seed) : up(faults, seed), down(faults, seed + 1) {}

  std::int64_t nowNs() const { return kEpochNs + static_cast<std::int64_t>(now * 1e9); }
  LinkIdentity operatorId() const { return keys.identity(keys.op); }

  // The supervisor's side: everything the bridge has forwarded, answered at once.
  void serve(std::vector<Outgoing>& out) {
    proto::Envelope m;
    while (bridge->nextForSupervisor(m)) {
      if (m.has_status_request()) {
        proto::ArmStatus s;
        desk.status(core.background().view(), k, s);
        s.set_session(m.status_request().session());
        if (!drop_answers) bridge->answer(s, out);
      } else {
        if (on_request) on_request(m.task_request());
        const proto::TaskReply reply = desk.accept(m.task_request(), core.background(), k++);
        if (!drop_answers) bridge->answer(reply, out);
      }
    }
  }

  // Every datagram `link` has due now goes to the bridge as from `peer`; what comes back for
  // `peer` goes to the link. The event the link ended on: kAcked, kRefused, or kNone (gave up).
  ClientLinkCore::Event exchange(ClientLinkCore& link, const std::string& peer) {
    std::string d;
    std::vector<std::string> wire;
    std::vector<Outgoing> out;
    for (;;) {
      if (link.due(now, d)) {
        wire.clear();
        up.apply(d, wire);
        for (const auto& w : wire) bridge->receive(peer, w, out, nowNs());
      }
      serve(out);
      for (const Outgoing& o : out) {
        if (o.peer != peer) continue;
        wire.clear();
        down.apply(o.datagram, wire);
        for (const auto& w : wire) {
          const auto e = link.receive(w);
          if (e == ClientLinkCore::Event::kAcked || e == ClientLinkCore::Event::kRefused) return e;
        }
      }
      out.clear();
      if (link.failed()) return ClientLinkCore::Event::kNone;
      now = std::max(now, link.nextSend());
    }
  }

  // The frame, after a handshake when needed; what its ACK carried.
  std::string send(ClientLinkCore& link, proto::FrameType type, const std::string& payload, const std::string& peer) {
    link.begin(type, payload);
    if (exchange(link, peer) == ClientLinkCore::Event::kAcked) return link.answer();
    ADD_FAILURE() << "the link gave up: " << link.failure();
    link.abandon();
    return {};
  }
  proto::TaskReply request(ClientLinkCore& link, const proto::TaskRequest& r, const std::string& peer) {
    proto::TaskReply reply;
    EXPECT_TRUE(reply.ParseFromString(send(link, proto::FT_REG, r.SerializeAsString(), peer)));
    return reply;
  }
};

}  // namespace rfms::test
