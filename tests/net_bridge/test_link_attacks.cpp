// The link attacked from another socket: each attack an outsider (or another client) tried on the
// unauthenticated link, repeated on the bridge's core. Each must be refused and counted, and the
// victim's session must go on as if nothing had happened.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>

#include "tests/net_bridge/simulated_link.hpp"

namespace rfms {
namespace {

using test::limits;
using test::Network;
using test::trackUpdate;

// The datagrams the victim's link sends for one request, and those it gets, as an eavesdropper
// records them.
struct Capture {
  std::vector<std::string> sent, received;
};

// Runs one request of `link` from `peer`, recording what it sent.
proto::TaskReply recorded(Network& net, ClientLinkCore& link, const proto::TaskRequest& r, const std::string& peer,
                          Capture& capture) {
  link.begin(proto::FT_REG, r.SerializeAsString());
  std::string d;
  std::vector<Outgoing> out;
  for (int i = 0; i < 10 && link.busy(); ++i) {
    if (!link.due(net.now, d)) net.now = link.nextSend();
    if (!link.due(net.now, d)) continue;
    capture.sent.push_back(d);
    net.bridge->receive(peer, d, out, net.nowNs());
    net.serve(out);
    for (const Outgoing& o : out) {
      capture.received.push_back(o.datagram);
      link.receive(o.datagram);
    }
    out.clear();
  }
  proto::TaskReply reply;
  EXPECT_FALSE(link.busy());
  EXPECT_TRUE(reply.ParseFromString(link.answer()));
  return reply;
}

// A REG for `session` at `count`, signed with `key` (which is not the session's).
std::string forgedReg(std::uint64_t session, std::uint64_t count, const proto::TaskRequest& r, const Key& key) {
  proto::LinkFrame f;
  f.set_type(proto::FT_REG);
  f.set_session(session);
  f.set_count(count);
  f.set_seq(static_cast<std::uint32_t>(count & 1u));
  f.set_payload(r.SerializeAsString());
  return encodeDatagram(f, key);
}

// A client's handshake as it goes over the wire: its HELLO, which the bridge answers, and the AUTH
// it sends then, not yet delivered (empty when the handshake went wrong).
struct RecordedHandshake {
  std::string hello, auth;
};

RecordedHandshake recordHandshake(Network& net, ClientLinkCore& link, const std::string& peer) {
  RecordedHandshake h;
  link.begin(proto::FT_SENDREQ, "");
  EXPECT_TRUE(link.due(net.now, h.hello));
  std::vector<Outgoing> out;
  net.bridge->receive(peer, h.hello, out, net.nowNs());
  EXPECT_EQ(out.size(), 1u);
  if (out.size() != 1 || link.receive(out[0].datagram) != ClientLinkCore::Event::kHandshake ||
      !link.due(net.now, h.auth))
    h.auth.clear();
  return h;
}

proto::TaskRequest beginTask(std::uint64_t number) {
  proto::TaskRequest r;
  r.set_number(number);
  r.mutable_begin()->set_name("victim's");
  return r;
}

TEST(LinkAttack, AFrameInAnotherSessionsNameIsForgedAndChangesNothing) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  ASSERT_TRUE(net.request(victim, trackUpdate(0, 2), "victim").accepted());
  // The session id and counter are in clear; the attacker has a key of its own (an allowed
  // operator's session) and a random one. Neither signs for the victim's session.
  ClientLinkCore attacker(net.operatorId(), 8, LinkOptions{});
  ASSERT_TRUE(net.request(attacker, trackUpdate(0, 1), "attacker").accepted());
  Key random{};
  randomBytes(random.data(), random.size());
  proto::TaskRequest move;
  move.set_number(3);
  move.mutable_control()->set_command(proto::CC_CALIBRATE);
  std::vector<Outgoing> out;
  for (std::uint64_t count : {victim.linkSession() == 0 ? 0ull : 4ull, 5ull, 1'000'004ull, ~0ull - 1}) {
    net.bridge->receive("attacker", forgedReg(victim.linkSession(), count, move, random), out, net.nowNs());
    net.serve(out);
  }
  EXPECT_TRUE(out.empty()) << "a forged frame was answered";
  EXPECT_EQ(net.bridge->counters().forged(), 4u);
  EXPECT_EQ(net.core.core().rtstate(), proto::RT_IDLE);
  // The victim's own request 3 is applied, with its own answer, and its session goes on.
  const proto::TaskReply third = net.request(victim, trackUpdate(0, 3), "victim");
  EXPECT_TRUE(third.accepted());
  EXPECT_EQ(third.handled(), 3u);
  const proto::TaskReply end = [&] {
    proto::TaskRequest r;
    r.set_number(4);
    r.mutable_end();
    return net.request(victim, r, "victim");
  }();
  EXPECT_TRUE(end.accepted()) << end.reason();
  EXPECT_EQ(net.desk.sessions(), 2u);
}

TEST(LinkAttack, AReplayedFrameFromAnotherAddressStealsNoAnswerAndAppliesNothingAgain) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  Capture capture;
  ASSERT_TRUE(recorded(net, victim, beginTask(1), "victim", capture).accepted());
  ASSERT_FALSE(capture.sent.empty());
  const std::size_t applied = net.desk.sessions();
  std::vector<Outgoing> out;
  std::size_t bytes_in = 0;
  for (int i = 0; i < 100; ++i)
    for (const std::string& d : capture.sent) {
      const std::size_t before = out.size();
      net.bridge->receive("attacker", d, out, net.nowNs());
      bytes_in += d.size();
      // No answer to the replayer's address is larger than three times what it answers.
      for (std::size_t k = before; k < out.size(); ++k) EXPECT_LE(out[k].datagram.size(), 3 * d.size());
    }
  net.serve(out);
  // A replayed HELLO gets a challenge, as any HELLO does (of no use without the key, and bound to
  // the replayer's address); the AUTH is refused (its challenge was the victim's address's); a
  // replayed frame gets at most a RETRY, which only the key holder can answer. No ACK at all.
  std::size_t bytes_out = 0;
  for (const Outgoing& o : out) {
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(o.datagram, f), Datagram::kOk);
    if (o.peer != "attacker") continue;
    bytes_out += o.datagram.size();
    EXPECT_NE(f.type(), proto::FT_ACK) << "the replayer got an answer";
  }
  EXPECT_LE(bytes_out, 3 * bytes_in);
  std::printf("replayer: %zu bytes in, %zu bytes out (%.2fx)\n", bytes_in, bytes_out,
              static_cast<double>(bytes_out) / static_cast<double>(bytes_in));
  EXPECT_GT(net.bridge->counters().retransmissions(), 0u);
  EXPECT_EQ(net.desk.sessions(), applied);
  // The victim's next request goes where it always did.
  const proto::TaskReply next = net.request(victim, trackUpdate(0, 2), "victim");
  EXPECT_TRUE(next.accepted());
  EXPECT_EQ(next.handled(), 2u);
}

