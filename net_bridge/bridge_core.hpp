// The bridge side of RoboNet's logical link control (RFMS report, A.5 Appendix A.4.3), one link
// session per authenticated client, between UDP datagrams and the supervisor's task endpoint.
// Pure but for its random numbers: the rfms-bridge shell moves datagrams and supervisor messages in
// and out. docs/link-protocol.md is the specification; in short:
//
// - HELLO (a client's public key): a key the bridge does not admit is refused; else the bridge
//   answers with a CHALLENGE it keeps no state for (a keyed hash of the key, the client's nonce and
//   the time), so that a flood of HELLOs costs no memory.
// - AUTH (the challenge back, signed with the session key both sides derive): a session opens, its
//   ACK names it. A session per client; when all are taken, the least recently used idle one closes.
// - REG (a TaskRequest) and SENDREQ: signed, with a counter that only grows. A forged, replayed or
//   stale frame changes nothing (counted); a new one is queued once towards the supervisor, with
//   the session's supervisor-side id and its key's role stamped on it, and ACKed with the answer.
//   A frame seen before (the client retried) is answered again from the cached ACK, never
//   delivered twice; with the queue full the ACK is withheld and the client retries later.
// - Answers go only to addresses the session proved: the handshake's (the challenge is bound to
//   the HELLO's address) and those a RETRY's token came back from. Any other sender of a
//   session's frame gets at most a RETRY, no larger than three times what it sent, which only the
//   key holder can answer; no REFUSE is longer than what it refuses.
// - A frame of a session the bridge does not hold (it restarted) is refused: the client
//   handshakes again and resends; the supervisor applies each request number once, so nothing
//   that arrived before the restart is applied twice.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "net_bridge/allowed_keys.hpp"
#include "proto/cluster.pb.h"
#include "proto/link.pb.h"
#include "proto/task.pb.h"

namespace rfms {

struct Outgoing {
  std::string peer;  // whom to send it to, as the shell named the sender
  std::string datagram;
};

struct BridgeLimits {
  std::size_t queue = 64;              // requests forwarded or waiting for the supervisor
  std::size_t sessions = 64;           // link sessions open at once
  std::size_t sessions_per_key = 8;    // ... of one client key (at most `sessions`)
  std::int64_t challenge_ms = 10'000;  // how long a CHALLENGE may be answered
  std::size_t max_request = 8192;      // bytes of a TaskRequest passed on whole
  // REFUSEs a second, all senders together (a burst of as many may go at once): an unkeyed sender
  // can make the bridge answer no faster than this, whatever it sends.
  double refusals_per_s = 200;
  // Challenges that opened a session, remembered until they expire so that a replayed AUTH opens
  // nothing: at most this many in one challenge age (more handshakes than that are RF_FULL).
  std::size_t spent_challenges = 4096;
};

class BridgeCore {
 public:
  BridgeCore(BridgeKeys keys, const BridgeLimits& limits);

  // `now_ns`: when the datagram arrived (system clock): it dates challenges and is stamped on the
  // request it carries. False when the datagram is not a sound frame (checksum, format, MAC): its
  // sender need not be remembered.
  bool receive(const std::string& peer, std::string_view datagram, std::vector<Outgoing>& out, std::int64_t now_ns);
  // The next message for the supervisor (a task_request or a status_request), oldest first. It
  // stays in the queue (counted against its capacity) until answered.
  bool nextForSupervisor(proto::Envelope& message);
  // The supervisor's answers; each ACKs its REG or SENDREQ.
  void answer(const proto::TaskReply& reply, std::vector<Outgoing>& out);
  void answer(const proto::ArmStatus& status, std::vector<Outgoing>& out);

  // The keys admitted from now on (the shell reloads them on SIGHUP): a key no longer admitted
  // loses its sessions at once (its client's next frame is RF_UNKNOWN_SESSION, its handshake
  // RF_UNKNOWN_KEY); a key whose role changed keeps its sessions in the new role. The bridge's own
  // key cannot change while it runs (its clients pin it): "" when taken, else why not, and
  // nothing changes. `revoked` counts the sessions closed.
  std::string replaceKeys(BridgeKeys keys, std::size_t& revoked);

