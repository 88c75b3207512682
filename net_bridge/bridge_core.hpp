// The bridge side of RoboNet's logical link control (RFMS report, A.5 Appendix A.4.3), one link
// state per client session, between UDP datagrams and the supervisor's task endpoint. Pure: the
// rfms-bridge shell moves datagrams and supervisor messages in and out.
//
// - SYNC: (re)initialises the session's sequence; acknowledged.
// - REG (a TaskRequest): when it is a new frame (its counter beyond the last one taken; see
//   proto/link.proto on why a counter beside RoboNet's one bit) and the queue towards the
//   supervisor has room, it is queued once; the ACK is sent when the supervisor has
//   answered and carries the answer (TaskReply). A REG seen before (the client retried) is
//   answered again from the cached ACK, never delivered twice. With the queue full the ACK is
//   withheld: the client retries later, and nothing is lost (RFMS failed on overflow).
// - SENDREQ: passed to the supervisor like a REG, and acknowledged with the ArmStatus it answers
//   (plus the link counters): a status asked for after an answer always reflects that answer.
// - A REG or SENDREQ from a session the bridge does not know (it restarted) is answered with a
//   resync ACK: the client SYNCs and sends again; the supervisor applies each request once by its
//   number, so a request that was delivered before the restart is not applied twice.
// - Corrupted datagrams are dropped and counted; well-formed frames that make no sense are counted.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto/cluster.pb.h"
#include "proto/link.pb.h"
#include "proto/task.pb.h"

namespace rfms {

struct Outgoing {
  std::string peer;  // whom to send it to, as the shell named the sender
  std::string datagram;
};

class BridgeCore {
 public:
  explicit BridgeCore(std::size_t queue_capacity) : capacity_(queue_capacity) {}

  // `arrived_ns`: when the datagram arrived (system clock), stamped on the request it carries.
  // False when the datagram is not a sound frame (checksum or format): its sender need not be
  // remembered.
  bool receive(const std::string& peer, std::string_view datagram, std::vector<Outgoing>& out,
               std::int64_t arrived_ns = 0);
  // The next message for the supervisor (a task_request or a status_request), oldest first. It
  // stays in the queue (counted against its capacity) until answered.
  bool nextForSupervisor(proto::Envelope& message);
  // The supervisor's answers; each ACKs its REG or SENDREQ.
  void answer(const proto::TaskReply& reply, std::vector<Outgoing>& out);
  void answer(const proto::ArmStatus& status, std::vector<Outgoing>& out);

  const proto::LinkCounters& counters() const { return counters_; }
  std::size_t queueDepth() const { return waiting_.size() + forwarded_; }

 private:
  struct Session {
    std::string peer;
    std::uint64_t last_count = 0;  // the newest frame taken from this client
    bool pending = false;          // a REG or SENDREQ delivered, its answer not yet back
    bool pending_status = false;   // ... and it is a SENDREQ
    std::uint64_t pending_number = 0, pending_count = 0;
    std::string last_ack;  // the ACK of the last answered frame, for retries
    std::uint64_t last_ack_count = 0;
  };
  void ack(const std::string& peer, const proto::LinkFrame& of, std::string payload, bool resync,
           std::vector<Outgoing>& out, std::string* keep = nullptr);
  // The pending frame of `s` is answered: its ACK carries `payload`.
  void settle(Session& s, std::uint64_t session, std::string payload, std::vector<Outgoing>& out);
  void resendLast(const Session& s, const std::string& peer, std::vector<Outgoing>& out);
  void count(std::uint64_t (proto::LinkCounters::*get)() const, void (proto::LinkCounters::*set)(std::uint64_t)) {
    (counters_.*set)((counters_.*get)() + 1);
  }

  std::size_t capacity_;
  std::unordered_map<std::uint64_t, Session> sessions_;
  std::deque<proto::Envelope> waiting_;  // not yet forwarded
  std::size_t forwarded_ = 0;            // forwarded, not yet answered
  proto::LinkCounters counters_;
  proto::LinkFrame frame_;
};

}  // namespace rfms