// The refusal is checksummed (the bridge holds no key for a stranger), so the client takes it as
// final only when it comes again and again with no other answer: kFinalRefusals HELLOs.
TEST(LinkAttack, AKeyTheBridgeDoesNotAdmitIsRefusedAtTheHelloWithTheReason) {
  Network net(FaultRates{}, 1);
  ClientLinkCore stranger(net.keys.identity(net.keys.stranger), 9, LinkOptions{});
  stranger.begin(proto::FT_SENDREQ, "");
  net.exchange(stranger, "stranger");
  EXPECT_TRUE(stranger.failed());
  EXPECT_NE(stranger.failure().find("not among the bridge's allowed keys"), std::string::npos) << stranger.failure();
  EXPECT_EQ(net.bridge->sessions(), 0u);
  EXPECT_EQ(net.bridge->counters().refused(), static_cast<std::uint64_t>(ClientLinkCore::kFinalRefusals));
}

// What an attacker on the path can forge of a refusal: a checksummed REFUSE naming the client's
// HELLO nonce, or its open session and count, all of them in clear.
std::string forgedRefusal(proto::RefuseCode code, const std::string& nonce, std::uint64_t session = 0,
                          std::uint64_t count = 0) {
  proto::LinkFrame of;
  of.set_session(session);
  of.set_count(count);
  if (!nonce.empty()) of.mutable_handshake()->set_client_nonce(nonce);
  return encodeDatagram(refusalOf(of, code, "forged by an attacker"));
}

// A forged final refusal arriving before the bridge's own answer: the client notes it and waits;
// the CHALLENGE comes in time and the client goes on, with no failure and no extra try.
TEST(LinkAttack, AForgedFinalRefusalOfAHelloCostsTheClientNothing) {
  for (const proto::RefuseCode code : {proto::RF_UNKNOWN_KEY, proto::RF_VERSION}) {
    Network net(FaultRates{}, 1);
    ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
    victim.begin(proto::FT_REG, trackUpdate(0, 1).SerializeAsString());
    std::string hello;
    ASSERT_TRUE(victim.due(net.now, hello));
    proto::LinkFrame h;
    ASSERT_EQ(decodeDatagram(hello, h), Datagram::kOk);
    EXPECT_EQ(victim.receive(forgedRefusal(code, h.handshake().client_nonce())), ClientLinkCore::Event::kRefusalNoted);
    EXPECT_FALSE(victim.failed());
    std::vector<Outgoing> out;
    net.bridge->receive("victim", hello, out, net.nowNs());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kHandshake);
    ASSERT_EQ(net.exchange(victim, "victim"), ClientLinkCore::Event::kAcked) << victim.failure();
    proto::TaskReply reply;
    ASSERT_TRUE(reply.ParseFromString(victim.answer()));
    EXPECT_TRUE(reply.accepted());
    EXPECT_EQ(victim.retransmissions(), 0u);
  }
}

