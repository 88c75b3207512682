// One mailbox in memory: a ring of slots, each a sequence lock around one serialised mail. One
// writer, any number of readers, and no lock either way: the writer marks a slot odd, writes, and
// marks it even; a reader copies the slot out and keeps the copy only if the mark was even and
// unchanged across the copy. Lockstep reads every mail in order (next), realtime the newest
// (latest); a reader that falls more than the ring's depth behind loses the oldest, counted.
//
// The memory may be shared with other processes (runtime/mail_segment.hpp) and is then hostile
// input: a reader checks every sequence and length it reads, counts what is torn or corrupt and
// drops it, and gives up on a ring after a bounded number of tries, never loops or crashes.
// Real-time safe: no allocation, no lock, no system call.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace rfms {

// A ring's memory: this header, then `depth` slots of a SlotHeader and `capacity` bytes each.
struct alignas(64) RingHeader {
  std::atomic<std::uint64_t> head;  // mails written so far
  std::uint32_t depth;              // as laid out, checked once when a reader attaches
  std::uint32_t capacity;
};

struct alignas(64) SlotHeader {
  std::atomic<std::uint64_t> sequence;  // 2n+1 while mail n is written, 2n+2 once it is
  std::atomic<std::uint64_t> period;    // the period the writer gave
  std::atomic<std::int64_t> stamp_ns;   // the writer's steady clock when it wrote
  std::atomic<std::uint32_t> length;    // bytes
};

// Bytes a ring of `depth` mails of up to `capacity` bytes (a multiple of 8) takes.
std::size_t ringBytes(int depth, std::uint32_t capacity);
// Lays an empty ring out at `at` (ringBytes of zeroed or reused memory, 64-byte aligned).
void initRing(void* at, int depth, std::uint32_t capacity);
// Whether the ring at `at` was laid out with this shape.
bool ringHasShape(const void* at, int depth, std::uint32_t capacity);

class RingWriter {
 public:
  RingWriter() = default;
  RingWriter(void* at, int depth, std::uint32_t capacity);

  // Writes one mail; false, and nothing written, when it is larger than the ring's capacity.
  bool write(const void* data, std::uint32_t size, std::uint64_t period, std::int64_t stamp_ns);
  std::uint32_t capacity() const { return capacity_; }

 private:
  RingHeader* header_ = nullptr;
  std::byte* slots_ = nullptr;
  std::uint64_t written_ = 0;
  std::uint32_t depth_ = 0, capacity_ = 0;
};

struct ReadMail {
  std::uint32_t size = 0;
  std::uint64_t period = 0;
  std::int64_t stamp_ns = 0;
};

class RingReader {
 public:
  RingReader() = default;
  // Starts after the mail already written: a reader sees what comes once it is there.
  RingReader(const void* at, int depth, std::uint32_t capacity);

  // The oldest unread mail, copied into `buffer` (capacity bytes); nullopt when none is there.
  std::optional<ReadMail> next(std::byte* buffer);
  // The newest, copied into `buffer`; the unread mail before it is passed over.
  std::optional<ReadMail> latest(std::byte* buffer);
  bool unread() const { return header_ != nullptr && header_->head.load(std::memory_order_acquire) > cursor_; }

  std::uint64_t lost() const { return lost_; }        // overwritten before it was read
  std::uint64_t corrupt() const { return corrupt_; }  // a sequence or length no writer leaves
  std::uint64_t torn() const { return torn_; }        // rewritten while being read, too often

 private:
  enum class Copy { kDone, kOverwritten, kCorrupt };
  Copy copy(std::uint64_t n, std::byte* buffer, ReadMail& mail) const;

  const RingHeader* header_ = nullptr;
  const std::byte* slots_ = nullptr;
  std::uint64_t cursor_ = 0;  // the next mail to read
  std::uint32_t depth_ = 0, capacity_ = 0;
  std::uint64_t lost_ = 0, corrupt_ = 0, torn_ = 0;
};

}  // namespace rfms