  // The link's counters as a status carries them (ArmStatus.link): the events counted so far and
  // the sessions and queue as they are now.
  proto::LinkCounters counters() const;
  std::size_t queueDepth() const { return waiting_.size() + forwarded_; }
  std::size_t sessions() const { return sessions_.size(); }
  // Whether a session's ACKs go to `peer` (the shell forgets the addresses of the others).
  bool knowsPeer(const std::string& peer) const;

 private:
  struct Session {
    std::string peer;  // where its ACKs go: the sender of its newest authentic frame
    SessionKeys keys;
    std::uint64_t supervisor_id = 0;  // TaskRequest.session as the supervisor knows this client
    std::uint64_t key_id = 0;         // TaskRequest.key_id: its key, whatever its session
    proto::ClientRole role = proto::CR_NONE;
    std::string challenge;         // of its handshake: a retransmitted AUTH gets the same ACK
    std::uint64_t last_count = 0;  // the newest frame taken from this client
    std::uint64_t last_used = 0;   // the bridge's frame clock when it last sent a new frame
    bool fresh = false;            // its AUTH said so: its first REG restarts the numbering
    bool pending = false;          // a REG or SENDREQ delivered, its answer not yet back
    bool pending_status = false;   // ... and it is a SENDREQ
    std::uint64_t pending_number = 0, pending_count = 0;
    std::string last_ack;  // the ACK of the last answered frame, for retries
    std::uint64_t last_ack_count = 0;
    // The addresses this session has proven: the handshake's (its challenge was bound to it) and
    // those a RETRY's token came back from, newest last, at most kProvenAddresses. Only these get
    // an answer larger than three times what came from them.
    std::vector<std::string> proven;
    // The newest frame's sender when it was not proven: it gets a RETRY with the answer.
    std::string unproven_peer;
    std::size_t unproven_bytes = 0;
    // Answers sent again (cached ACKs, RETRYs): a token bucket, so that copies of a frame cannot
    // make the bridge a fountain even towards the client's own address.
    double resend_tokens = kResendsPerS;
    std::int64_t resend_filled_ns = 0;
  };
  void hello(const std::string& peer, const proto::LinkFrame& f, std::vector<Outgoing>& out, std::int64_t now_ms);
  bool auth(const std::string& peer, std::string_view datagram, const proto::LinkFrame& f, std::vector<Outgoing>& out,
            std::int64_t now_ms);
  bool request(const std::string& peer, std::string_view datagram, const proto::LinkFrame& f,
               std::vector<Outgoing>& out, std::int64_t now_ns);
  // Bound to the address the HELLO came from: an AUTH from anywhere else is refused, so the
  // address a session opens from is one its client proved it receives at.
  std::string challengeFor(const std::string& client_key, const std::string& nonce, std::uint64_t time_ms,
                           const std::string& peer) const;
  // Room for one more session of `key_id`: a key at its quota gives up its own least recently
  // used idle session; a full table, one of the key that holds the most. False when none is idle.
  bool makeRoom(std::uint64_t key_id);
  void close(std::uint64_t link_id);
  // Room to remember one more spent challenge of key `key_id`, within the bridge's limit and the
  // key's own share of it (the expired ones are forgotten first).
  bool roomToSpend(std::int64_t now_ms, std::uint64_t key_id);
  // A REFUSE of `of`: signed with `sign` (the bridge-to-client key of the handshake it refuses)
  // when the bridge holds one, so that the client may act on it at once; else checksummed only.
  // Never longer than the datagram it refuses (`in_bytes`): the reason is left out when it would
  // be, and the refusal is not sent when even that would.
  void refuse(const std::string& peer, const proto::LinkFrame& of, proto::RefuseCode code, const std::string& why,
              std::vector<Outgoing>& out, const Key* sign = nullptr);
  void ack(Session& s, std::uint64_t link_id, std::uint64_t count, std::string payload, std::vector<Outgoing>& out);
  // The pending frame of `s` is answered: its ACK carries `payload`.
  void settle(Session& s, std::uint64_t link_id, std::string payload, std::vector<Outgoing>& out);
  // One forwarded request of `supervisor_id` (`number`, 0 for status) is answered: the queue shrinks.
  void answered(std::uint64_t supervisor_id, std::uint64_t number);
  // The events LinkCounters counts, by number (proto/task.proto says what each is).
  enum class Count : std::uint8_t {
    kFramesIn,
    kFramesOut,
    kRetransmissions,
    kDuplicates,
    kChecksumFailures,
    kMalformed,
    kWithheld,
    kForged,
    kRefused,
    kUnknownSessions,
    kEvicted,
    kHandshakes,
    kRefusalsUnsent,
    kResendsUnsent,
    kRetriesSent,
  };
  static constexpr std::size_t kCounts = static_cast<std::size_t>(Count::kRetriesSent) + 1;
  void count(Count c) { ++counts_[static_cast<std::size_t>(c)]; }

