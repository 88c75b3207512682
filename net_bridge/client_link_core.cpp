#include "net_bridge/client_link_core.hpp"

#include <sodium.h>

#include "net_bridge/link_frame.hpp"

namespace rfms {

namespace {
std::string bytesOf(const unsigned char* p, std::size_t n) { return {reinterpret_cast<const char*>(p), n}; }

// What a refusal's code means, for a refusal the bridge sent without words: it never sends a
// refusal longer than the datagram it refuses, and a HELLO is shorter than most reasons.
const char* meaningOf(proto::RefuseCode code) {
  switch (code) {
    case proto::RF_UNKNOWN_KEY: return "this key is not among the bridge's allowed keys";
    case proto::RF_VERSION: return "the bridge speaks another link version";
    case proto::RF_MALFORMED: return "the frame breaks the link protocol";
    default: return "no reason given";
  }
}

// A refusal's words as a client prints them: they may come from anyone on the path, so at most
// 200 characters, and nothing a terminal would take for a command.
std::string printable(const std::string& reason, proto::RefuseCode code) {
  std::string out = reason.empty() ? meaningOf(code) : reason.substr(0, 200);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}
}  // namespace

ClientLinkCore::ClientLinkCore(const LinkIdentity& identity, std::uint64_t client_session, const LinkOptions& options)
    : identity_(identity), client_session_(client_session), options_(options) {}

void ClientLinkCore::resetTries() {
  waited_out_ = false;
  first_ = true;
  tries_ = 0;
  noted_ = proto::RF_NONE;
}

void ClientLinkCore::begin(proto::FrameType type, std::string payload) {
  type_ = type;
  payload_ = std::move(payload);
  busy_ = true;
  failure_.clear();
  refused_waits_ = 0;
  if (phase_ == Phase::kOpen && count_ < kMaxCount)
    sendFrame();
  else
    hello();
}

void ClientLinkCore::hello() {
  phase_ = Phase::kHello;
  randomBytes(nonce_.data(), nonce_.size());
  proto::LinkFrame f;
  f.set_type(proto::FT_HELLO);
  proto::Handshake& h = *f.mutable_handshake();
  h.set_version(kLinkVersion);
  h.set_client_key(bytesOf(identity_.key.public_key.data(), 32));
  h.set_client_nonce(bytesOf(nonce_.data(), nonce_.size()));
  datagram_ = encodeDatagram(f);
  resetTries();
}

void ClientLinkCore::sendFrame() {
  ++count_;
  if (type_ == proto::FT_REG) request_sent_ = true;
  datagram_ = frameInFlight("");
  resetTries();
}

std::string ClientLinkCore::frameInFlight(const std::string& path_token) const {
  proto::LinkFrame f;
  f.set_type(type_);
  f.set_seq(static_cast<std::uint32_t>(count_ & 1u));
  f.set_count(count_);
  f.set_session(link_session_);
  f.set_payload(payload_);
  f.set_path_token(path_token);
  return encodeDatagram(f, keys_.client_to_bridge);
}

bool ClientLinkCore::due(double now, std::string& datagram) {
  if (!busy_ || !failure_.empty()) return false;
  if (!first_ && now < next_send_) return false;
  if (!first_ && !refusalCounts()) return false;
  if (tries_ >= options_.max_tries) {
    waited_out_ = true;
    return false;
  }
  if (!first_) ++retransmissions_;
  first_ = false;
  ++tries_;
  next_send_ = now + options_.timeout_s;
  datagram = datagram_;
  return true;
}

bool ClientLinkCore::refusalCounts() {
  const proto::RefuseCode code = noted_;
  noted_ = proto::RF_NONE;
  if (code == proto::RF_NONE) {  // the wait ran out unanswered: a lost datagram, resent
    refused_waits_ = 0;
    return true;
  }
  // A request can take longer than a timeout at the supervisor, and the bridge says nothing while
  // it does: a forged refusal in each of those waits must not cost the session. What would end the
  // session or the link counts only after kFinalRefusals waits in a row ended refused.
  if (code == proto::RF_UNKNOWN_KEY || code == proto::RF_VERSION) {
    // Final only when fresh handshakes get it too: each such wait starts a new HELLO (a new
    // nonce, which a forger must see before it can name it), and only kFinalRefusals of them in a
    // row, with no CHALLENGE between, end the link.
    if (++refused_waits_ < kFinalRefusals) {
      hello();
      return true;
    }
    failure_ = "the bridge refused: " + printable(noted_reason_, code);
    return false;
  }
  if (code == proto::RF_UNKNOWN_SESSION && ++refused_waits_ < kFinalRefusals) return true;  // the same frame again
  hello();                                                                                  // a new handshake, sent now
  return true;
}

ClientLinkCore::Event ClientLinkCore::actOn(proto::RefuseCode code, const std::string& reason) {
  switch (code) {
    case proto::RF_UNKNOWN_KEY:
    case proto::RF_VERSION:
    case proto::RF_MALFORMED: failure_ = "the bridge refused: " + printable(reason, code); return Event::kRefused;
    case proto::RF_FULL:
      // Wait a timeout, then start again.
      hello();
      first_ = false;
      return Event::kHandshake;
    default: hello(); return Event::kHandshake;
  }
}

ClientLinkCore::Event ClientLinkCore::receive(std::string_view datagram) {
  Trailer trailer = Trailer::kCrc;
  switch (decodeDatagram(datagram, frame_, &trailer)) {
    case Datagram::kBadChecksum: return Event::kBadChecksum;
    case Datagram::kMalformed:
    case Datagram::kWrongVersion: return Event::kMalformed;
    case Datagram::kOk: break;
  }
  if (!busy_) return Event::kStale;
  const proto::Handshake& h = frame_.handshake();
  const std::string nonce = bytesOf(nonce_.data(), nonce_.size());
  switch (frame_.type()) {
    case proto::FT_CHALLENGE: {
      if (phase_ != Phase::kHello || h.client_nonce() != nonce || h.bridge_key().size() != 32 ||
          h.challenge().size() != 32)
        return Event::kStale;
      Key bridge, challenge;
      std::copy(h.bridge_key().begin(), h.bridge_key().end(), bridge.begin());
      std::copy(h.challenge().begin(), h.challenge().end(), challenge.begin());
      // Not the bridge this client knows: someone else answered.
      if (identity_.bridge_pinned && sodium_memcmp(bridge.data(), identity_.bridge.data(), 32) != 0)
        return Event::kStale;
      if (!clientSessionKeys(identity_.key, bridge, nonce_, challenge, keys_)) return Event::kStale;
      refused_waits_ = 0;  // the bridge answered the handshake: the refusals before were not its
      proto::LinkFrame a;
      a.set_type(proto::FT_AUTH);
      a.set_count(1);
      a.set_seq(1);
      proto::Handshake& ah = *a.mutable_handshake();
      ah.set_version(kLinkVersion);
      ah.set_client_key(bytesOf(identity_.key.public_key.data(), 32));
      ah.set_client_nonce(nonce);
      ah.set_challenge(h.challenge());
      ah.set_challenge_time_ms(h.challenge_time_ms());
      ah.set_client_session(client_session_);
      ah.set_fresh(!request_sent_);
      datagram_ = encodeDatagram(a, keys_.client_to_bridge);
      phase_ = Phase::kAuth;
      resetTries();
      return Event::kHandshake;
    }
    case proto::FT_ACK: {
      if (phase_ == Phase::kAuth) {
        if (frame_.count() != 1 || frame_.session() == 0 || !macValid(datagram, keys_.bridge_to_client))
          return Event::kStale;
        link_session_ = frame_.session();
        count_ = 1;
        phase_ = Phase::kOpen;
        ++handshakes_;
        sendFrame();
        return Event::kHandshake;
      }
      // Only an authentic ACK of the frame in flight counts; earlier ones (late copies) do not.
      if (phase_ != Phase::kOpen || frame_.session() != link_session_ || frame_.count() != count_ ||
          !macValid(datagram, keys_.bridge_to_client))
        return Event::kStale;
      busy_ = false;
      refused_waits_ = 0;
      answer_ = frame_.payload();
      return Event::kAcked;
    }
    case proto::FT_RETRY: {
      // The bridge withheld the answer from this address, which the session had not proven (the
      // client moved, or an attacker's copy of the frame came first): the same frame again, now,
      // with the token that proves it. Only an authentic RETRY of the frame in flight counts.
      if (phase_ != Phase::kOpen || frame_.session() != link_session_ || frame_.count() != count_ ||
          frame_.path_token().empty() || frame_.path_token().size() > 64 || !macValid(datagram, keys_.bridge_to_client))
        return Event::kStale;
      datagram_ = frameInFlight(frame_.path_token());
      first_ = true;  // at once, and not a try of its own
      return Event::kPathProof;
    }
    case proto::FT_REFUSE: {
      // It must name what is in flight: the handshake's nonce, or the frame's session and count.
      const bool of_handshake = (phase_ == Phase::kHello || phase_ == Phase::kAuth) && h.client_nonce() == nonce;
      const bool of_frame = phase_ == Phase::kOpen && frame_.session() == link_session_ && frame_.count() == count_;
      if (!of_handshake && !of_frame) return Event::kStale;
      if (trailer == Trailer::kMac) {  // signed with the keys of the handshake or session it refuses
        if (phase_ == Phase::kHello || !macValid(datagram, keys_.bridge_to_client)) return Event::kStale;
        return actOn(frame_.refuse(), frame_.reason());
      }
      // Anyone on the path could have sent it: it counts only if no answer comes in time. The
      // bridge signs every RF_MALFORMED: one that is not is forged.
      if (frame_.refuse() == proto::RF_MALFORMED) return Event::kStale;
      // The bridge refuses a key or a version only at the handshake (a session's frames it does
      // not hold are RF_UNKNOWN_SESSION): such a refusal of an open session's frame is forged.
      const bool final_kind = frame_.refuse() == proto::RF_UNKNOWN_KEY || frame_.refuse() == proto::RF_VERSION;
      if (final_kind && phase_ == Phase::kOpen) return Event::kStale;
      // One refusal noted a wait, the first: a later one cannot overrule it.
      if (noted_ == proto::RF_NONE) {
        noted_ = frame_.refuse() == proto::RF_NONE ? proto::RF_STALE_CHALLENGE : frame_.refuse();
        noted_reason_ = frame_.reason();
      }
      return Event::kRefusalNoted;
    }
    default: return Event::kStale;
  }
}

}  // namespace rfms
