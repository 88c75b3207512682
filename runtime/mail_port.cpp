#include "runtime/mail_port.hpp"

#include "common/error.hpp"
#include "runtime/shared_memory_port.hpp"
#include "runtime/zmq_port.hpp"

namespace rfms {

namespace {
// A node's name in the cluster file's placements: arm, math, joint1 .. joint6, supervisor.
std::string placementName(proto::Node n) {
  switch (n) {
    case proto::NODE_SUPERVISOR: return "supervisor";
    case proto::NODE_ARM: return "arm";
    case proto::NODE_MATH: return "math";
    default: return "joint" + std::to_string(n - proto::NODE_JOINT1 + 1);
  }
}

BoxSet boxesWrittenBy(proto::Node node) {
  BoxSet s = 0;
  for (int i = 0; i < kBoxCount; ++i)
    if (writerOf(static_cast<Box>(i)) == node) s |= bit(static_cast<Box>(i));
  return s;
}
}  // namespace

MailPort::MailPort(proto::Node me, BoxSet reads) : me_(me), reads_(reads) {}

bool MailPort::parseInto(Box b, const ReadMail& read, MailSlot& slot) {
  ReadMail& last = read_[index(b)];
  // A writer's periods never go back: mail that says so is not its writer's.
  if (read.period < last.period) {
    ++disordered_;
    return false;
  }
  if (!slot.parse(buffer_.data(), read.size)) {
    ++malformed_;
    return false;
  }
  last = read;
  return true;
}

bool MailPort::next(Box b, MailSlot& slot) {
  RingReader& r = readers_[index(b)];
  for (int tries = 0; tries < depthOf(b); ++tries) {  // past mail that does not parse, at most a ring's worth
    const std::optional<ReadMail> m = r.next(buffer_.data());
    if (!m) return false;
    if (parseInto(b, *m, slot)) return true;
  }
  return false;
}

bool MailPort::latest(Box b, MailSlot& slot) {
  const std::optional<ReadMail> m = readers_[index(b)].latest(buffer_.data());
  return m && parseInto(b, *m, slot);
}

MailPort::Clock::time_point MailPort::cameAt(Box b) const {
  return Clock::time_point(std::chrono::nanoseconds(read_[index(b)].stamp_ns));
}

BoxSet MailPort::unreadAmong(BoxSet boxes) const {
  BoxSet s = 0;
  for (int i = 0; i < kBoxCount; ++i)
    if ((boxes & bit(static_cast<Box>(i))) != 0 && readers_[static_cast<std::size_t>(i)].unread())
      s |= bit(static_cast<Box>(i));
  return s;
}

MailPort::Faults MailPort::faults() const {
  Faults f;
  for (const RingReader& r : readers_) {
    f.lost += r.lost();
    f.corrupt += r.corrupt();
    f.torn += r.torn();
  }
  f.malformed = malformed_ + linkMalformed();
  f.disordered = disordered_;
  f.too_large = too_large_;
  return f;
}

std::string hostOf(const ClusterSettings& s, proto::Node node) {
  const std::string name = placementName(node);
  for (const proto::Placement& p : s.config.placement())
    if (p.node() == name) return p.via();
  return "";
}

std::unique_ptr<MailPort> openMailPort(const ClusterSettings& s, proto::Node me, const std::string& run_dir,
                                       Transport& transport, spdlog::logger& log) {
  const bool zeromq_only = s.config.mail_transport() == proto::MT_ZEROMQ;
  const std::string here = hostOf(s, me);
  const BoxSet reads = boxesReadBy(me), writes = boxesWrittenBy(me);
  // Which of this node's boxes travel between hosts, and which stay on this one.
  BoxSet remote_reads = 0, remote_writes = 0, local = 0;
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if ((reads & bit(b)) != 0) {
      const bool near = !zeromq_only && hostOf(s, writerOf(b)) == here;
      (near ? local : remote_reads) |= bit(b);
    }
    if ((writes & bit(b)) != 0) {
      for (proto::Node r : kClusterNodes) {
        if ((readersOf(b) & (1u << r)) == 0) continue;
        const bool near = !zeromq_only && hostOf(s, r) == here;
        (near ? local : remote_writes) |= bit(b);
      }
    }
  }
  if (local == 0) return std::make_unique<ZmqPort>(s, me, reads, remote_writes, transport);
  return std::make_unique<SharedMemoryPort>(s, me, run_dir, local, remote_reads, remote_writes, transport, log);
}

}  // namespace rfms