// Issue 54's two forgeries that ended a client. (1) The bridge's answers to one frame dropped for
// three sends while RF_UNKNOWN_KEY is forged for the frame each time: the bridge never refuses a
// session's frame so, so the forgery is passed over and the client resends until an answer gets
// through. (2) After a bridge restart, RF_UNKNOWN_KEY forged after each genuine RF_UNKNOWN_SESSION:
// the first refusal of a wait is the one that counts, and the new handshake's CHALLENGE wins.
TEST(LinkAttack, AForgedFinalRefusalOfAnOpenSessionsFrameIsPassedOver) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  victim.begin(proto::FT_REG, trackUpdate(0, 2).SerializeAsString());
  std::string frame;
  for (int send = 0; send < 3; ++send) {
    if (!victim.due(net.now, frame)) {
      net.now = victim.nextSend();
      ASSERT_TRUE(victim.due(net.now, frame)) << send;
    }
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(frame, f), Datagram::kOk);
    EXPECT_EQ(victim.receive(forgedRefusal(proto::RF_UNKNOWN_KEY, "", f.session(), f.count())),
              ClientLinkCore::Event::kStale);
    net.now = victim.nextSend();  // the bridge's answer is dropped
  }
  ASSERT_EQ(net.exchange(victim, "victim"), ClientLinkCore::Event::kAcked) << victim.failure();
  EXPECT_FALSE(victim.failed());

  // (2): the bridge restarts; each genuine RF_UNKNOWN_SESSION is followed by a forged RF_UNKNOWN_KEY.
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits());
  victim.begin(proto::FT_REG, trackUpdate(0, 3).SerializeAsString());
  for (int round = 0; round < 20 && victim.busy() && !victim.failed(); ++round) {
    if (!victim.due(net.now, frame)) {
      net.now = victim.nextSend();
      continue;
    }
    std::vector<Outgoing> out;
    net.bridge->receive("victim", frame, out, net.nowNs());
    net.serve(out);
    for (const Outgoing& o : out) {
      proto::LinkFrame f;
      ASSERT_EQ(decodeDatagram(o.datagram, f), Datagram::kOk);
      victim.receive(o.datagram);
      if (f.type() == proto::FT_REFUSE)
        victim.receive(forgedRefusal(proto::RF_UNKNOWN_KEY, f.handshake().client_nonce(), f.session(), f.count()));
    }
  }
  EXPECT_FALSE(victim.failed()) << victim.failure();
  EXPECT_FALSE(victim.busy());
}

// A forged RF_UNKNOWN_SESSION naming an open session and the frame in flight, ahead of the ACK:
// the session goes on, no handshake, no retry.
TEST(LinkAttack, AForgedUnknownSessionCostsTheClientNeitherItsSessionNorARetry) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  const std::uint64_t handshakes = net.bridge->counters().handshakes();
  for (std::uint64_t number = 2; number < 12; ++number) {
    victim.begin(proto::FT_REG, trackUpdate(0, number).SerializeAsString());
    std::string frame;
    ASSERT_TRUE(victim.due(net.now, frame));
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(frame, f), Datagram::kOk);
    EXPECT_EQ(victim.receive(forgedRefusal(proto::RF_UNKNOWN_SESSION, "", f.session(), f.count())),
              ClientLinkCore::Event::kRefusalNoted);
    std::vector<Outgoing> out;
    net.bridge->receive("victim", frame, out, net.nowNs());
    net.serve(out);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kAcked);
  }
  EXPECT_EQ(net.bridge->counters().handshakes(), handshakes);
  EXPECT_EQ(victim.handshakes(), 1u);
  EXPECT_EQ(victim.retransmissions(), 0u);
}

// The bridge's answer later than a timeout (a slow supervisor), a forged RF_UNKNOWN_SESSION in each
// wait: the client resends in its session, and keeps it, until kFinalRefusals waits in a row end
// refused; the answer that comes before then wins.
TEST(LinkAttack, ASlowAnswerWithAForgedUnknownSessionInEachWaitKeepsTheSession) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  victim.begin(proto::FT_REG, trackUpdate(0, 2).SerializeAsString());
  std::string frame;
  for (int wait = 1; wait < ClientLinkCore::kFinalRefusals; ++wait) {
    ASSERT_TRUE(victim.due(net.now, frame));
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(frame, f), Datagram::kOk);
    ASSERT_EQ(f.type(), proto::FT_REG) << "wait " << wait << " ended in a new handshake";
    EXPECT_EQ(victim.receive(forgedRefusal(proto::RF_UNKNOWN_SESSION, "", f.session(), f.count())),
              ClientLinkCore::Event::kRefusalNoted);
    net.now = victim.nextSend();  // no answer this wait
  }
  ASSERT_TRUE(victim.due(net.now, frame));  // the last resend before the refusal would count
  std::vector<Outgoing> out;
  net.bridge->receive("victim", frame, out, net.nowNs());
  net.serve(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kAcked);
  EXPECT_EQ(victim.handshakes(), 1u);
}

// Where the bridge holds the handshake's keys it signs its refusal, and the client acts at once; a
// REFUSE with a MAC under any other key is forged and ignored.
TEST(LinkAttack, ASignedRefusalIsActedOnAtOnceAndAForgedSignatureIsNot) {
  Network net(FaultRates{}, 1);
  // The bridge's handshake budget spent: the next AUTH is refused RF_FULL, signed.
  BridgeLimits no_room = limits();
  no_room.spent_challenges = 0;
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), no_room);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  const RecordedHandshake h = recordHandshake(net, victim, "victim");
  ASSERT_FALSE(h.auth.empty());
  std::vector<Outgoing> out;
  net.bridge->receive("victim", h.auth, out, net.nowNs());
  ASSERT_EQ(out.size(), 1u);
  proto::LinkFrame refusal;
  Trailer trailer = Trailer::kCrc;
  ASSERT_EQ(decodeDatagram(out[0].datagram, refusal, &trailer), Datagram::kOk);
  EXPECT_EQ(refusal.refuse(), proto::RF_FULL);
  EXPECT_EQ(trailer, Trailer::kMac);
  // The same refusal signed with another key first: not the bridge's word.
  Key other{};
  randomBytes(other.data(), other.size());
  EXPECT_EQ(victim.receive(encodeDatagram(refusal, other)), ClientLinkCore::Event::kStale);
  EXPECT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kHandshake);  // HELLO again, after a timeout
}

