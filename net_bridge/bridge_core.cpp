#include "net_bridge/bridge_core.hpp"

#include <sodium.h>

#include <algorithm>
#include <iterator>

#include "net_bridge/link_frame.hpp"

namespace rfms {

namespace {

// What a client of another version is told: the number from kLinkVersion, its one home.
const std::string& speaksVersion() {
  static const std::string text = "this bridge speaks link version " + std::to_string(kLinkVersion);
  return text;
}

constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 63;

bool sized(const std::string& bytes, std::size_t n) { return bytes.size() == n; }

Key keyOf(const std::string& bytes) {
  Key k;
  std::copy(bytes.begin(), bytes.end(), k.begin());
  return k;
}

Nonce nonceOf(const std::string& bytes) {
  Nonce n;
  std::copy(bytes.begin(), bytes.end(), n.begin());
  return n;
}

std::string bigEndian(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) s[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xffu);
  return s;
}

}  // namespace

std::uint64_t supervisorIdOf(const Key& client_key, std::uint64_t client_session) {
  std::string message(reinterpret_cast<const char*>(client_key.data()), client_key.size());
  message += bigEndian(client_session);
  const Key h = keyedHash(Key{}, message);
  std::uint64_t id = 0;
  for (int i = 0; i < 8; ++i) id = (id << 8) | h[static_cast<std::size_t>(i)];
  return id == 0 ? 1 : id;
}

BridgeCore::BridgeCore(BridgeKeys keys, const BridgeLimits& limits)
    : keys_(std::move(keys)), limits_(limits), refusal_tokens_(limits.refusals_per_s) {
  randomBytes(cookie_secret_.data(), cookie_secret_.size());
}

std::string BridgeCore::challengeFor(const std::string& client_key, const std::string& nonce, std::uint64_t time_ms,
                                     const std::string& peer) const {
  const Key c = keyedHash(cookie_secret_, client_key + nonce + bigEndian(time_ms) + peer);
  return {reinterpret_cast<const char*>(c.data()), c.size()};
}

std::string BridgeCore::pathToken(std::uint64_t link_id, const std::string& peer, std::int64_t minute) const {
  const Key t =
      keyedHash(cookie_secret_, "path" + bigEndian(link_id) + bigEndian(static_cast<std::uint64_t>(minute)) + peer);
  return {reinterpret_cast<const char*>(t.data()), t.size()};
}

bool BridgeCore::pathTokenValid(std::uint64_t link_id, const std::string& peer, const std::string& token) const {
  if (token.size() != crypto_generichash_BYTES) return false;
  const std::int64_t minute = now_ns_ / 60'000'000'000;
  for (std::int64_t m : {minute, minute - 1}) {
    const std::string expected = pathToken(link_id, peer, m);
    if (sodium_memcmp(expected.data(), token.data(), expected.size()) == 0) return true;
  }
  return false;
}

bool BridgeCore::proven(const Session& s, const std::string& peer) const {
  return std::find(s.proven.begin(), s.proven.end(), peer) != s.proven.end();
}

void BridgeCore::prove(Session& s, const std::string& peer) {
  if (auto it = std::find(s.proven.begin(), s.proven.end(), peer); it != s.proven.end()) s.proven.erase(it);
  if (s.proven.size() >= kProvenAddresses) s.proven.erase(s.proven.begin());
  s.proven.push_back(peer);
  s.peer = peer;
  if (s.unproven_peer == peer) s.unproven_peer.clear();
}

bool BridgeCore::resendAllowed(Session& s) {
  if (now_ns_ > s.resend_filled_ns) {
    s.resend_tokens = std::min(
        kResendsPerS, s.resend_tokens + kResendsPerS * static_cast<double>(now_ns_ - s.resend_filled_ns) * 1e-9);
    s.resend_filled_ns = now_ns_;
  }
  if (s.resend_tokens < 1.0) {
    count(Count::kResendsUnsent);
    return false;
  }
  s.resend_tokens -= 1.0;
  return true;
}

