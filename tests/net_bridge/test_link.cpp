// The RoboNet link's cores, the supervisor's remote desk and a real Supervisor, wired through a
// simulated network that loses, duplicates, reorders and corrupts datagrams (seeded); frames on
// their own.
#include <gtest/gtest.h>

#include <zlib.h>
#include <map>

#include <random>

#include "tests/net_bridge/simulated_link.hpp"

namespace rfms {
namespace {

using test::CellKeys;
using test::limits;
using test::Network;
using test::puma260;
using test::trackUpdate;

TEST(LinkFrame, ChecksumCatchesEverySingleByteCorruptionAndTruncation) {
  proto::LinkFrame f;
  f.set_type(proto::FT_HELLO);
  f.mutable_handshake()->set_version(2);
  f.mutable_handshake()->set_client_key(std::string(32, 'k'));
  f.mutable_handshake()->set_client_nonce(std::string(24, 'n'));
  const std::string d = encodeDatagram(f);
  proto::LinkFrame back;
  ASSERT_EQ(decodeDatagram(d, back), Datagram::kOk);
  EXPECT_EQ(back.handshake().client_key(), f.handshake().client_key());
  for (std::size_t i = 1; i < d.size(); ++i)  // byte 0 is the version: a different one is named as such
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = d;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_NE(decodeDatagram(bad, back), Datagram::kOk) << "byte " << i << " bit " << bit;
    }
  for (std::size_t n = 0; n < d.size(); ++n) EXPECT_NE(decodeDatagram(d.substr(0, n), back), Datagram::kOk);
  // Another version's datagram is named as such when its CRC (over its own version byte) holds;
  // with a broken one it is noise, and nobody is answered.
  std::string other_version = d.substr(0, d.size() - 4);
  other_version[0] = 1;
  const auto crc =
      static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(other_version.data()),
                                       static_cast<uInt>(other_version.size())));
  for (int shift = 24; shift >= 0; shift -= 8) other_version.push_back(static_cast<char>((crc >> shift) & 0xffu));
  EXPECT_EQ(decodeDatagram(other_version, back), Datagram::kWrongVersion);
  std::string noise = d;
  noise[0] = 1;
  EXPECT_EQ(decodeDatagram(noise, back), Datagram::kBadChecksum);
}

TEST(LinkFrame, AMacCatchesEveryFlippedBitAndOnlyItsKeyMakesIt) {
  Key key{}, other{};
  randomBytes(key.data(), key.size());
  randomBytes(other.data(), other.size());
  proto::LinkFrame f;
  f.set_type(proto::FT_REG);
  f.set_count(7);
  f.set_seq(1);
  f.set_session(0x1234567890abcdefull);
  f.set_payload(trackUpdate(0, 7).SerializeAsString());
  const std::string d = encodeDatagram(f, key);
  proto::LinkFrame back;
  ASSERT_EQ(decodeDatagram(d, back), Datagram::kOk);
  EXPECT_TRUE(macValid(d, key));
  EXPECT_FALSE(macValid(d, other));
  for (std::size_t i = 0; i < d.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = d;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_FALSE(macValid(bad, key)) << "byte " << i << " bit " << bit;
    }
}

TEST(LinkFrame, AFrameOfNoKnownShapeIsMalformed) {
  proto::LinkFrame back;
  proto::LinkFrame f;
  f.set_count(3);
  f.set_seq(1);
  Key key{};
  // A type this version does not have (10), or the retired SYNC (1).
  for (int type : {10, 1, 0}) {
    f.set_type(static_cast<proto::FrameType>(type));
    EXPECT_EQ(decodeDatagram(encodeDatagram(f, key), back), Datagram::kMalformed) << type;
  }
  // seq must be the counter's low bit.
  f.set_type(proto::FT_REG);
  f.set_seq(0);
  EXPECT_EQ(decodeDatagram(encodeDatagram(f, key), back), Datagram::kMalformed);
  f.set_seq(2);
  EXPECT_EQ(decodeDatagram(encodeDatagram(f, key), back), Datagram::kMalformed);
  // A REG must be signed, a HELLO checksummed: the other trailer is refused.
  f.set_seq(1);
  EXPECT_EQ(decodeDatagram(encodeDatagram(f), back), Datagram::kMalformed);
  proto::LinkFrame hello;
  hello.set_type(proto::FT_HELLO);
  EXPECT_EQ(decodeDatagram(encodeDatagram(hello, key), back), Datagram::kMalformed);
}