  static constexpr std::size_t kProvenAddresses = 4;
  static constexpr double kResendsPerS = 100;  // and as many at once: more than any client retries
  // Bytes an unproven address may be sent per byte that came from it (QUIC's rule, RFC 9000 §8.1).
  static constexpr std::size_t kAmplification = 3;
  bool proven(const Session& s, const std::string& peer) const;
  void prove(Session& s, const std::string& peer);
  // A token for `peer` in session `link_id`, and whether `token` is one (this or the last minute's).
  std::string pathToken(std::uint64_t link_id, const std::string& peer, std::int64_t minute) const;
  bool pathTokenValid(std::uint64_t link_id, const std::string& peer, const std::string& token) const;
  bool resendAllowed(Session& s);
  void takeSender(Session& s, const std::string& peer, std::size_t bytes);
  // Sends `s`'s frame at `count` a RETRY towards `peer`, when it is no larger than kAmplification
  // times `in_bytes` and the session's resends allow it.
  void retry(Session& s, std::uint64_t link_id, std::uint64_t count, const std::string& peer, std::size_t in_bytes,
             std::vector<Outgoing>& out);

  BridgeKeys keys_;
  BridgeLimits limits_;
  Key cookie_secret_{};  // keys the challenges; drawn at start, so a restart voids old ones
  std::unordered_map<std::uint64_t, Session> sessions_;  // by link id
  std::unordered_map<std::uint64_t, std::uint64_t> by_supervisor_id_;
  std::unordered_map<std::string, std::uint64_t> by_challenge_;
  // Every challenge that opened a session, with when it expires: one AUTH opens one session, once.
  // With when it expires and whose key it was: one key's handshakes are counted apart.
  std::unordered_map<std::string, std::pair<std::int64_t, std::uint64_t>> spent_;
  std::unordered_map<std::uint64_t, std::size_t> spent_by_key_;
  // The refusals' token bucket: how many may go now, and when it was last filled.
  double refusal_tokens_ = 0;
  std::int64_t refusal_filled_ns_ = 0;
  std::int64_t now_ns_ = 0;              // when the datagram being handled arrived
  std::size_t in_bytes_ = 0;             // its size
  std::uint64_t clock_ = 0;              // counts new frames: the age of a session for eviction
  std::deque<proto::Envelope> waiting_;  // not yet forwarded
  std::size_t forwarded_ = 0;            // forwarded, not yet answered
  std::map<std::pair<std::uint64_t, std::uint64_t>, int> in_flight_;  // (supervisor id, number)
  std::array<std::uint64_t, kCounts> counts_{};
  proto::LinkFrame frame_;
};

// The id the supervisor knows a client by: from its key and its own session number, so that no
// other key can reach its requests and a client keeps it across handshakes (exactly once).
std::uint64_t supervisorIdOf(const Key& client_key, std::uint64_t client_session);

}  // namespace rfms