// Keys replaced while the bridge runs (SIGHUP): a key no longer admitted loses its session at
// once; a key whose role changed keeps its session in the new role; the bridge's own key cannot
// change under its clients.
TEST(LinkAttack, KeysReplacedWhileRunningRevokeAtOnceAndChangeRolesInPlace) {
  Network net(FaultRates{}, 1);
  ClientLinkCore op(net.operatorId(), 7, LinkOptions{}), eye(net.keys.identity(net.keys.observer), 8, LinkOptions{});
  ASSERT_TRUE(net.request(op, beginTask(1), "op").accepted());
  ASSERT_FALSE(net.send(eye, proto::FT_SENDREQ, "", "eye").empty());
  BridgeKeys next;
  next.bridge = net.keys.bridge;
  next.clients.push_back({"op", net.keys.op.public_key, proto::CR_OBSERVER});  // the operator demoted
  std::size_t revoked = 0;
  ASSERT_EQ(net.bridge->replaceKeys(next, revoked), "");
  EXPECT_EQ(revoked, 1u);  // the observer's session
  EXPECT_EQ(net.bridge->sessions(), 1u);
  // The operator's session goes on, as an observer's: it may no longer move the arm.
  proto::TaskRequest calibrate;
  calibrate.set_number(2);
  calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
  const proto::TaskReply r = net.request(op, calibrate, "op");
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_NOT_PERMITTED) << r.reason();
  EXPECT_EQ(op.handshakes(), 1u);
  // The observer's key is refused from now on.
  eye.begin(proto::FT_SENDREQ, "");
  net.exchange(eye, "eye");
  EXPECT_TRUE(eye.failed());
  EXPECT_NE(eye.failure().find("not among the bridge's allowed keys"), std::string::npos) << eye.failure();
  eye.abandon();
  // Another bridge key: refused, nothing changes.
  BridgeKeys other = next;
  other.bridge = KeyPair::generate();
  other.clients.clear();
  EXPECT_NE(net.bridge->replaceKeys(other, revoked).find("restart the bridge"), std::string::npos);
  EXPECT_EQ(net.bridge->sessions(), 1u);
}

// An authentic frame that breaks the protocol in a way no retry mends is refused RF_MALFORMED,
// signed, rather than dropped to leave its client timing out: a count at 2^63, a REG with a
// handshake field, an AUTH whose client session is 0. An unsigned RF_MALFORMED is forged.
TEST(LinkAttack, AnAuthenticFrameThatBreaksTheProtocolIsRefusedSignedNotLeftToTimeOut) {
  Network net(FaultRates{}, 1);
  ClientLinkCore client(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(client, beginTask(1), "client").accepted());
  const SessionKeys& keys = client.sessionKeys();
  auto refusalOf = [&](const std::string& datagram) {
    std::vector<Outgoing> out;
    net.bridge->receive("client", datagram, out, net.nowNs());
    proto::LinkFrame r;
    Trailer trailer = Trailer::kCrc;
    EXPECT_EQ(out.size(), 1u);
    if (out.size() != 1 || decodeDatagram(out[0].datagram, r, &trailer) != Datagram::kOk) return proto::RF_NONE;
    EXPECT_EQ(trailer, Trailer::kMac);
    EXPECT_TRUE(macValid(out[0].datagram, keys.bridge_to_client));
    return r.refuse();
  };
  EXPECT_EQ(
      refusalOf(forgedReg(client.linkSession(), std::uint64_t{1} << 63, trackUpdate(0, 2), keys.client_to_bridge)),
      proto::RF_MALFORMED);
  proto::LinkFrame with_handshake;
  with_handshake.set_type(proto::FT_REG);
  with_handshake.set_session(client.linkSession());
  with_handshake.set_count(100);
  with_handshake.set_payload(trackUpdate(0, 2).SerializeAsString());
  with_handshake.mutable_handshake()->set_version(kLinkVersion);
  EXPECT_EQ(refusalOf(encodeDatagram(with_handshake, keys.client_to_bridge)), proto::RF_MALFORMED);
  EXPECT_EQ(net.desk.sessions(), 1u) << "a malformed frame reached the supervisor";
  // A client whose session number is 0 learns why at once.
  ClientLinkCore zero(net.operatorId(), 0, LinkOptions{});
  zero.begin(proto::FT_SENDREQ, "");
  EXPECT_EQ(net.exchange(zero, "zero"), ClientLinkCore::Event::kRefused);
  EXPECT_NE(zero.failure().find("client_session must not be 0"), std::string::npos) << zero.failure();
  // The same code unsigned: nobody's word.
  ClientLinkCore victim(net.operatorId(), 9, LinkOptions{});
  victim.begin(proto::FT_SENDREQ, "");
  std::string hello;
  ASSERT_TRUE(victim.due(net.now, hello));
  proto::LinkFrame h;
  ASSERT_EQ(decodeDatagram(hello, h), Datagram::kOk);
  EXPECT_EQ(victim.receive(forgedRefusal(proto::RF_MALFORMED, h.handshake().client_nonce())),
            ClientLinkCore::Event::kStale);
}

TEST(LinkAttack, AnObserversKeyLooksAndStopsButCannotMoveTheArm) {
  Network net(FaultRates{}, 1);
  ClientLinkCore eye(net.keys.identity(net.keys.observer), 5, LinkOptions{});
  proto::ArmStatus s;
  ASSERT_TRUE(s.ParseFromString(net.send(eye, proto::FT_SENDREQ, "", "eye")));
  const proto::TaskReply begin = net.request(eye, beginTask(1), "eye");
  EXPECT_FALSE(begin.accepted());
  EXPECT_EQ(begin.code(), proto::RC_NOT_PERMITTED) << begin.reason();
  proto::TaskRequest stop;
  stop.set_number(2);
  stop.mutable_control()->set_command(proto::CC_STOP);
  EXPECT_TRUE(net.request(eye, stop, "eye").accepted());
}