TEST(Link, TenThousandRequestsThroughABadNetworkAreAppliedExactlyOnceInOrder) {
  const FaultRates faults{0.20, 0.05, 0.05, 0.01};
  Network net(faults, 2026);
  LinkOptions o;
  o.timeout_s = 0.005;
  o.max_tries = 60;
  ClientLinkCore link(net.operatorId(), 0xabcdef, o);
  constexpr std::uint64_t kRequests = 10000;
  for (std::uint64_t n = 1; n <= kRequests; ++n) {
    const proto::TaskReply reply = net.request(link, trackUpdate(0, n), "client");
    ASSERT_TRUE(reply.accepted()) << reply.reason();
    ASSERT_EQ(reply.number(), n);
    ASSERT_EQ(reply.handled(), n) << "applied more or less than once";
    if (n % 100 == 0) {  // a status request now and then, answered from the same link
      proto::ArmStatus s;
      ASSERT_TRUE(s.ParseFromString(net.send(link, proto::FT_SENDREQ, "", "client")));
    }
  }
  // The last value is the world model's: nothing was applied out of order after it.
  EXPECT_NEAR(net.core.world().values().transform(net.core.world().findTransform("track")).translation().x(), 10.0,
              1e-12);
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
      "bridge: %llu retransmissions seen, %llu duplicates not delivered, %llu checksum failures, %llu forged; "
      "client: %llu retransmissions, %llu handshakes\n",
      static_cast<unsigned long long>(c.retransmissions()), static_cast<unsigned long long>(c.duplicates()),
      static_cast<unsigned long long>(c.checksum_failures()), static_cast<unsigned long long>(c.forged()),
      static_cast<unsigned long long>(link.retransmissions()), static_cast<unsigned long long>(link.handshakes()));
  for (const FaultCounts* f : {&u, &d}) {
    EXPECT_GT(f->lost, 0u);
    EXPECT_GT(f->duplicated, 0u);
    EXPECT_GT(f->reordered, 0u);
    EXPECT_GT(f->corrupted, 0u);
  }
  EXPECT_GT(c.duplicates(), 0u);
  // A corrupted signed frame fails its MAC; a corrupted handshake frame its checksum.
  EXPECT_GT(c.forged() + c.checksum_failures(), 0u);
  EXPECT_EQ(net.desk.sessions(), 1u);
}

TEST(Link, ABridgeRestartedMidTaskLosesNothingAndAppliesNothingTwice) {
  Network net(FaultRates{0.1, 0.0, 0.0, 0.0}, 7);
  LinkOptions o;
  o.timeout_s = 0.005;
  ClientLinkCore link(net.operatorId(), 42, o);
  for (std::uint64_t n = 1; n <= 300; ++n) {
    if (n == 100) {
      // The bridge dies after handing request 100 to the supervisor and before its answer went
      // out; a new one starts with no memory of the client (and another challenge secret).
      net.drop_answers = true;
      link.begin(proto::FT_REG, trackUpdate(0, n).SerializeAsString());
      std::string d;
      while (!link.due(net.now, d)) {
      }
      std::vector<Outgoing> out;
      net.bridge->receive("client", d, out, net.nowNs());
      net.serve(out);
      net.drop_answers = false;
      net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits());
      link.abandon();
    }
    const proto::TaskReply reply = net.request(link, trackUpdate(0, n), "client");
    ASSERT_EQ(reply.number(), n);
    ASSERT_EQ(reply.handled(), n) << "request " << n;
    ASSERT_TRUE(reply.accepted());
  }
  EXPECT_GE(link.handshakes(), 2u);
  EXPECT_GE(net.bridge->counters().handshakes(), 1u);
}

