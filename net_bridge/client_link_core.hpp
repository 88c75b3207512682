// The client side of RoboNet's logical link control (A.5 Appendix A.4.2, the VAX side): one frame
// in flight at a time (one-bit sliding window), sent again on each timeout until its ACK arrives or
// the retry limit is reached. A session is opened first (HELLO, CHALLENGE, AUTH; docs/link-protocol.md)
// and again whenever the bridge no longer knows it; the frame in flight is then resent in the new
// session. Pure: time is passed in, datagrams are handed out and in, so the same code runs over UDP
// (UdpLinkClient) and over a simulated network in tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "net_bridge/link_keys.hpp"
#include "net_bridge/link_options.hpp"
#include "proto/link.pb.h"

namespace rfms {

// Who the client is: its key pair, and the bridge's public key when it is known (a client's key
// file holds it). Unpinned, the client takes the key the bridge shows: only for a bridge started
// with --insecure, on a machine's own loopback.
struct LinkIdentity {
  KeyPair key;
  Key bridge{};
  bool bridge_pinned = false;
};

class ClientLinkCore {
 public:
  // `client_session`: random, drawn once per client program (the supervisor applies each request
  // number of it once).
  ClientLinkCore(const LinkIdentity& identity, std::uint64_t client_session, const LinkOptions& options);

  // Starts sending a REG or a SENDREQ; the link must not be busy. A handshake goes first when no
  // session is open.
  void begin(proto::FrameType type, std::string payload);
  // The datagram to send now, if one is due: at once after a new frame, then after each timeout.
  bool due(double now, std::string& datagram);
  // The time of the next retransmission (when busy).
  double nextSend() const { return next_send_; }

  enum class Event { kNone, kAcked, kHandshake, kPathProof, kRefused, kRefusalNoted, kBadChecksum, kMalformed, kStale };
  // A datagram from the bridge. kAcked: the frame is acknowledged (answer() holds what the ACK
  // carried); kHandshake: a step of opening a session; kRefused: the bridge refused for good
  // (failed() and failure() say why); kRefusalNoted: a checksummed refusal, which anyone on the
  // path could have forged, taken as what to do if the wait for an answer runs out (below);
  // kPathProof: the bridge asked for the frame again from this address with a token (a RETRY),
  // and due() sends it at once; kStale: not for the frame in flight, or not authentic.
  //
  // A signed REFUSE (the bridge held the handshake's keys) is acted on at once. An unsigned one
  // never cuts a wait short: an answer that still comes in time wins, and only when the timeout
  // passes without one does the refusal count — a challenge the bridge refuses is then answered
  // with a new HELLO instead of a resend; a session it does not hold is handshaken again once
  // kFinalRefusals waits in a row ended so (a slow answer must not let a forger take the
  // session); a key it does not admit, or another version, is believed only of a handshake, and
  // ends the link only when kFinalRefusals fresh handshakes in a row got it and nothing else. The
  // first refusal noted in a wait is the one that counts.
  Event receive(std::string_view datagram);
  static constexpr int kFinalRefusals = 3;

  bool busy() const { return busy_; }
  bool failed() const { return busy_ && (!failure_.empty() || (tries_ >= options_.max_tries && waited_out_)); }
  // Why the link failed: the bridge's refusal, or empty when it never answered.
  const std::string& failure() const { return failure_; }
  const std::string& answer() const { return answer_; }
  void abandon() { busy_ = false; }
  // Leaves the session for good (the link failed): the next frame opens a new one as
  // `client_session`, whose request numbers start again at 1.
  void restart(std::uint64_t client_session) {
    busy_ = false;
    phase_ = Phase::kClosed;
    link_session_ = 0;
    count_ = 0;
    client_session_ = client_session;
    request_sent_ = false;
  }
  bool open() const { return phase_ == Phase::kOpen; }
  std::uint64_t clientSession() const { return client_session_; }
  std::uint64_t linkSession() const { return link_session_; }
  // The open session's keys (a fuzzer signs crafted frames with them).
  const SessionKeys& sessionKeys() const { return keys_; }
  std::uint64_t retransmissions() const { return retransmissions_; }
  std::uint64_t handshakes() const { return handshakes_; }

 private:
  enum class Phase { kClosed, kHello, kAuth, kOpen };
  // A session is left for a new one long before its counter could wrap.
  static constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 62;
  void hello();
  void sendFrame();  // the frame of begin(), in the open session
  // The datagram of the frame in flight, with a RETRY's path token when it has one.
  std::string frameInFlight(const std::string& path_token) const;
  void resetTries();
  // What a refusal asks for: at once when it is signed, at the end of the wait when it is not.
  Event actOn(proto::RefuseCode code, const std::string& reason);
  // The timeout passed with only an unsigned refusal noted: false when the link ends here.
  bool refusalCounts();

  LinkIdentity identity_;
  std::uint64_t client_session_;
  LinkOptions options_;
  Phase phase_ = Phase::kClosed;
  Nonce nonce_{};
  SessionKeys keys_;
  std::uint64_t link_session_ = 0;
  std::uint64_t count_ = 0;  // frames in this session; seq is its low bit
  bool busy_ = false, waited_out_ = false, first_ = true;
  bool request_sent_ = false;  // a REG of client_session_ has gone out: a handshake is not fresh
  proto::FrameType type_ = proto::FT_NONE;
  std::string payload_, datagram_, answer_, failure_;
  int tries_ = 0;
  // The unsigned refusal noted during the current wait (RF_NONE: none), and how many waits in a
  // row ended with a final one.
  proto::RefuseCode noted_ = proto::RF_NONE;
  std::string noted_reason_;
  int refused_waits_ = 0;
  double next_send_ = 0.0;
  std::uint64_t retransmissions_ = 0, handshakes_ = 0;
  proto::LinkFrame frame_;
};

}  // namespace rfms