TEST(LinkAttack, AnotherKeyClaimingAClientsSessionNumberReachesNoneOfItsRequests) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 1234, LinkOptions{});
  for (std::uint64_t n = 1; n <= 3; ++n) ASSERT_EQ(net.request(victim, trackUpdate(0, n), "victim").handled(), n);
  // The observer's key with the victim's client session: a session of its own at the supervisor,
  // whose request 3 is not the victim's cached answer.
  ClientLinkCore other(net.keys.identity(net.keys.observer), 1234, LinkOptions{});
  const proto::TaskReply r = net.request(other, trackUpdate(0, 3), "other");
  EXPECT_NE(r.handled(), 3u);
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(net.desk.sessions(), 2u);
  EXPECT_NE(supervisorIdOf(net.keys.op.public_key, 1234), supervisorIdOf(net.keys.observer.public_key, 1234));
}

TEST(LinkAttack, HandshakeFloodsAndStaleProofsLeaveNoState) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  // The victim's handshake as it went over the wire.
  const auto [hello, auth] = recordHandshake(net, victim, "victim");
  ASSERT_FALSE(auth.empty());
  std::vector<Outgoing> out;
  // 100,000 copies of the HELLO: each gets a challenge, none is remembered.
  for (int i = 0; i < 100'000; ++i) net.bridge->receive("flood", hello, out, net.nowNs());
  EXPECT_EQ(out.size(), 100'000u);
  EXPECT_EQ(net.bridge->sessions(), 0u);
  out.clear();
  // The AUTH replayed 11 s later (the challenge has expired) opens nothing.
  net.now += 11.0;
  net.bridge->receive("replayer", auth, out, net.nowNs());
  ASSERT_EQ(out.size(), 1u);
  proto::LinkFrame refusal;
  ASSERT_EQ(decodeDatagram(out[0].datagram, refusal), Datagram::kOk);
  EXPECT_EQ(refusal.refuse(), proto::RF_STALE_CHALLENGE);
  EXPECT_EQ(net.bridge->sessions(), 0u);
  // So does a challenge from a bridge that has restarted since.
  net.now -= 11.0;
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits());
  out.clear();
  net.bridge->receive("replayer", auth, out, net.nowNs());
  EXPECT_EQ(net.bridge->sessions(), 0u);
  // The victim, told its challenge is stale (the refusal names its nonce; checksummed, since the
  // restarted bridge cannot know the handshake's keys), says HELLO again once its wait for an
  // answer runs out, and gets through.
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kRefusalNoted);
  ASSERT_EQ(net.exchange(victim, "victim"), ClientLinkCore::Event::kAcked);
  proto::ArmStatus s;
  EXPECT_TRUE(s.ParseFromString(victim.answer()));
  EXPECT_EQ(net.bridge->sessions(), 1u);
}

TEST(LinkAttack, ABridgeThatIsNotTheOneAClientKnowsGetsNoProof) {
  Network net(FaultRates{}, 1);
  test::CellKeys impostor_keys;
  impostor_keys.op = net.keys.op;  // it admits the client's key, but its own key is another
  BridgeCore impostor(impostor_keys.allowed(), limits());
  ClientLinkCore client(net.operatorId(), 7, LinkOptions{});
  client.begin(proto::FT_SENDREQ, "");
  std::string hello;
  ASSERT_TRUE(client.due(0.0, hello));
  std::vector<Outgoing> out;
  impostor.receive("client", hello, out, net.nowNs());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(client.receive(out[0].datagram), ClientLinkCore::Event::kStale);
  std::string again;
  EXPECT_FALSE(client.due(0.0, again)) << "the client answered an impostor's challenge";
}

TEST(LinkAttack, SessionsAreBoundedAndAnEvictedClientHandshakesAgainWithoutLosingARequest) {
  Network net(FaultRates{}, 1);
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), limits(64, 2));
  ClientLinkCore a(net.operatorId(), 1, LinkOptions{}), b(net.operatorId(), 2, LinkOptions{}),
      c(net.operatorId(), 3, LinkOptions{});
  EXPECT_EQ(net.request(a, trackUpdate(0, 1), "a").handled(), 1u);
  EXPECT_EQ(net.request(b, trackUpdate(0, 1), "b").handled(), 1u);
  EXPECT_EQ(net.request(c, trackUpdate(0, 1), "c").handled(), 1u);  // a, the least recently used, goes
  EXPECT_EQ(net.bridge->sessions(), 2u);
  EXPECT_EQ(net.bridge->counters().evicted(), 1u);
  const proto::TaskReply again = net.request(a, trackUpdate(0, 2), "a");
  EXPECT_TRUE(again.accepted());
  EXPECT_EQ(again.handled(), 2u);
  EXPECT_EQ(a.handshakes(), 2u);
  EXPECT_GE(net.bridge->counters().unknown_sessions(), 1u);
}

TEST(LinkAttack, AFrameOfSessionZeroOrOfNoSessionIsRefusedAndAppliesNothing) {
  Network net(FaultRates{}, 1);
  Key random{};
  randomBytes(random.data(), random.size());
  std::vector<Outgoing> out;
  for (int repeat = 0; repeat < 3; ++repeat)
    net.bridge->receive("x", forgedReg(0, 1, trackUpdate(0, 1), random), out, net.nowNs());
  net.serve(out);
  EXPECT_EQ(net.desk.sessions(), 0u);
  EXPECT_EQ(net.bridge->counters().unknown_sessions(), 3u);
  for (const Outgoing& o : out) {
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(o.datagram, f), Datagram::kOk);
    EXPECT_EQ(f.type(), proto::FT_REFUSE);
    EXPECT_EQ(f.refuse(), proto::RF_UNKNOWN_SESSION);
  }
}