TEST(Link, AFullQueueWithholdsTheAckAndTheClientGetsThroughLater) {
  Network net(FaultRates{}, 1);
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits(1));
  ClientLinkCore a(net.operatorId(), 1, LinkOptions{}), b(net.operatorId(), 2, LinkOptions{});
  // Both open their sessions with a status request each.
  net.send(a, proto::FT_SENDREQ, "", "a");
  net.send(b, proto::FT_SENDREQ, "", "b");
  // A's request waits at the supervisor (not forwarded yet); B's finds the queue full.
  std::vector<Outgoing> out;
  std::string d;
  a.begin(proto::FT_REG, trackUpdate(0, 1).SerializeAsString());
  ASSERT_TRUE(a.due(net.now, d));
  net.bridge->receive("a", d, out, net.nowNs());
  b.begin(proto::FT_REG, trackUpdate(0, 1).SerializeAsString());
  ASSERT_TRUE(b.due(net.now, d));
  net.bridge->receive("b", d, out, net.nowNs());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(net.bridge->counters().withheld(), 1u);
  // Once A's is answered, B's retry goes through; both are applied once.
  proto::Envelope m;
  ASSERT_TRUE(net.bridge->nextForSupervisor(m));
  net.bridge->answer(net.desk.accept(m.task_request(), net.core.background(), 1), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(a.receive(out[0].datagram), ClientLinkCore::Event::kAcked);
  EXPECT_EQ(net.bridge->queueDepth(), 0u);
  b.abandon();
  const proto::TaskReply reply = net.request(b, trackUpdate(0, 1), "b");
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
    if (!junk.empty()) junk[0] = 2;  // of this version: else each is answered "version 2" (counted as refused)
    net.bridge->receive("noise", junk, out, net.nowNs());
  }
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(net.bridge->counters().checksum_failures() + net.bridge->counters().malformed() +
                net.bridge->counters().forged() + net.bridge->counters().unknown_sessions(),
            1000u);
  EXPECT_EQ(net.bridge->sessions(), 0u);
  ClientLinkCore link(net.operatorId(), 9, LinkOptions{});
  // A frame that arrives intact but does not hold a request.
  proto::TaskReply reply;
  ASSERT_TRUE(reply.ParseFromString(net.send(link, proto::FT_REG, "not a request", "c")));
  EXPECT_FALSE(reply.accepted());
  EXPECT_EQ(reply.code(), proto::RC_INVALID) << reply.reason();
  // A request the supervisor refuses: a move to nowhere. The world model and queue stay as they were.
  proto::TaskRequest begin;
  begin.set_number(1);
  begin.mutable_begin()->set_name("t");
  ASSERT_TRUE(net.request(link, begin, "c").accepted());
  proto::TaskRequest move;
  move.set_number(2);
  move.mutable_move()->set_position("nowhere");
  move.mutable_move()->set_motion("none");
  reply = net.request(link, move, "c");
  EXPECT_FALSE(reply.accepted());
  EXPECT_FALSE(reply.reason().empty());
  EXPECT_EQ(net.core.core().trajectory().queued(), 0);
  // A malformed matrix in a transform is refused and defines nothing.
  proto::TaskRequest bad = trackUpdate(0, 3);
  bad.mutable_transform()->mutable_value()->set_m(0, 7.0);
  EXPECT_FALSE(net.request(link, bad, "c").accepted());
  EXPECT_LT(net.core.world().findTransform("track"), 0);
}

proto::TaskRequest numbered(std::uint64_t number) {
  proto::TaskRequest r;
  r.set_number(number);
  return r;
}