void BridgeCore::retry(Session& s, std::uint64_t link_id, std::uint64_t n, const std::string& peer,
                       std::size_t in_bytes, std::vector<Outgoing>& out) {
  proto::LinkFrame r;
  r.set_type(proto::FT_RETRY);
  r.set_seq(static_cast<std::uint32_t>(n & 1u));
  r.set_count(n);
  r.set_session(link_id);
  r.set_path_token(pathToken(link_id, peer, now_ns_ / 60'000'000'000));
  std::string datagram = encodeDatagram(r, s.keys.bridge_to_client);
  if (datagram.size() > kAmplification * in_bytes || !resendAllowed(s)) return;
  out.push_back({peer, std::move(datagram)});
  count(Count::kFramesOut);
  count(Count::kRetriesSent);
}

// A REFUSE may answer a sender that proved nothing: so that the bridge cannot be made a
// reflector, refusals go out no faster than limits_.refusals_per_s, all senders together. One not
// sent costs its sender only a retry.
void BridgeCore::refuse(const std::string& peer, const proto::LinkFrame& of, proto::RefuseCode code,
                        const std::string& why, std::vector<Outgoing>& out, const Key* sign) {
  const double rate = limits_.refusals_per_s;
  if (now_ns_ > refusal_filled_ns_) {
    refusal_tokens_ = std::min(rate, refusal_tokens_ + rate * static_cast<double>(now_ns_ - refusal_filled_ns_) * 1e-9);
    refusal_filled_ns_ = now_ns_;
  }
  if (refusal_tokens_ < 1.0) {
    count(Count::kRefusalsUnsent);
    return;
  }
  proto::LinkFrame r = refusalOf(of, code, why);
  auto encode = [&] { return sign != nullptr ? encodeDatagram(r, *sign) : encodeDatagram(r); };
  std::string datagram = encode();
  if (datagram.size() > in_bytes_) {
    r.clear_reason();
    datagram = encode();
  }
  if (datagram.size() > in_bytes_) {
    count(Count::kRefusalsUnsent);
    return;
  }
  refusal_tokens_ -= 1.0;
  out.push_back({peer, std::move(datagram)});
  count(Count::kFramesOut);
}

void BridgeCore::ack(Session& s, std::uint64_t link_id, std::uint64_t n, std::string payload,
                     std::vector<Outgoing>& out) {
  proto::LinkFrame a;
  a.set_type(proto::FT_ACK);
  a.set_seq(static_cast<std::uint32_t>(n & 1u));
  a.set_count(n);
  a.set_session(link_id);
  a.set_payload(std::move(payload));
  s.last_ack = encodeDatagram(a, s.keys.bridge_to_client);
  s.last_ack_count = n;
  // To the address the session last proved; the newest frame's sender, when it proved nothing,
  // gets a RETRY instead, so that a client that moved proves its new address at once.
  out.push_back({s.peer, s.last_ack});
  count(Count::kFramesOut);
  if (!s.unproven_peer.empty()) {
    retry(s, link_id, n, s.unproven_peer, s.unproven_bytes, out);
    s.unproven_peer.clear();
  }
}

bool BridgeCore::receive(const std::string& peer, std::string_view datagram, std::vector<Outgoing>& out,
                         std::int64_t now_ns) {
  count(Count::kFramesIn);
  now_ns_ = now_ns;
  in_bytes_ = datagram.size();
  switch (decodeDatagram(datagram, frame_)) {
    case Datagram::kBadChecksum: count(Count::kChecksumFailures); return false;
    case Datagram::kMalformed: count(Count::kMalformed); return false;
    case Datagram::kWrongVersion: {
      // A checksummed datagram of another version (decodeDatagram checked its CRC): its client
      // learns why nothing works, within the refusals' rate.
      count(Count::kRefused);
      proto::LinkFrame none;
      refuse(peer, none, proto::RF_VERSION, speaksVersion(), out);
      return false;
    }
    case Datagram::kOk: break;
  }
  const std::int64_t now_ms = now_ns / 1'000'000;
  switch (frame_.type()) {
    case proto::FT_HELLO: hello(peer, frame_, out, now_ms); return false;  // no state kept: none to remember
    case proto::FT_AUTH: return auth(peer, datagram, frame_, out, now_ms);
    case proto::FT_REG:
    case proto::FT_SENDREQ: return request(peer, datagram, frame_, out, now_ns);
    default: count(Count::kMalformed); return false;  // the bridge never waits for an ACK
  }
}

void BridgeCore::hello(const std::string& peer, const proto::LinkFrame& f, std::vector<Outgoing>& out,
                       std::int64_t now_ms) {
  const proto::Handshake& h = f.handshake();
  if (h.version() != kLinkVersion) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_VERSION, speaksVersion(), out);
    return;
  }
  if (!sized(h.client_key(), 32) || !sized(h.client_nonce(), 24) || f.session() != 0 || f.count() != 0) {
    count(Count::kMalformed);
    return;
  }
  if (!keys_.insecure && keys_.find(keyOf(h.client_key())) == nullptr) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_UNKNOWN_KEY, "this key is not among the bridge's allowed keys", out);
    return;
  }
  proto::LinkFrame c;
  c.set_type(proto::FT_CHALLENGE);
  proto::Handshake& ch = *c.mutable_handshake();
  ch.set_version(kLinkVersion);
  ch.set_client_nonce(h.client_nonce());
  ch.set_bridge_key(reinterpret_cast<const char*>(keys_.bridge.public_key.data()), keys_.bridge.public_key.size());
  const auto time_ms = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ms, 0));
  ch.set_challenge_time_ms(time_ms);
  ch.set_challenge(challengeFor(h.client_key(), h.client_nonce(), time_ms, peer));
  out.push_back({peer, encodeDatagram(c)});
  count(Count::kFramesOut);
}