TEST(LinkAttack, AnOversizeRequestIsRefusedByItsSizeAndNobodyKeepsItsBody) {
  Network net(FaultRates{}, 1);
  ClientLinkCore link(net.operatorId(), 7, LinkOptions{});
  proto::TaskRequest huge = trackUpdate(0, 1);
  huge.mutable_transform()->set_name(std::string(20000, 'n'));
  const proto::TaskReply r = net.request(link, huge, "c");
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_INVALID) << r.reason();
  EXPECT_NE(r.reason().find("(bridge_max_request)"), std::string::npos) << r.reason();
  EXPECT_EQ(r.handled(), 1u);  // it took its number: the next request is not refused as skipping ahead
  const proto::TaskReply next = net.request(link, trackUpdate(0, 2), "c");
  EXPECT_TRUE(next.accepted()) << next.reason();
}

// An eavesdropper replays a client's AUTH after the client has handshaken again (its first
// session replaced): the AUTH is younger than the challenge age, but its challenge has opened a
// session once, so it opens nothing, and the client's live session goes on without a new handshake.
TEST(LinkAttack, AReplayedAuthOpensNothingAndTheLiveSessionGoesOn) {
  Network net(FaultRates{}, 1);
  ClientLinkCore first(net.operatorId(), 7, LinkOptions{});
  const std::string auth = recordHandshake(net, first, "victim").auth;
  ASSERT_FALSE(auth.empty());
  std::vector<Outgoing> out;
  net.bridge->receive("victim", auth, out, net.nowNs());
  ASSERT_EQ(net.bridge->sessions(), 1u);
  out.clear();
  // The client handshakes again (a restarted link, the same client session): its first session
  // is replaced.
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, trackUpdate(0, 1), "victim").accepted());
  const std::uint64_t handshakes = net.bridge->counters().handshakes();
  ASSERT_EQ(handshakes, 2u);
  // Two seconds later, the first AUTH again, from the attacker and from the victim's own address.
  net.now += 2.0;
  for (const char* from : {"attacker", "victim"}) net.bridge->receive(from, auth, out, net.nowNs());
  net.serve(out);
  EXPECT_EQ(net.bridge->counters().handshakes(), handshakes) << "a replayed AUTH opened a session";
  EXPECT_EQ(net.bridge->sessions(), 1u);
  for (const Outgoing& o : out) {
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(o.datagram, f), Datagram::kOk);
    EXPECT_EQ(f.refuse(), proto::RF_STALE_CHALLENGE);
    // The victim's open link ignores a refusal of a handshake it is not making.
    if (o.peer == "victim") {
      EXPECT_NE(victim.receive(o.datagram), ClientLinkCore::Event::kRefused);
    }
  }
  const proto::TaskReply next = net.request(victim, trackUpdate(0, 2), "victim");
  EXPECT_TRUE(next.accepted());
  EXPECT_EQ(next.handled(), 2u);
  EXPECT_EQ(net.bridge->counters().handshakes(), handshakes) << "the victim had to handshake again";
}

// An attacker on the path sends its copy of a client's new frame before the client's own arrives.
// The request is applied (it is the client's, signed), but its answer goes to the address the
// session proved, the client's, and the attacker's address gets at most a RETRY no larger than
// three times its copy. The client loses no answer, needs no retry, and nothing is applied twice.
TEST(LinkAttack, AnAttackersFirstCopyOfAFrameCostsTheClientNoAnswer) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  const std::size_t applied = net.desk.sessions();
  for (std::uint64_t n = 2; n < 202; ++n) {
    victim.begin(proto::FT_REG, trackUpdate(0, n).SerializeAsString());
    std::string d;
    ASSERT_TRUE(victim.due(net.now, d));
    std::vector<Outgoing> out;
    net.bridge->receive("attacker", d, out, net.nowNs());
    // Half of them: the client's copy while the supervisor still has the request, as over a real
    // network; the rest after the answer.
    if (n % 2 == 0) net.bridge->receive("victim", d, out, net.nowNs());
    net.serve(out);
    if (n % 2 == 1) net.bridge->receive("victim", d, out, net.nowNs());
    bool acked = false;
    for (const Outgoing& o : out) {
      if (o.peer == "victim" && victim.receive(o.datagram) == ClientLinkCore::Event::kAcked) acked = true;
      if (o.peer != "attacker") continue;
      proto::LinkFrame f;
      ASSERT_EQ(decodeDatagram(o.datagram, f), Datagram::kOk);
      EXPECT_EQ(f.type(), proto::FT_RETRY);
      EXPECT_LE(o.datagram.size(), 3 * d.size());
    }
    ASSERT_TRUE(acked) << "request " << n << ": the client got no answer";
    proto::TaskReply reply;
    ASSERT_TRUE(reply.ParseFromString(victim.answer()));
    EXPECT_EQ(reply.handled(), n);
  }
  EXPECT_EQ(victim.retransmissions(), 0u);
  EXPECT_EQ(net.desk.sessions(), applied);
}