proto::TaskRequest operatorRequest(std::uint64_t session, std::uint64_t number) {
  proto::TaskRequest r = numbered(number);
  r.set_session(session);
  r.set_role(proto::CR_OPERATOR);
  return r;
}

TEST(RemoteDesk, AnotherClientsTaskHoldsTheArmWhileItMovesButAnyoneMayStop) {
  Supervisor core(puma260(), SupervisorConfig{});
  RemoteDesk desk(puma260(), SupervisorConfig{});
  proto::TaskRequest begin = operatorRequest(1, 1);
  begin.mutable_begin()->set_name("weld");
  EXPECT_TRUE(desk.accept(begin, core.background(), 1).accepted());
  // Idle: another client may take the arm over (the first may have died).
  proto::TaskRequest other = operatorRequest(2, 1);
  other.mutable_begin()->set_name("paint");
  EXPECT_TRUE(desk.accept(other, core.background(), 2).accepted());
  proto::TaskRequest jog = operatorRequest(1, 2);
  jog.mutable_control()->set_command(proto::CC_HOLD);
  const proto::TaskReply refused = desk.accept(jog, core.background(), 3);
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), proto::RC_ARM_TAKEN) << refused.reason();
  EXPECT_NE(refused.reason().find("'paint'"), std::string::npos);  // names the task that holds it
  proto::TaskRequest stop = operatorRequest(1, 3);
  stop.mutable_control()->set_command(proto::CC_STOP);
  EXPECT_NE(desk.accept(stop, core.background(), 4).code(), proto::RC_ARM_TAKEN);
  // Transforms are anyone's (a camera tracking an object).
  proto::TaskRequest t = trackUpdate(1, 4);
  t.set_role(proto::CR_OPERATOR);
  EXPECT_TRUE(desk.accept(t, core.background(), 5).accepted());
  // A retransmitted request gets its first answer again; one that skips ahead is refused.
  EXPECT_EQ(desk.accept(t, core.background(), 6).applied_period(), 5u);
  proto::TaskRequest skip = trackUpdate(1, 9);
  skip.set_role(proto::CR_OPERATOR);
  const proto::TaskReply skipped = desk.accept(skip, core.background(), 7);
  EXPECT_FALSE(skipped.accepted());
  EXPECT_EQ(skipped.code(), proto::RC_OUT_OF_ORDER) << skipped.reason();
}

TEST(RemoteDesk, MovingTheArmNeedsATaskOfOnesOwnAndAnObserverMayOnlyLookAndStop) {
  Supervisor core(puma260(), SupervisorConfig{});
  RemoteDesk desk(puma260(), SupervisorConfig{});
  // No task open: calibrating, jogging, moving are refused and change nothing.
  proto::TaskRequest calibrate = operatorRequest(1, 1);
  calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
  const proto::TaskReply refused = desk.accept(calibrate, core.background(), 1);
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), proto::RC_NO_TASK) << refused.reason();
  EXPECT_EQ(core.core().rtstate(), proto::RT_IDLE);
  proto::TaskRequest move = operatorRequest(1, 2);
  move.mutable_move()->set_position("p");
  move.mutable_move()->set_motion("m");
  EXPECT_EQ(desk.accept(move, core.background(), 2).code(), proto::RC_NO_TASK);
  // An observer's key: nothing but status and stop, a task included.
  proto::TaskRequest begin = numbered(1);
  begin.set_session(2);
  begin.set_role(proto::CR_OBSERVER);
  begin.mutable_begin()->set_name("peek");
  const proto::TaskReply observer = desk.accept(begin, core.background(), 3);
  EXPECT_FALSE(observer.accepted());
  EXPECT_EQ(observer.code(), proto::RC_NOT_PERMITTED) << observer.reason();
  proto::TaskRequest stop_request = numbered(2);
  stop_request.set_session(2);
  stop_request.set_role(proto::CR_OBSERVER);
  stop_request.mutable_control()->set_command(proto::CC_EMERGENCY_STOP);
  EXPECT_TRUE(desk.accept(stop_request, core.background(), 4).accepted());
  // With a task of its own, an operator's request reaches the core (which judges it by its state).
  proto::TaskRequest own = operatorRequest(1, 3);
  own.mutable_begin()->set_name("work");
  EXPECT_TRUE(desk.accept(own, core.background(), 5).accepted());
  proto::TaskRequest calibrate_now = operatorRequest(1, 4);
  calibrate_now.mutable_control()->set_command(proto::CC_CALIBRATE);
  bool reached = false;
  desk.accept(calibrate_now, core.background(), 6, &reached);
  EXPECT_TRUE(reached);
}