bool BridgeCore::auth(const std::string& peer, std::string_view datagram, const proto::LinkFrame& f,
                      std::vector<Outgoing>& out, std::int64_t now_ms) {
  const proto::Handshake& h = f.handshake();
  if (h.version() != kLinkVersion || !sized(h.client_key(), 32) || !sized(h.client_nonce(), 24) ||
      !sized(h.challenge(), 32) || f.session() != 0 || f.count() != 1) {
    count(Count::kMalformed);
    return false;
  }
  const Key client_key = keyOf(h.client_key());
  const AllowedKey* allowed = keys_.find(client_key);
  if (!keys_.insecure && allowed == nullptr) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_UNKNOWN_KEY, "this key is not among the bridge's allowed keys", out);
    return false;
  }
  // The challenge must be this bridge's, for this key, nonce and address, and recent.
  const std::string expected = challengeFor(h.client_key(), h.client_nonce(), h.challenge_time_ms(), peer);
  const auto age = now_ms - static_cast<std::int64_t>(h.challenge_time_ms());
  if (sodium_memcmp(expected.data(), h.challenge().data(), expected.size()) != 0 || age < 0 ||
      age > limits_.challenge_ms) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_STALE_CHALLENGE, "the challenge is not this bridge's or too old: HELLO again", out);
    return false;
  }
  SessionKeys keys;
  if (!bridgeSessionKeys(keys_.bridge, client_key, nonceOf(h.client_nonce()), keyOf(h.challenge()), keys) ||
      !macValid(datagram, keys.client_to_bridge)) {
    count(Count::kForged);
    return false;
  }
  // Authentic, and wrong in a way no retry mends: said so, signed, rather than left to time out.
  if (h.client_session() == 0) {
    count(Count::kMalformed);
    refuse(peer, f, proto::RF_MALFORMED, "an AUTH's client_session must not be 0", out, &keys.bridge_to_client);
    return false;
  }
  if (auto it = by_challenge_.find(h.challenge()); it != by_challenge_.end()) {
    // The same AUTH again, from the address its challenge was made for: its ACK was lost. Same
    // session, same answer (as small as the AUTH it answers).
    Session& s = sessions_.at(it->second);
    count(Count::kRetransmissions);
    if (s.last_ack_count == 1 && resendAllowed(s)) {
      out.push_back({peer, s.last_ack});
      count(Count::kFramesOut);
    }
    return true;
  }
  if (spent_.count(h.challenge()) != 0) {
    // An AUTH whose session has been replaced or closed: a replay. It opens nothing, and the
    // session that replaced it goes on.
    count(Count::kRefused);
    refuse(peer, f, proto::RF_STALE_CHALLENGE, "this challenge has opened a session already: HELLO again", out,
           &keys.bridge_to_client);
    return false;
  }
  const std::uint64_t key_id = supervisorIdOf(client_key, 0);
  if (!roomToSpend(now_ms, key_id)) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_FULL, "too many handshakes in the last challenge age: handshake again later", out,
           &keys.bridge_to_client);
    return false;
  }
  const std::uint64_t supervisor_id = supervisorIdOf(client_key, h.client_session());
  // A client handshaking again leaves its old session behind.
  if (auto it = by_supervisor_id_.find(supervisor_id); it != by_supervisor_id_.end()) close(it->second);
  if (!makeRoom(key_id)) {
    count(Count::kRefused);
    refuse(peer, f, proto::RF_FULL, "every session that could make room is busy with a request: handshake again later",
           out, &keys.bridge_to_client);
    return false;
  }
  std::uint64_t link_id = randomNonZero64();
  while (sessions_.count(link_id) != 0) link_id = randomNonZero64();
  Session& s = sessions_[link_id];
  s.proven.push_back(peer);
  s.peer = peer;
  s.keys = keys;
  s.resend_filled_ns = now_ms * 1'000'000;
  s.supervisor_id = supervisor_id;
  s.key_id = key_id;  // no client session is 0: never a session's id
  s.role = keys_.insecure ? proto::CR_OPERATOR : allowed->role;
  s.challenge = h.challenge();
  s.fresh = h.fresh();
  s.last_count = 1;
  s.last_used = ++clock_;
  by_supervisor_id_[supervisor_id] = link_id;
  by_challenge_[s.challenge] = link_id;
  spent_[s.challenge] = {static_cast<std::int64_t>(h.challenge_time_ms()) + limits_.challenge_ms, key_id};
  ++spent_by_key_[key_id];
  count(Count::kHandshakes);
  ack(s, link_id, 1, "", out);
  return true;
}

