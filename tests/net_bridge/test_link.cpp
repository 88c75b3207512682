// The RoboNet link's cores, the supervisor's remote desk and a real SupervisorCore, wired through a
// simulated network that loses, duplicates, reorders and corrupts datagrams (seeded).
#include <gtest/gtest.h>

#include <random>

#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "common/transform.hpp"
#include "net_bridge/bridge_core.hpp"
#include "net_bridge/client_link.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/link_frame.hpp"
#include "supervisor/remote_desk.hpp"

namespace rfms {
namespace {

const RobotModel& puma260() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  return m;
}

proto::TaskRequest trackUpdate(std::uint64_t session, std::uint64_t number) {
  proto::TaskRequest r;
  r.set_session(session);
  r.set_number(number);
  r.set_id(number);
  r.mutable_transform()->set_name("track");
  encode(trans(1e-3 * static_cast<double>(number), 0.0, 0.0), *r.mutable_transform()->mutable_value());
  return r;
}

// Clients, a bridge and the supervisor's desk on one simulated network. Delivery is instant;
// reordering is the injector's holding back of a datagram until the next one.
struct Network {
  SupervisorCore core{puma260(), SupervisorConfig{}};
  RemoteDesk desk{puma260(), SupervisorConfig{}};
  std::unique_ptr<BridgeCore> bridge = std::make_unique<BridgeCore>(64);
  FaultInjector up, down;  // client -> bridge, bridge -> client
  double now = 0.0;
  std::uint64_t k = 1;
  bool drop_answers = false;  // the supervisor applies but its answers are lost (a dying bridge)

  Network(const FaultRates& faults, std::uint64_t seed) : up(faults, seed), down(faults, seed + 1) {}

  // The supervisor's side: everything the bridge has forwarded, answered at once.
  void serve(std::vector<Outgoing>& out) {
    proto::Envelope m;
    while (bridge->nextForSupervisor(m)) {
      if (m.has_status_request()) {
        proto::ArmStatus s;
        desk.status(core, k, s);
        s.set_session(m.status_request().session());
        if (!drop_answers) bridge->answer(s, out);
      } else {
        const proto::TaskReply reply = desk.accept(m.task_request(), core, k++);
        if (!drop_answers) bridge->answer(reply, out);
      }
    }
  }

  // Runs `link` until the frame begun on it is acknowledged (or gives up); the event it ended on.
  ClientLink::Event exchange(ClientLink& link, const std::string& peer) {
    std::string d;
    std::vector<std::string> wire;
    std::vector<Outgoing> out;
    for (;;) {
      if (link.due(now, d)) {
        wire.clear();
        up.apply(d, wire);
        for (const auto& w : wire) bridge->receive(peer, w, out);
      }
      serve(out);
      for (const Outgoing& o : out) {
        wire.clear();
        down.apply(o.datagram, wire);
        for (const auto& w : wire) {
          const auto e = link.receive(w);
          if (e == ClientLink::Event::kAcked || e == ClientLink::Event::kResync) return e;
        }
      }
      out.clear();
      if (link.failed()) return ClientLink::Event::kNone;
      now = std::max(now, link.nextSend());
    }
  }

