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

MailPort::MailPort(proto::Node me, BoxSet reads) : me_(me), reads_(reads) { prepareMailChecks(); }

namespace {
// Mails in a row going back in period before the period they go back from is taken for the
// scribble: a writer restarted, or a period of 2^62 written over a slot's.
constexpr int kBackwardsToResync = 3;
}  // namespace

bool MailPort::parseInto(Box b, const ReadMail& read, MailSlot& slot) {
  Counts& c = counts_[index(b)];
  if (!carriesItsOwnBody(b, buffer_.data(), read.size)) {
    bump(c.malformed);
    return false;
  }
  ReadMail& last = read_[index(b)];
  // A writer's periods never go back: mail that says so is not its writer's, unless it keeps
  // saying so, and then the one before was not.
  if (read.period < last.period && ++c.backwards < kBackwardsToResync) {
    bump(c.disordered);
    return false;
  }
  c.backwards = 0;
  if (!slot.parse(buffer_.data(), read.size)) {
    bump(c.malformed);
    return false;
  }
  if (limits_ != nullptr) {
    if (const char* why = limits_->impossible(b, slot.mail())) {
      if (c.why.load(std::memory_order_relaxed) == nullptr) c.why.store(why, std::memory_order_relaxed);
      bump(c.impossible);
      slot.mail().Clear();
      return false;
    }
  }
  last = read;
  return true;
}

// The ring's own counts, into the box's: the ring is the period thread's alone.
void MailPort::countRing(Box b) {
  const RingReader& r = readers_[index(b)];
  Counts& c = counts_[index(b)];
  c.lost.store(r.lost(), std::memory_order_relaxed);
  c.corrupt.store(r.corrupt() + r.badHeads(), std::memory_order_relaxed);
  c.torn.store(r.torn(), std::memory_order_relaxed);
}

bool MailPort::next(Box b, MailSlot& slot) {
  RingReader& r = readers_[index(b)];
  bool taken = false;
  for (int tries = 0; tries < depthOf(b) && !taken; ++tries) {  // past mail it cannot use, at most a ring's worth
    const std::optional<ReadMail> m = r.next(buffer_.data());
    if (!m) break;
    taken = parseInto(b, *m, slot);
  }
  countRing(b);
  return taken;
}

bool MailPort::latest(Box b, MailSlot& slot) {
  const std::optional<ReadMail> m = readers_[index(b)].latest(buffer_.data());
  const bool taken = m && parseInto(b, *m, slot);
  countRing(b);
  return taken;
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

MailPort::Faults& MailPort::Faults::operator+=(const Faults& o) {
  lost += o.lost, corrupt += o.corrupt, torn += o.torn, malformed += o.malformed;
  disordered += o.disordered, impossible += o.impossible, too_large += o.too_large;
  return *this;
}

MailPort::Faults MailPort::faults(Box b) const {
  const Counts& c = counts_[index(b)];
  constexpr auto kRelaxed = std::memory_order_relaxed;
  Faults f;
  f.lost = c.lost.load(kRelaxed), f.corrupt = c.corrupt.load(kRelaxed), f.torn = c.torn.load(kRelaxed);
  f.malformed = c.malformed.load(kRelaxed), f.disordered = c.disordered.load(kRelaxed);
  f.impossible = c.impossible.load(kRelaxed);
  return f;
}

MailPort::Faults MailPort::faults() const {
  Faults f;
  for (int i = 0; i < kBoxCount; ++i) f += faults(static_cast<Box>(i));
  f.malformed += linkMalformed();
  f.too_large = too_large_.load(std::memory_order_relaxed);
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