bool BridgeCore::roomToSpend(std::int64_t now_ms, std::uint64_t key_id) {
  // One key may spend a sixteenth of them (at least 16): a key that handshakes without pause
  // meets its own limit long before it takes every other key's handshakes.
  const std::size_t per_key = std::max<std::size_t>(16, limits_.spent_challenges / 16);
  auto room = [&] {
    const auto mine = spent_by_key_.find(key_id);
    return spent_.size() < limits_.spent_challenges && (mine == spent_by_key_.end() || mine->second < per_key);
  };
  if (room()) return true;
  for (auto it = spent_.begin(); it != spent_.end();) {
    if (it->second.first >= now_ms) {
      ++it;
      continue;
    }
    if (auto k = spent_by_key_.find(it->second.second); k != spent_by_key_.end() && --k->second == 0)
      spent_by_key_.erase(k);
    it = spent_.erase(it);
  }
  return room();
}

bool BridgeCore::makeRoom(std::uint64_t key_id) {
  std::unordered_map<std::uint64_t, std::size_t> held;  // sessions by key (a handshake's work, not a period's)
  for (const auto& [id, s] : sessions_) ++held[s.key_id];
  const std::size_t quota = std::min(limits_.sessions_per_key, limits_.sessions);
  const bool own = held[key_id] >= quota;
  if (!own && sessions_.size() < limits_.sessions) return true;
  // The idle session to close: this key's own when it is at its quota; otherwise one of the key
  // that holds the most, least recently used first.
  auto oldest = sessions_.end();
  auto better = [&](const Session& a, const Session& b) {
    if (held[a.key_id] != held[b.key_id]) return held[a.key_id] > held[b.key_id];
    return a.last_used < b.last_used;
  };
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->second.pending || (own && it->second.key_id != key_id)) continue;
    if (oldest == sessions_.end() || better(it->second, oldest->second)) oldest = it;
  }
  if (oldest == sessions_.end()) return false;
  close(oldest->first);
  count(Count::kEvicted);
  return true;
}