// A client whose address changed (a NAT's new mapping) is not answered at the new address until
// it proves it: the bridge sends a RETRY there, the client sends its frame again with the RETRY's
// token, and the answer follows it; later frames from there need nothing more.
TEST(LinkAttack, AClientThatMovesProvesItsNewAddressWithOneRetry) {
  Network net(FaultRates{}, 1);
  ClientLinkCore client(net.operatorId(), 9, LinkOptions{});
  ASSERT_TRUE(net.request(client, beginTask(1), "here").accepted());
  const proto::TaskReply moved = net.request(client, trackUpdate(0, 2), "there");
  EXPECT_TRUE(moved.accepted());
  EXPECT_EQ(moved.handled(), 2u);
  EXPECT_EQ(client.retransmissions(), 0u);  // the RETRY's resend is not a retry
  EXPECT_EQ(net.bridge->counters().retries_sent(), 1u);
  EXPECT_TRUE(net.request(client, trackUpdate(0, 3), "there").accepted());
  EXPECT_EQ(net.bridge->counters().retries_sent(), 1u);
  // A token is the address's: copied to another address, it proves nothing there.
  EXPECT_TRUE(net.request(client, trackUpdate(0, 4), "elsewhere").accepted());
  EXPECT_EQ(net.bridge->counters().retries_sent(), 2u);
}

// One key handshaking without pause (an observer's at 410 a second took the bridge's whole budget
// of handshakes, and 3 of 15 operators' handshakes failed) meets its own share, a sixteenth of the
// budget, and every other key still gets in.
TEST(LinkAttack, OneKeysHandshakeFloodLeavesRoomForEveryOtherKey) {
  BridgeLimits l = limits();
  l.spent_challenges = 256;  // the observer's share: 16
  Network net(FaultRates{}, 1);
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), l);
  int opened = 0;
  for (int i = 0; i < 100; ++i) {  // all within one challenge age: nothing expires meanwhile
    ClientLinkCore greedy(net.keys.identity(net.keys.observer), 1000 + static_cast<std::uint64_t>(i), LinkOptions{});
    const RecordedHandshake h = recordHandshake(net, greedy, "greedy");
    ASSERT_FALSE(h.auth.empty());
    std::vector<Outgoing> out;
    net.bridge->receive("greedy", h.auth, out, net.nowNs());
    ASSERT_EQ(out.size(), 1u);
    proto::LinkFrame f;
    ASSERT_EQ(decodeDatagram(out[0].datagram, f), Datagram::kOk);
    opened += f.type() == proto::FT_ACK;
    if (f.type() != proto::FT_ACK) {
      EXPECT_EQ(f.refuse(), proto::RF_FULL);
    }
  }
  EXPECT_EQ(opened, 16);
  for (int i = 0; i < 15; ++i) {
    ClientLinkCore op(net.operatorId(), 5000 + static_cast<std::uint64_t>(i), LinkOptions{});
    EXPECT_TRUE(net.request(op, beginTask(1), "operator " + std::to_string(i)).accepted()) << i;
  }
}