TEST(Link, AfterAFailedRequestTheClientGoesOnInANewSessionAndIsNotRefusedForTheLostNumber) {
  Network net(FaultRates{}, 1);
  ClientLinkCore link(net.operatorId(), 77, LinkOptions{});
  for (std::uint64_t n = 1; n <= 3; ++n) ASSERT_TRUE(net.request(link, trackUpdate(0, n), "c").accepted());
  // Request 4 is lost for good (the library threw LinkError) and never reached the supervisor.
  link.begin(proto::FT_REG, trackUpdate(0, 4).SerializeAsString());
  link.restart(78);
  // Numbered 5 in the old session it would skip ahead; in the new one it is request 1.
  const proto::TaskReply next = net.request(link, trackUpdate(0, 1), "c");
  EXPECT_TRUE(next.accepted()) << next.reason();
  EXPECT_EQ(next.handled(), 1u);
  EXPECT_EQ(net.desk.sessions(), 2u);
}

// A client program started again with the session of an earlier run (a fixed number, say) counts
// from 1 again: its requests are applied, not answered from the earlier run's cache. A client that
// resumes after losing its link session still gets exactly-once.
TEST(Link, AProgramStartedAgainWithItsOldSessionIsAnsweredAnewWhileAResumingOneIsNot) {
  Network net(FaultRates{}, 1);
  auto define = [](std::uint64_t number, double x) {
    proto::TaskRequest r = trackUpdate(0, number);
    encode(trans(x, 0.0, 0.0), *r.mutable_transform()->mutable_value());
    return r;
  };
  auto trackX = [&] {
    const int i = net.core.world().findTransform("track");
    return i < 0 ? -1.0 : net.core.world().values().transform(i).translation().x();
  };
  {
    ClientLinkCore first(net.operatorId(), 55, LinkOptions{});
    ASSERT_TRUE(net.request(first, define(1, 0.1), "c").accepted());
  }
  // The same session again, request 1 again: applied, though the cache held the first run's answer
  // to a request 1. Its answer is lost with the bridge, which restarts.
  ClientLinkCore second(net.operatorId(), 55, LinkOptions{});
  net.drop_answers = true;
  const std::uint64_t applied_at = net.k;
  second.begin(proto::FT_REG, define(1, 0.2).SerializeAsString());
  EXPECT_EQ(net.exchange(second, "c2"), ClientLinkCore::Event::kNone);
  second.abandon();
  EXPECT_DOUBLE_EQ(trackX(), 0.2);
  net.drop_answers = false;
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits());
  // The resend, after a handshake that is not fresh (request 1 went out), is request 1 once.
  const proto::TaskReply resent = net.request(second, define(1, 0.2), "c2");
  EXPECT_TRUE(resent.accepted()) << resent.reason();
  EXPECT_EQ(resent.applied_period(), applied_at) << "answered from the cache, not applied again";
  ASSERT_TRUE(net.request(second, define(2, 0.3), "c2").accepted());
  EXPECT_DOUBLE_EQ(trackX(), 0.3);
  // A stranger's client that reuses its session and counts from 1 without saying it is fresh: a
  // 1 after later numbers cannot be a resend, so it too is applied anew ...
  proto::TaskRequest naive = define(1, 0.5);
  naive.set_session(resent.session());
  naive.set_role(proto::CR_OPERATOR);  // as the bridge marks it
  const proto::TaskReply fresh = net.desk.accept(naive, net.core.background(), net.k++);
  EXPECT_TRUE(fresh.accepted()) << fresh.reason();
  EXPECT_DOUBLE_EQ(trackX(), 0.5);
  // ... while a resend of that request 1 is the same answer, applied once.
  naive = define(1, 0.6);
  naive.set_session(resent.session());
  naive.set_role(proto::CR_OPERATOR);
  EXPECT_EQ(net.desk.accept(naive, net.core.background(), net.k++).applied_period(), fresh.applied_period());
  EXPECT_DOUBLE_EQ(trackX(), 0.5);
}