std::string BridgeCore::replaceKeys(BridgeKeys keys, std::size_t& revoked) {
  revoked = 0;
  if (keys.insecure != keys_.insecure)
    return "a bridge cannot switch between admitting keys and --insecure while it runs";
  if (sodium_memcmp(keys.bridge.public_key.data(), keys_.bridge.public_key.data(), keys.bridge.public_key.size()) != 0)
    return "the bridge's own key changed: its clients know the old one; restart the bridge to change it";
  std::unordered_map<std::uint64_t, proto::ClientRole> roles;  // by key id
  for (const AllowedKey& k : keys.clients) roles[supervisorIdOf(k.key, 0)] = k.role;
  std::vector<std::uint64_t> gone;
  for (auto& [link_id, s] : sessions_) {
    if (keys.insecure) continue;
    const auto role = roles.find(s.key_id);
    if (role == roles.end())
      gone.push_back(link_id);
    else
      s.role = role->second;
  }
  // Each revoked session's task ends at the supervisor: a CC_STOP in its name, marked as the
  // bridge's (queued whatever the queue holds: at most one a session).
  for (const std::uint64_t link_id : gone) {
    const Session& s = sessions_.at(link_id);
    proto::Envelope stop;
    proto::TaskRequest& r = *stop.mutable_task_request();
    r.mutable_control()->set_command(proto::CC_STOP);
    r.set_session(s.supervisor_id);
    r.set_key_id(s.key_id);
    r.set_role(s.role);
    r.set_revoked(true);
    r.set_arrived_ns(now_ns_);
    waiting_.push_back(std::move(stop));
    close(link_id);
  }
  revoked = gone.size();
  keys_ = std::move(keys);
  return "";
}

void BridgeCore::close(std::uint64_t link_id) {
  auto it = sessions_.find(link_id);
  if (it == sessions_.end()) return;
  by_challenge_.erase(it->second.challenge);
  if (auto b = by_supervisor_id_.find(it->second.supervisor_id); b != by_supervisor_id_.end() && b->second == link_id)
    by_supervisor_id_.erase(b);
  sessions_.erase(it);
}

