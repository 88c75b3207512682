#include "runtime/shared_memory_port.hpp"

#include <unistd.h>

#include <bit>
#include <thread>

#include "common/error.hpp"
#include "common/thread_role.hpp"
#include "runtime/doorbell.hpp"
#include "runtime/mail_wait.hpp"
#include "runtime/private_directory.hpp"
#include "runtime/transport.hpp"

namespace rfms {

namespace {
// A box's bit in its reader's doorbell: its place among the boxes that reader reads.
unsigned doorbellBit(proto::Node reader, Box b) {
  return static_cast<unsigned>(std::popcount(boxesReadBy(reader) & (bit(b) - 1)));
}

// The run directory holds the link to the segment and the run's logs: this user's alone, as the
// segment's own directory is.
MailSegment openSegment(const std::string& run_dir) {
  if (const std::string why = privateDirectoryProblem(run_dir); !why.empty())
    throw ConfigError("the run directory: " + why);
  return MailSegment::open(MailSegment::pathFor(run_dir));
}

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(MailPort::Clock::now().time_since_epoch()).count();
}
}  // namespace

SharedMemoryPort::SharedMemoryPort(const ClusterSettings& s, proto::Node me, const std::string& run_dir, BoxSet local,
                                   BoxSet remote_reads, BoxSet remote_writes, Transport& transport, spdlog::logger& log)
    : MailPort(me, boxesReadBy(me)),
      transport_(transport),
      segment_(openSegment(run_dir)),
      doorbell_(segment_.doorbell(me)),
      remote_writes_(remote_writes) {
  // The run directory names its segment, for people and for deploy/rfms down.
  const std::string link = run_dir + "/mailboxes";
  if (symlink(segment_.path().c_str(), link.c_str()) != 0 && errno != EEXIST)
    log.warn("cannot link {} to the mailbox segment {}", link, segment_.path());
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    const auto at = static_cast<std::size_t>(i);
    if ((reads() & local & bit(b)) != 0) attach(b, segment_.ring(b));
    if (writerOf(b) != me || (local & bit(b)) == 0) continue;
    local_writes_ |= bit(b);
    segment_.claimWriter(b);
    writers_[at] = RingWriter(segment_.ring(b), depthOf(b), capacityOf(b));
    for (proto::Node r : kClusterNodes)
      if ((readersOf(b) & (1u << r)) != 0 && hostOf(s, r) == hostOf(s, me))
        wakes_[at][static_cast<std::size_t>(wake_count_[at]++)] = Wake{&segment_.doorbell(r), doorbellBit(r, b)};
  }
  if (remote_reads != 0 || remote_writes != 0) links_.emplace(s, me, remote_reads, remote_writes, transport);
  if (remote_reads != 0) {
    remote_.emplace(remote_reads);
    for (int i = 0; i < kBoxCount; ++i)
      if ((remote_reads & bit(static_cast<Box>(i))) != 0)
        attach(static_cast<Box>(i), remote_->ring(static_cast<Box>(i)));
    relay_ = std::thread([this] { relay(); });
  }
}

SharedMemoryPort::~SharedMemoryPort() {
  stop_ = true;
  if (relay_.joinable()) relay_.join();
}

std::size_t SharedMemoryPort::publish(Box b, const proto::Envelope& mail, std::uint64_t period) {
  const std::size_t size = mail.ByteSizeLong();
  if (size > capacityOf(b)) {
    tooLarge();
    return 0;
  }
  mail.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out_.data()));
  const auto at = static_cast<std::size_t>(b);
  if ((local_writes_ & bit(b)) != 0) {
    writers_[at].write(out_.data(), static_cast<std::uint32_t>(size), period, nowNs());
    for (int r = 0; r < wake_count_[at]; ++r) {
      doorbell::ring(*wakes_[at][static_cast<std::size_t>(r)].word, wakes_[at][static_cast<std::size_t>(r)].bit);
    }
  }
  if ((remote_writes_ & bit(b)) != 0) links_->send(b, out_.data(), size);
  return size;
}

void SharedMemoryPort::deliverBeforeClosing() {
  if (links_) links_->deliverBeforeClosing();
}

bool SharedMemoryPort::satisfied(BoxSet all, BoxSet any, BoxSet unread) {
  return (all != 0 && (all & ~unread) == 0) || (any & unread) != 0;
}

std::uint32_t SharedMemoryPort::doorbellWord(BoxSet all, BoxSet any) const {
  std::uint32_t word = 0;
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if ((all & bit(b)) != 0) word |= doorbell::allOf(doorbellBit(me(), b));
    if ((any & bit(b)) != 0) word |= doorbell::anyOf(doorbellBit(me(), b));
  }
  return word;
}

bool SharedMemoryPort::wait(BoxSet all, BoxSet any, Clock::time_point deadline) {
  // The doorbell is a hint in memory others can write: a word scribbled on faster than this loop
  // turns would wake it at once every time. So the deadline is checked on every turn, and after a
  // few wakes that brought nothing the wait sleeps in short steps instead of on the word.
  constexpr int kWakesBeforeSteps = 8;
  for (int turns = 0;; ++turns) {
    ++wait_turns_;
    if (satisfied(all, any, unreadAmong(all | any))) return true;
    if (Clock::now() >= deadline) return false;
    if (turns >= kWakesBeforeSteps) {
      std::this_thread::sleep_for(std::min<Clock::duration>(deadline - Clock::now(), std::chrono::microseconds(50)));
      continue;
    }
    // Say what is awaited, then look at the mailboxes: a writer that wrote before it could see the
    // word has left its mail there, and one that writes after sees the word and rings.
    const std::uint32_t awaited = doorbellWord(all, any);
    doorbell_.store(awaited, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const BoxSet unread = unreadAmong(all | any);
    if (satisfied(all, any, unread)) {
      doorbell_.store(0, std::memory_order_relaxed);
      return true;
    }
    // The bits of mail already there are taken back out, or the writer that completes the wait
    // would not be the last to clear a bit, and would not ring. A writer that cleared a bit since
    // the word was set may have rung before this node sleeps: then look again instead.
    const std::uint32_t here = doorbellWord(all & unread, 0);
    if (doorbell_.fetch_and(~here, std::memory_order_seq_cst) != awaited) continue;
    const doorbell::Slept slept = doorbell::sleep(doorbell_, awaited & ~here, deadline);
    doorbell_.store(0, std::memory_order_relaxed);
    if (slept == doorbell::Slept::kTimedOut) return satisfied(all, any, unreadAmong(all | any));
  }
}

void SharedMemoryPort::passUntil(Clock::time_point deadline) {
  // Writers on this host stamp their mail, and the relay stamps what comes from elsewhere.
  std::this_thread::sleep_until(deadline);
}

void SharedMemoryPort::relay() {
  nameThisThread("rfms-mail-relay");  // at the node's own class: it carries the mail
  const std::span<zmq::socket_t* const> sockets = links_->inbound();
  while (!stop_.load(std::memory_order_relaxed)) {
    // A tenth of a second at most, so that the port's end is seen.
    if (pollAny(sockets, 100) < 0) continue;
    links_->drain([this](Box b, const void* data, std::size_t size) {
      if (remote_->write(b, data, size, nowNs())) doorbell::ring(doorbell_, doorbellBit(me(), b));
    });
    relay_malformed_.store(links_->malformed(), std::memory_order_relaxed);
  }
}

std::string SharedMemoryPort::refusal() { return transport_.refusal(); }

std::string SharedMemoryPort::describe() const {
  return "shared memory " + segment_.path() + (links_ ? ", ZeroMQ with other hosts" : "");
}

}  // namespace rfms