// One key cannot take every name from the others: it creates at most max_names_per_key, whatever
// its sessions; updating a name it has is not creating one.
// The status names the emergency and, for a force move's, the axis it was found along.
TEST(RemoteDesk, TheStatusSaysAlongWhichAxisAForceMovesEmergencyWasFound) {
  RemoteDesk desk(puma260(), SupervisorConfig{});
  SupervisorView v;
  v.state = proto::RT_EMGCY;
  v.reason = proto::ER_FORCE_RUNAWAY;
  v.reason_node = proto::NODE_SUPERVISOR;
  v.reason_axis = "tool x";
  proto::ArmStatus s;
  desk.status(v, 10, s);
  EXPECT_EQ(s.reason(), proto::ER_FORCE_RUNAWAY);
  EXPECT_EQ(s.reason_axis(), "tool x");
  v.reason_axis = "";
  s.Clear();
  desk.status(v, 11, s);
  EXPECT_EQ(s.reason_axis(), "");
}

TEST(RemoteDesk, EachKeyCreatesABoundedNumberOfNames) {
  SupervisorConfig config;
  config.max_names_per_key = 3;
  Supervisor core(puma260(), config);
  RemoteDesk desk(puma260(), config);
  std::uint64_t k = 1;
  auto define = [&](std::uint64_t key, std::uint64_t session, std::uint64_t number, const std::string& name) {
    proto::TaskRequest r = trackUpdate(session, number);
    r.mutable_transform()->set_name(name);
    r.set_key_id(key);
    r.set_role(proto::CR_OPERATOR);
    return desk.accept(r, core.background(), k++);
  };
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(define(7, 100, i, "a" + std::to_string(i)).accepted());
  const proto::TaskReply over = define(7, 101, 1, "a4");  // another session of the same key
  EXPECT_FALSE(over.accepted());
  EXPECT_EQ(over.code(), proto::RC_TABLE_FULL) << over.reason();
  EXPECT_NE(over.reason().find("(controller.max_names_per_key)"), std::string::npos) << over.reason();
  EXPECT_EQ(core.world().findTransform("a4"), -1);
  EXPECT_TRUE(define(7, 101, 2, "a2").accepted()) << "an update creates nothing";
  EXPECT_TRUE(define(8, 200, 1, "b1").accepted()) << "another key has its own";
  EXPECT_TRUE(define(0, 0, 0, "local").accepted()) << "a local script has max_names alone";
}