bool BridgeCore::request(const std::string& peer, std::string_view datagram, const proto::LinkFrame& f,
                         std::vector<Outgoing>& out, std::int64_t now_ns) {
  const std::uint64_t link_id = f.session();
  auto it = sessions_.find(link_id);
  if (it == sessions_.end()) {
    count(Count::kUnknownSessions);
    refuse(peer, f, proto::RF_UNKNOWN_SESSION, "no such session: handshake again, then resend", out);
    return false;
  }
  Session& s = it->second;
  if (!macValid(datagram, s.keys.client_to_bridge)) {
    count(Count::kForged);
    return false;
  }
  // Counters stay far from wrapping: a client opens a new session before 2^63. A REG or SENDREQ
  // carries no handshake. Authentic and wrong: said so, signed, rather than left to time out.
  if (f.count() >= kMaxCount || f.has_handshake()) {
    count(Count::kMalformed);
    refuse(peer, f, proto::RF_MALFORMED,
           f.has_handshake() ? "a REG or SENDREQ carries no handshake field"
                             : "the count is past 2^63: open a new session before it gets there",
           out, &s.keys.bridge_to_client);
    return false;
  }
  // A token from a RETRY, sent back from the address it was made for: that address is proven,
  // and the session's answers go there from now on (a client that moved, or one whose frame an
  // attacker's copy beat).
  if (!f.path_token().empty() && pathTokenValid(link_id, peer, f.path_token())) prove(s, peer);
  if (f.count() <= s.last_count) {
    // A frame taken before: the client did not get its ACK, or the network (or anyone) sent a copy.
    // Never delivered twice. The cached ACK goes again only to an address the session proved;
    // any other copy's sender gets a RETRY no larger than three times the copy, which only the
    // client can use (its answer is signed with the session's key). A replayer from anywhere
    // amplifies nothing, and the client whose frame an attacker's copy beat proves its address.
    count(Count::kRetransmissions);
    if (f.type() == proto::FT_REG) count(Count::kDuplicates);
    const bool answered = !s.pending && f.count() == s.last_ack_count && !s.last_ack.empty();
    const bool awaited = s.pending && f.count() == s.pending_count;
    if (proven(s, peer)) {
      s.peer = peer;
      if (answered && resendAllowed(s)) {
        out.push_back({peer, s.last_ack});
        count(Count::kFramesOut);
      }
    } else if (answered || awaited) {
      retry(s, link_id, f.count(), peer, datagram.size(), out);
    }
    return true;
  }
  if (s.pending) {
    // A new frame while the previous answer is outstanding cannot come from a stop-and-wait
    // client; dropped, and the client will retry.
    count(Count::kMalformed);
    return true;
  }
  proto::Envelope message;
  std::uint64_t number = 0;
  if (f.type() == proto::FT_SENDREQ) {
    message.mutable_status_request()->set_session(s.supervisor_id);
  } else {
    proto::TaskRequest& r = *message.mutable_task_request();
    if (!r.ParseFromString(f.payload()) || r.number() == 0) {
      // A frame that arrived intact but carries no valid request: answered, so the client learns why.
      proto::TaskReply refused;
      refused.set_id(r.id());
      refused.set_number(r.number());
      refused.set_reason("malformed request: not a task request with a request number (1, 2, ...)");
      refused.set_code(proto::RC_INVALID);
      s.last_count = f.count();
      takeSender(s, peer, datagram.size());
      count(Count::kMalformed);
      ack(s, link_id, f.count(), refused.SerializeAsString(), out);
      return true;
    }
    if (f.payload().size() > limits_.max_request) {
      // Refused by the supervisor (which numbers it), without the body nobody should keep.
      r.clear_body();
      r.set_oversize_bytes(static_cast<std::uint32_t>(f.payload().size()));
    }
    r.set_session(s.supervisor_id);
    r.set_key_id(s.key_id);
    r.set_role(s.role);
    r.set_revoked(false);  // the bridge's word, never a client's
    r.set_arrived_ns(now_ns);
    number = r.number();
  }
  if (queueDepth() >= limits_.queue) {
    count(Count::kWithheld);
    return true;  // no ACK: the client retries
  }
  s.last_count = f.count();
  takeSender(s, peer, datagram.size());
  s.last_used = ++clock_;
  if (message.has_task_request()) {
    message.mutable_task_request()->set_restart(s.fresh);  // the bridge's to say, never the client's
    s.fresh = false;
  }
  s.pending = true;
  s.pending_status = f.type() == proto::FT_SENDREQ;
  s.pending_number = number;
  s.pending_count = f.count();
  waiting_.push_back(std::move(message));
  return true;
}

// A new frame's sender: the session's answers go there when it is proven; otherwise they go on to
// the last proven address, and this one is sent a RETRY with the answer.
void BridgeCore::takeSender(Session& s, const std::string& peer, std::size_t bytes) {
  if (proven(s, peer)) {
    s.peer = peer;
    s.unproven_peer.clear();
  } else {
    s.unproven_peer = peer;
    s.unproven_bytes = bytes;
  }
}