// Issue 54: no answer to an address a session has not proven is larger than three times what came
// from it, and no refusal longer than what it refuses. Each kind of datagram an outsider can send
// or copy, and the largest answer the bridge gives it; the table is printed for the docs.
TEST(LinkAttack, NoAnswerToAnUnprovenAddressIsLargerThanThreeTimesWhatCameFromIt) {
  Network net(FaultRates{}, 1);
  ClientLinkCore victim(net.operatorId(), 7, LinkOptions{});
  ASSERT_TRUE(net.request(victim, beginTask(1), "victim").accepted());
  // The victim's status: its ACK carries the ArmStatus, the largest answer the bridge caches.
  Capture capture;
  victim.begin(proto::FT_SENDREQ, "");
  std::string sendreq;
  ASSERT_TRUE(victim.due(net.now, sendreq));
  std::vector<Outgoing> out;
  net.bridge->receive("victim", sendreq, out, net.nowNs());
  net.serve(out);
  ASSERT_EQ(out.size(), 1u);
  const std::size_t status_ack = out[0].datagram.size();
  ASSERT_EQ(victim.receive(out[0].datagram), ClientLinkCore::Event::kAcked);

  ClientLinkCore other(net.operatorId(), 8, LinkOptions{});
  const RecordedHandshake h = recordHandshake(net, other, "other");
  proto::LinkFrame hello;
  ASSERT_EQ(decodeDatagram(h.hello, hello), Datagram::kOk);
  proto::LinkFrame big_hello = hello;
  big_hello.mutable_handshake()->set_version(1);
  big_hello.mutable_handshake()->set_client_nonce(std::string(60'000, 'n'));
  proto::LinkFrame big_reg;
  big_reg.set_type(proto::FT_REG);
  big_reg.set_session(12345);
  big_reg.set_count(2);
  big_reg.set_payload(std::string(60'000, 'r'));
  struct Case {
    const char* what;
    std::string datagram;
  };
  const std::vector<Case> cases{
      {"a HELLO (its CHALLENGE)", h.hello},
      {"a HELLO of another version, 60 kB nonce", encodeDatagram(big_hello)},
      {"a REG of no session, 60 kB", encodeDatagram(big_reg, Key{})},
      {"an AUTH copied to another address", h.auth},
      {"a SENDREQ copied (its ACK: the status)", sendreq},
  };
  std::printf("%-44s %8s %8s %7s\n", "datagram from an unproven address", "bytes in", "out", "factor");
  for (const Case& c : cases) {
    out.clear();
    net.bridge->receive("copier", c.datagram, out, net.nowNs());
    net.serve(out);
    std::size_t largest = 0;
    for (const Outgoing& o : out)
      if (o.peer == "copier") largest = std::max(largest, o.datagram.size());
    std::printf("%-44s %8zu %8zu %6.2fx\n", c.what, c.datagram.size(), largest,
                static_cast<double>(largest) / static_cast<double>(c.datagram.size()));
    EXPECT_LE(largest, 3 * c.datagram.size()) << c.what;
  }
  std::printf("(the status ACK the SENDREQ's copier did not get: %zu bytes)\n", status_ack);
}

// A datagram of another version byte is answered with RF_VERSION only when its CRC holds; random
// bytes get nothing. And however many refusable datagrams come, REFUSEs go out no faster than
// the bridge's rate (200 a second): a sender without a key cannot make the bridge a reflector.
TEST(LinkAttack, GarbageIsNotAnsweredAndRefusalsAreRateLimited) {
  Network net(FaultRates{}, 1);
  std::mt19937_64 rng(42);
  std::vector<Outgoing> out;
  std::string garbage(45, '\0');
  for (int i = 0; i < 74'031; ++i) {
    for (char& c : garbage) c = static_cast<char>(rng());
    if (garbage[0] == 2) garbage[0] = 3;
    net.bridge->receive("reflector", garbage, out, net.nowNs());
  }
  EXPECT_TRUE(out.empty()) << out.size() << " answers to garbage";
  // Checksummed datagrams of version 1: the first 200 are answered, then one in each 5 ms.
  std::string v1 = std::string(1, '\x01') + '\0' + "hello from version 1";
  const auto crc = static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(v1.data()), static_cast<uInt>(v1.size())));
  for (int shift = 24; shift >= 0; shift -= 8) v1.push_back(static_cast<char>((crc >> shift) & 0xffu));
  for (int i = 0; i < 10'000; ++i) net.bridge->receive("reflector", v1, out, net.nowNs());
  EXPECT_EQ(out.size(), 200u);
  proto::LinkFrame f;
  ASSERT_EQ(decodeDatagram(out[0].datagram, f), Datagram::kOk);
  EXPECT_EQ(f.refuse(), proto::RF_VERSION);
  EXPECT_EQ(net.bridge->counters().refusals_unsent(), 9'800u);
  out.clear();
  net.now += 0.5;
  for (int i = 0; i < 10'000; ++i) net.bridge->receive("reflector", v1, out, net.nowNs());
  EXPECT_EQ(out.size(), 100u);
  // Frames of sessions the bridge does not hold are refused from the same budget.
  out.clear();
  net.now += 1.0;
  for (std::uint64_t session = 1; session <= 1000; ++session)
    net.bridge->receive("reflector", forgedReg(session, 2, beginTask(1), Key{}), out, net.nowNs());
  EXPECT_EQ(out.size(), 200u);
  // A client's own refusal may be among those not sent: it costs that client a retry, no more.
  ClientLinkCore client(net.operatorId(), 7, LinkOptions{});
  net.now += 1.0;
  EXPECT_TRUE(net.request(client, trackUpdate(0, 1), "client").accepted());
}

// Any admitted key could evict every idle session by handshaking over and over (an observer's
// key 600 times evicted 547 sessions). Now a key at its quota gives up its own sessions, and a full
// table one of the key that holds the most: the observer's flood churns only its own, and an
// honest client that pauses keeps its session.
TEST(LinkAttack, AKeysHandshakesEvictOnlyItsOwnSessions) {
  Network net(FaultRates{}, 1);
  BridgeLimits l = limits(64, 16);
  l.sessions_per_key = 4;
  net.bridge = std::make_unique<BridgeCore>(net.keys.allowed(), l);
  std::vector<std::unique_ptr<ClientLinkCore>> honest;
  for (std::uint64_t c = 1; c <= 12; ++c) {
    honest.push_back(std::make_unique<ClientLinkCore>(net.operatorId(), c, LinkOptions{}));
    ASSERT_TRUE(net.request(*honest.back(), trackUpdate(0, 1), "op" + std::to_string(c)).accepted());
  }
  // Twelve sessions of one operator key, past its quota of four: it gave up eight of its own.
  EXPECT_EQ(net.bridge->sessions(), 4u);
  const std::uint64_t evicted_before = net.bridge->counters().evicted();
  // The observer's key handshakes 600 times, each a client session of its own.
  const LinkIdentity eye = net.keys.identity(net.keys.observer);
  for (std::uint64_t c = 1; c <= 600; ++c) {
    ClientLinkCore observer(eye, c, LinkOptions{});
    observer.begin(proto::FT_SENDREQ, "");
    ASSERT_EQ(net.exchange(observer, "eye"), ClientLinkCore::Event::kAcked);
  }
  EXPECT_EQ(net.bridge->sessions(), 8u);  // the operator's four and the observer's four
  EXPECT_EQ(net.bridge->counters().evicted() - evicted_before, 596u) << "only the observer's own went";
  // The operator's newest four clients go on in their sessions, no new handshake.
  const std::uint64_t handshakes = net.bridge->counters().handshakes();
  for (std::size_t i = 8; i < honest.size(); ++i) {
    const proto::TaskReply r = net.request(*honest[i], trackUpdate(0, 2), "op" + std::to_string(i + 1));
    EXPECT_TRUE(r.accepted()) << r.reason();
  }
  EXPECT_EQ(net.bridge->counters().handshakes(), handshakes) << "an honest client lost its session";
}

}  // namespace
}  // namespace rfms