// Names are forgotten by the key that made them, and then count for nothing: four keys that
// filled the world's names leave room again when one forgets; nobody forgets another key's name.
TEST(RemoteDesk, AKeyForgetsItsOwnNamesAndTheRoomComesBack) {
  SupervisorConfig config;
  config.max_names = 8;
  config.max_names_per_key = 2;
  Supervisor core(puma260(), config);
  RemoteDesk desk(puma260(), config);
  std::uint64_t k = 1;
  std::map<std::uint64_t, std::uint64_t> number;  // each key's session numbers (session = key)
  auto send = [&](std::uint64_t key, proto::TaskRequest r) {
    r.set_session(key);
    r.set_number(++number[key]);
    r.set_key_id(key);
    r.set_role(proto::CR_OPERATOR);
    return desk.accept(r, core.background(), k++);
  };
  auto define = [&](std::uint64_t key, const std::string& name) {
    proto::TaskRequest r = trackUpdate(0, 0);
    r.mutable_transform()->set_name(name);
    return send(key, r);
  };
  auto forget = [&](std::uint64_t key, const std::string& name) {
    proto::TaskRequest r;
    r.mutable_forget()->set_kind(proto::Forget::FK_TRANSFORM);
    r.mutable_forget()->set_name(name);
    return send(key, r);
  };
  for (std::uint64_t key = 1; key <= 4; ++key)
    for (int i = 0; i < 2; ++i)
      ASSERT_TRUE(define(key, "k" + std::to_string(key) + "n" + std::to_string(i)).accepted());
  EXPECT_EQ(core.world().transformNames(), 8u);
  const proto::TaskReply full = define(5, "k5n0");
  EXPECT_FALSE(full.accepted());
  EXPECT_EQ(full.code(), proto::RC_TABLE_FULL) << full.reason();
  // Key 2 may not forget key 1's name, nor one it never made; it forgets its own.
  const proto::TaskReply theirs = forget(2, "k1n0");
  EXPECT_FALSE(theirs.accepted());
  EXPECT_EQ(theirs.code(), proto::RC_NOT_PERMITTED) << theirs.reason();
  EXPECT_NE(core.world().findTransform("k1n0"), -1);
  EXPECT_EQ(forget(2, "nothing").code(), proto::RC_UNKNOWN_NAME);
  ASSERT_TRUE(forget(2, "k2n0").accepted());
  EXPECT_EQ(core.world().findTransform("k2n0"), -1);
  // The room is back for anyone, and key 2's own budget with it.
  EXPECT_TRUE(define(5, "k5n0").accepted());
  ASSERT_TRUE(forget(2, "k2n1").accepted());
  EXPECT_TRUE(define(2, "k2n2").accepted());
  EXPECT_EQ(core.world().transformNames(), 8u);
}

TEST(Link, TheBridgeStampsEachRequestWithItsKeyWhateverTheSession) {
  Network net(FaultRates{}, 1);
  std::vector<std::uint64_t> keys;
  net.on_request = [&](const proto::TaskRequest& r) { keys.push_back(r.key_id()); };
  ClientLinkCore one(net.operatorId(), 1, LinkOptions{}), two(net.operatorId(), 2, LinkOptions{});
  ClientLinkCore other(net.keys.identity(net.keys.observer), 3, LinkOptions{});
  net.request(one, trackUpdate(0, 1), "a");
  net.request(two, trackUpdate(0, 1), "b");
  net.request(other, trackUpdate(0, 1), "c");
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_NE(keys[0], 0u);
  EXPECT_EQ(keys[0], keys[1]);
  EXPECT_NE(keys[0], keys[2]);
}

TEST(RemoteDesk, RemembersABoundedNumberOfClientsAndKeepsTheTasksOwner) {
  Supervisor core(puma260(), SupervisorConfig{});
  RemoteDesk desk(puma260(), SupervisorConfig{});
  proto::TaskRequest begin = operatorRequest(1, 1);
  begin.mutable_begin()->set_name("owner");
  ASSERT_TRUE(desk.accept(begin, core.background(), 1).accepted());
  std::uint64_t k = 2;
  for (std::uint64_t s = 2; s <= RemoteDesk::kMaxSessions + 100; ++s) {
    proto::TaskRequest t = trackUpdate(s, 1);
    t.set_role(proto::CR_OPERATOR);
    desk.accept(t, core.background(), k++);
  }
  EXPECT_EQ(desk.sessions(), RemoteDesk::kMaxSessions);
  // The owner, idle longest, is still known: its next request is its second.
  proto::TaskRequest t = trackUpdate(1, 2);
  t.set_role(proto::CR_OPERATOR);
  const proto::TaskReply r = desk.accept(t, core.background(), k);
  EXPECT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.handled(), 2u);
}

}  // namespace
}  // namespace rfms
