// A node's mailboxes, whatever carries them: what every shell uses to send and receive its mail.
// A shell says what it means — publish this period's mailbox; wait, up to a deadline, for the
// mail that completes its period; read the others — and never sees a socket or a segment.
//
// Two transports (runtime/shared_memory_port.hpp, runtime/zmq_port.hpp), chosen per pair of nodes by
// where they run (openMailPort): between nodes on one host, shared memory, each box a ring that
// its one writer fills and its readers copy out, a futex doorbell per reader; between hosts, or
// everywhere when the cluster file says `mail_transport: MT_ZEROMQ`, ZeroMQ (tcp with CURVE, or
// ipc). Either way a reader sees each box as a ring of mail in the order it was written, with
// the time it came, and reads it in order (next) or only the newest (latest); which one a clock
// wants is runtime/clock_rules.hpp's business.
//
// Real-time safe after construction: publish, next, latest, wait and passUntil allocate nothing,
// take no lock, and make no system call but the wake, the wait and the clock's sleep (over
// ZeroMQ, its own socket calls; ZeroMQ allocates a copy of each message larger than 33 bytes).
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/cluster_config.hpp"
#include "runtime/mail_box.hpp"
#include "runtime/mail_limits.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_slot.hpp"

namespace rfms {

class Transport;

class MailPort {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~MailPort() = default;
  MailPort(const MailPort&) = delete;
  MailPort& operator=(const MailPort&) = delete;

  // Writes `mail` of `period` into box `b`, one this node writes, and wakes whoever waits for it;
  // its size in bytes. A mail larger than the box holds (runtime/mail_box.hpp) is not sent: 0, and
  // counted.
  virtual std::size_t publish(Box b, const proto::Envelope& mail, std::uint64_t period) = 0;
  // Waits until every box in `all` has unread mail or any box in `any` has (true), or until the
  // deadline (false). A signal does not cut it short: callers that must see a stop signal wait in
  // steps of a tenth of a second. Mail is there to read once a wait or passUntil has taken it in:
  // a node reads after it waits.
  virtual bool wait(BoxSet all, BoxSet any, Clock::time_point deadline) = 0;
  // Lets the time pass until `deadline`; mail that comes meanwhile is timed as it comes.
  virtual void passUntil(Clock::time_point deadline) = 0;
  // Why a peer refused this node's key, or "" (runtime/curve_guard.hpp). Not real-time safe.
  virtual std::string refusal() { return ""; }
  // Before the node exits: lets the last mail sent reach peers that are slow to read it (a node
  // with a backlog has it queued behind the rest). Not real-time safe.
  virtual void deliverBeforeClosing() {}
  // How the mail travels, for the node's log: "shared memory /dev/shm/...", "ZeroMQ", ...
  virtual std::string describe() const = 0;

  // The oldest unread mail of box `b` into `slot`; false when there is none. Mail that fails its
  // check, does not parse, is not of its box's kind, goes back in period or fails the limits
  // (setLimits) is passed over and counted.
  bool next(Box b, MailSlot& slot);
  // The newest unread mail of `b` into `slot`; older unread mail is passed over.
  bool latest(Box b, MailSlot& slot);
  // When the mail last read from `b` came: its writer's steady clock on this host, its arrival
  // from another.
  Clock::time_point cameAt(Box b) const;
  // Checks every mail parsed from now on against what this robot's values can be (null: none).
  // Configuration time; `limits` outlives the port.
  void setLimits(const MailLimits* limits) { limits_ = limits; }

  // Mail this node could not use, by kind: lost to a full ring; corrupt in shared memory (its
  // check failed, or its head named no mail); torn (rewritten while it was copied); malformed (not
  // parsing, or not its box's kind); disordered (its period went back); impossible (beyond what
  // the robot can do, runtime/mail_limits.hpp); too large to send. Counted by the period's thread
  // and readable from any other (relaxed atomics): the status file's writer reads them as they grow.
  struct Faults {
    std::uint64_t lost = 0, corrupt = 0, torn = 0, malformed = 0, disordered = 0, impossible = 0, too_large = 0;
    // Mail that was damaged or wrong, as opposed to mail this node was too slow to read.
    std::uint64_t damaged() const { return corrupt + malformed + disordered + impossible; }
    // Every mail written for this node that its core never saw.
    std::uint64_t unused() const { return lost + torn + damaged(); }
    Faults& operator+=(const Faults& o);
  };
  Faults faults() const;
  Faults faults(Box b) const;
  // Why the first impossible mail of `b` was refused (a constant phrase), or nullptr.
  const char* firstImpossible(Box b) const { return counts_[index(b)].why.load(std::memory_order_relaxed); }

 protected:
  MailPort(proto::Node me, BoxSet reads);
  static constexpr std::size_t index(Box b) { return static_cast<std::size_t>(b); }
  void attach(Box b, const void* ring) { readers_[index(b)] = RingReader(ring, depthOf(b), capacityOf(b)); }
  BoxSet unreadAmong(BoxSet boxes) const;  // the boxes among `boxes` with unread mail
  proto::Node me() const { return me_; }
  BoxSet reads() const { return reads_; }
  void tooLarge() { too_large_.fetch_add(1, std::memory_order_relaxed); }

 private:
  // One box's counts: written by the period's thread only, read by any.
  struct Counts {
    std::atomic<std::uint64_t> lost{0}, corrupt{0}, torn{0}, malformed{0}, disordered{0}, impossible{0};
    std::atomic<const char*> why{nullptr};
    // Mails in a row that went back in period: enough of them and it is the last period taken
    // that was wrong (a scribbled one), not they.
    int backwards = 0;
  };
  bool parseInto(Box b, const ReadMail& read, MailSlot& slot);
  void countRing(Box b);
  static void bump(std::atomic<std::uint64_t>& n) {
    n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  virtual std::uint64_t linkMalformed() const { return 0; }

  proto::Node me_;
  BoxSet reads_;
  const MailLimits* limits_ = nullptr;
  std::array<RingReader, kBoxCount> readers_{};
  std::array<ReadMail, kBoxCount> read_{};
  std::array<Counts, kBoxCount> counts_{};
  std::array<std::byte, kMaxMailBytes> buffer_{};
  std::atomic<std::uint64_t> too_large_{0};
};

// Which hosts the nodes run on: by the cluster file's placements (a node without one runs where
// deploy/rfms does). Nodes placed alike share a host.
std::string hostOf(const ClusterSettings& s, proto::Node node);

// The port of node `me` in the cluster of `s`, whose run directory (for the segment's name) is
// `run_dir`. `transport` makes whatever ZeroMQ sockets it needs (none when every peer shares its
// host). Configuration time: throws ConfigError.
std::unique_ptr<MailPort> openMailPort(const ClusterSettings& s, proto::Node me, const std::string& run_dir,
                                       Transport& transport, spdlog::logger& log);

// Publishes a core's outgoing `mail` as `field` of `envelope` without copying it (a protobuf copy
// allocates): swapped in, sent, swapped back, so that the core's outbox keeps its storage. Real-time
// safe. E.g. publishMail(port, Box::kParcel, envelope, &proto::Envelope::mutable_parcel, out.parcel, k).
template <class Mail>
std::size_t publishMail(MailPort& port, Box b, proto::Envelope& envelope, Mail* (proto::Envelope::*field)(), Mail& mail,
                        std::uint64_t period) {
  (envelope.*field)()->Swap(&mail);
  const std::size_t bytes = port.publish(b, envelope, period);
  (envelope.*field)()->Swap(&mail);
  return bytes;
}

}  // namespace rfms