  // SYNC when needed, then the frame; resynchronises when the bridge has forgotten the session.
  std::string send(ClientLink& link, proto::FrameType type, const std::string& payload, const std::string& peer) {
    for (int attempt = 0; attempt < 3; ++attempt) {
      link.begin(type, payload);
      const auto e = exchange(link, peer);
      if (e == ClientLink::Event::kAcked) return link.answer();
      if (e != ClientLink::Event::kResync) break;
      link.abandon();
      link.begin(proto::FT_SYNC, "");
      if (exchange(link, peer) != ClientLink::Event::kAcked) break;
    }
    ADD_FAILURE() << "the link gave up";
    return {};
  }
};

TEST(LinkFrame, ChecksumCatchesEverySingleByteCorruptionAndTruncation) {
  proto::LinkFrame f;
  f.set_type(proto::FT_REG);
  f.set_seq(1);
  f.set_count(7);
  f.set_session(0x1234567890abcdefull);
  f.set_payload(trackUpdate(f.session(), 7).SerializeAsString());
  const std::string d = encodeDatagram(f);
  proto::LinkFrame back;
  ASSERT_EQ(decodeDatagram(d, back), Datagram::kOk);
  EXPECT_EQ(back.payload(), f.payload());
  for (std::size_t i = 0; i < d.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = d;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_EQ(decodeDatagram(bad, back), Datagram::kBadChecksum) << "byte " << i << " bit " << bit;
    }
  for (std::size_t n = 0; n < d.size(); ++n) EXPECT_NE(decodeDatagram(d.substr(0, n), back), Datagram::kOk);
  // Intact but meaningless: a seq of 2 is no frame of this link.
  f.set_seq(2);
  EXPECT_EQ(decodeDatagram(encodeDatagram(f), back), Datagram::kMalformed);
}

TEST(Link, TenThousandRequestsThroughABadNetworkAreAppliedExactlyOnceInOrder) {
  const FaultRates faults{0.20, 0.05, 0.05, 0.01};
  Network net(faults, 2026);
  LinkOptions o;
  o.timeout_s = 0.005;
  o.max_tries = 60;
  ClientLink link(0xabcdef, o);
  net.send(link, proto::FT_SYNC, "", "client");
  constexpr std::uint64_t kRequests = 10000;
  for (std::uint64_t n = 1; n <= kRequests; ++n) {
    proto::TaskReply reply;
    ASSERT_TRUE(reply.ParseFromString(
        net.send(link, proto::FT_REG, trackUpdate(link.session(), n).SerializeAsString(), "client")))
        << "request " << n;
    ASSERT_TRUE(reply.accepted()) << reply.reason();
    ASSERT_EQ(reply.number(), n);
    ASSERT_EQ(reply.handled(), n) << "applied more or less than once";
    if (n % 100 == 0) {  // a status request now and then, answered from the same link
      proto::ArmStatus s;
      ASSERT_TRUE(s.ParseFromString(net.send(link, proto::FT_SENDREQ, "", "client")));
    }
  }
  // The last value is the world model's: nothing was applied out of order after it.
  EXPECT_NEAR(net.core.world().transform(net.core.world().findTransform("track")).translation().x(), 10.0, 1e-12);
  const auto& u = net.up.counts();
  const auto& d = net.down.counts();
  const auto& c = net.bridge->counters();
  std::printf("faults client->bridge: %llu datagrams, %llu lost, %llu duplicated, %llu reordered, %llu corrupted\n",
              static_cast<unsigned long long>(u.datagrams), static_cast<unsigned long long>(u.lost),
              static_cast<unsigned long long>(u.duplicated), static_cast<unsigned long long>(u.reordered),
              static_cast<unsigned long long>(u.corrupted));
  std::printf("faults bridge->client: %llu datagrams, %llu lost, %llu duplicated, %llu reordered, %llu corrupted\n",
              static_cast<unsigned long long>(d.datagrams), static_cast<unsigned long long>(d.lost),
              static_cast<unsigned long long>(d.duplicated), static_cast<unsigned long long>(d.reordered),
              static_cast<unsigned long long>(d.corrupted));
  std::printf(
      "bridge: %llu retransmissions seen, %llu duplicates not delivered, %llu checksum failures; "
      "client: %llu retransmissions\n",
      static_cast<unsigned long long>(c.retransmissions()), static_cast<unsigned long long>(c.duplicates()),
      static_cast<unsigned long long>(c.checksum_failures()), static_cast<unsigned long long>(link.retransmissions()));
  for (const FaultCounts* f : {&u, &d}) {
    EXPECT_GT(f->lost, 0u);
    EXPECT_GT(f->duplicated, 0u);
    EXPECT_GT(f->reordered, 0u);
    EXPECT_GT(f->corrupted, 0u);
  }
  EXPECT_GT(c.duplicates(), 0u);
  EXPECT_GT(c.checksum_failures(), 0u);
}

TEST(Link, ABridgeRestartedMidTaskLosesNothingAndAppliesNothingTwice) {
  Network net(FaultRates{0.1, 0.0, 0.0, 0.0}, 7);
  LinkOptions o;
  o.timeout_s = 0.005;
  ClientLink link(42, o);
  net.send(link, proto::FT_SYNC, "", "client");
  for (std::uint64_t n = 1; n <= 300; ++n) {
    if (n == 100) {
      // The bridge dies after handing request 100 to the supervisor and before its answer went
      // out; a new one starts with no memory of the client.
      net.drop_answers = true;
      link.begin(proto::FT_REG, trackUpdate(42, n).SerializeAsString());
      std::string d;
      while (!link.due(net.now, d)) {
      }
      std::vector<Outgoing> out;
      net.bridge->receive("client", d, out);
      net.serve(out);
      net.drop_answers = false;
      net.bridge = std::make_unique<BridgeCore>(64);
      link.abandon();
    }
    proto::TaskReply reply;
    ASSERT_TRUE(reply.ParseFromString(net.send(link, proto::FT_REG, trackUpdate(42, n).SerializeAsString(), "client")));
    ASSERT_EQ(reply.number(), n);
    ASSERT_EQ(reply.handled(), n) << "request " << n;
    ASSERT_TRUE(reply.accepted());
  }
}

TEST(Link, AFullQueueWithholdsTheAckAndTheClientGetsThroughLater) {
  Network net(FaultRates{}, 1);
  net.bridge = std::make_unique<BridgeCore>(1);
  ClientLink a(1, LinkOptions{}), b(2, LinkOptions{});
  net.send(a, proto::FT_SYNC, "", "a");
  net.send(b, proto::FT_SYNC, "", "b");
  // A's request waits at the supervisor (not forwarded yet); B's finds the queue full.
  std::vector<Outgoing> out;
  std::string d;
  a.begin(proto::FT_REG, trackUpdate(1, 1).SerializeAsString());
  ASSERT_TRUE(a.due(0.0, d));
  net.bridge->receive("a", d, out);
  b.begin(proto::FT_REG, trackUpdate(2, 1).SerializeAsString());
  ASSERT_TRUE(b.due(0.0, d));
  net.bridge->receive("b", d, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(net.bridge->counters().withheld(), 1u);
  // Once A's is answered, B's retry goes through; both are applied once.
  proto::Envelope m;
  ASSERT_TRUE(net.bridge->nextForSupervisor(m));
  net.bridge->answer(net.desk.accept(m.task_request(), net.core, 1), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(a.receive(out[0].datagram), ClientLink::Event::kAcked);
  b.abandon();
  proto::TaskReply reply;
  ASSERT_TRUE(reply.ParseFromString(net.send(b, proto::FT_REG, trackUpdate(2, 1).SerializeAsString(), "b")));
  EXPECT_TRUE(reply.accepted());
  EXPECT_EQ(reply.handled(), 1u);
  EXPECT_EQ(net.desk.sessions(), 2u);
}

TEST(Link, GarbageIsDroppedAndCountedAndAnInvalidRequestIsAnsweredWithoutChangingAnything) {
  Network net(FaultRates{}, 1);
  std::vector<Outgoing> out;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000; ++i) {
    std::string junk(static_cast<std::size_t>(rng() % 200), '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    net.bridge->receive("noise", junk, out);
  }
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(net.bridge->counters().checksum_failures() + net.bridge->counters().malformed(), 1000u);
  ClientLink link(9, LinkOptions{});
  net.send(link, proto::FT_SYNC, "", "c");
  // A frame that arrives intact but does not hold a request.
  proto::TaskReply reply;
  ASSERT_TRUE(reply.ParseFromString(net.send(link, proto::FT_REG, "not a request", "c")));
  EXPECT_FALSE(reply.accepted());
  EXPECT_NE(reply.reason().find("malformed request"), std::string::npos);
  // A request the supervisor refuses: a move to nowhere. The world model and queue stay as they were.
  proto::TaskRequest move;
  move.set_session(9);
  move.set_number(1);
  move.mutable_move()->set_position("nowhere");
  move.mutable_move()->set_motion("none");
  ASSERT_TRUE(reply.ParseFromString(net.send(link, proto::FT_REG, move.SerializeAsString(), "c")));
  EXPECT_FALSE(reply.accepted());
  EXPECT_FALSE(reply.reason().empty());
  EXPECT_EQ(net.core.trajectory().queued(), 0);
  // A malformed matrix in a transform is refused and defines nothing.
  proto::TaskRequest bad = trackUpdate(9, 2);
  bad.mutable_transform()->mutable_value()->set_m(0, 7.0);
  ASSERT_TRUE(reply.ParseFromString(net.send(link, proto::FT_REG, bad.SerializeAsString(), "c")));
  EXPECT_FALSE(reply.accepted());
  EXPECT_LT(net.core.world().findTransform("track"), 0);
}

TEST(RemoteDesk, AnotherClientsTaskHoldsTheArmWhileItMovesButAnyoneMayStop) {
  SupervisorCore core(puma260(), SupervisorConfig{});
  RemoteDesk desk(puma260(), SupervisorConfig{});
  auto request = [](std::uint64_t session, std::uint64_t number) {
    proto::TaskRequest r;
    r.set_session(session);
    r.set_number(number);
    return r;
  };
  proto::TaskRequest begin = request(1, 1);
  begin.mutable_begin()->set_name("weld");
  EXPECT_TRUE(desk.accept(begin, core, 1).accepted());
  // Idle: another client may take the arm over (the first may have died).
  proto::TaskRequest other = request(2, 1);
  other.mutable_begin()->set_name("paint");
  EXPECT_TRUE(desk.accept(other, core, 2).accepted());
  proto::TaskRequest jog = request(1, 2);
  jog.mutable_control()->set_command(proto::CC_HOLD);
  const proto::TaskReply refused = desk.accept(jog, core, 3);
  EXPECT_FALSE(refused.accepted());
  EXPECT_NE(refused.reason().find("'paint'"), std::string::npos);
  proto::TaskRequest stop = request(1, 3);
  stop.mutable_control()->set_command(proto::CC_STOP);
  EXPECT_EQ(desk.accept(stop, core, 4).reason().find("another client"), std::string::npos);
  // Transforms are anyone's (a camera tracking an object).
  EXPECT_TRUE(desk.accept(trackUpdate(1, 4), core, 5).accepted());
  // A retransmitted request gets its first answer again; one that skips ahead is refused.
  EXPECT_EQ(desk.accept(trackUpdate(1, 4), core, 6).applied_period(), 5u);
  const proto::TaskReply skip = desk.accept(trackUpdate(1, 9), core, 7);
  EXPECT_FALSE(skip.accepted());
  EXPECT_NE(skip.reason().find("skips ahead"), std::string::npos);
}

}  // namespace
}  // namespace rfms