bool BridgeCore::knowsPeer(const std::string& peer) const {
  return std::any_of(sessions_.begin(), sessions_.end(), [&](const auto& s) {
    return s.second.peer == peer || s.second.unproven_peer == peer || proven(s.second, peer);
  });
}

bool BridgeCore::nextForSupervisor(proto::Envelope& message) {
  if (waiting_.empty()) return false;
  message = std::move(waiting_.front());
  waiting_.pop_front();
  ++forwarded_;
  const std::uint64_t id =
      message.has_status_request() ? message.status_request().session() : message.task_request().session();
  ++in_flight_[{id, message.has_status_request() ? 0 : message.task_request().number()}];
  return true;
}

void BridgeCore::answered(std::uint64_t supervisor_id, std::uint64_t number) {
  auto it = in_flight_.find({supervisor_id, number});
  if (it == in_flight_.end()) return;
  if (--it->second == 0) in_flight_.erase(it);
  if (forwarded_ > 0) --forwarded_;
}

void BridgeCore::settle(Session& s, std::uint64_t link_id, std::string payload, std::vector<Outgoing>& out) {
  s.pending = false;
  ack(s, link_id, s.pending_count, std::move(payload), out);
}

void BridgeCore::answer(const proto::TaskReply& reply, std::vector<Outgoing>& out) {
  answered(reply.session(), reply.number());
  auto id = by_supervisor_id_.find(reply.session());
  if (id == by_supervisor_id_.end()) return;  // the client has gone (evicted, or handshook again)
  Session& s = sessions_.at(id->second);
  if (!s.pending || s.pending_status || s.pending_number != reply.number()) return;
  settle(s, id->second, reply.SerializeAsString(), out);
}

proto::LinkCounters BridgeCore::counters() const {
  proto::LinkCounters c;
  c.set_frames_in(counts_[static_cast<std::size_t>(Count::kFramesIn)]);
  c.set_frames_out(counts_[static_cast<std::size_t>(Count::kFramesOut)]);
  c.set_retransmissions(counts_[static_cast<std::size_t>(Count::kRetransmissions)]);
  c.set_duplicates(counts_[static_cast<std::size_t>(Count::kDuplicates)]);
  c.set_checksum_failures(counts_[static_cast<std::size_t>(Count::kChecksumFailures)]);
  c.set_malformed(counts_[static_cast<std::size_t>(Count::kMalformed)]);
  c.set_withheld(counts_[static_cast<std::size_t>(Count::kWithheld)]);
  c.set_forged(counts_[static_cast<std::size_t>(Count::kForged)]);
  c.set_refused(counts_[static_cast<std::size_t>(Count::kRefused)]);
  c.set_unknown_sessions(counts_[static_cast<std::size_t>(Count::kUnknownSessions)]);
  c.set_evicted(counts_[static_cast<std::size_t>(Count::kEvicted)]);
  c.set_handshakes(counts_[static_cast<std::size_t>(Count::kHandshakes)]);
  c.set_refusals_unsent(counts_[static_cast<std::size_t>(Count::kRefusalsUnsent)]);
  c.set_resends_unsent(counts_[static_cast<std::size_t>(Count::kResendsUnsent)]);
  c.set_retries_sent(counts_[static_cast<std::size_t>(Count::kRetriesSent)]);
  c.set_clients(sessions_.size());
  c.set_queue_depth(queueDepth());
  c.set_insecure(keys_.insecure);
  return c;
}

void BridgeCore::answer(const proto::ArmStatus& status, std::vector<Outgoing>& out) {
  answered(status.session(), 0);
  auto id = by_supervisor_id_.find(status.session());
  if (id == by_supervisor_id_.end()) return;
  Session& s = sessions_.at(id->second);
  if (!s.pending || !s.pending_status) return;
  proto::ArmStatus st = status;
  *st.mutable_link() = counters();
  settle(s, id->second, st.SerializeAsString(), out);
}

}  // namespace rfms
