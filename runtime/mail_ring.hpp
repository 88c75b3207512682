// One mailbox in memory: a ring of slots, each a sequence lock around one serialised mail. One
// writer, any number of readers, and no lock either way: the writer marks a slot odd, writes, and
// marks it even; a reader copies the slot out and keeps the copy only if the mark was even and
// unchanged across the copy. Lockstep reads every mail in order (next), realtime the newest
// (latest); a reader that falls more than the ring's depth behind loses the oldest, counted.
//
// The memory may be shared with other processes (runtime/mail_segment.hpp) and is then hostile
// input. Every mail carries a CRC-32C over its number, period, stamp, length and bytes: a slot
// that any stray write touched fails it and is dropped, counted as corrupt. The ring's head is
// believed only when the slot it names vouches for it (holds that mail or a later one), so a
// scribbled head is passed over until the writer's next mail puts it right; a head that goes
// back below what the reader took sends the reader to the writer's head. Each call takes a
// bounded number of steps, and each step either takes a mail or moves past one for good, so no
// reader loops and none is left behind for ever. Real-time safe: no allocation, no lock, no
// system call.
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
  std::atomic<std::uint32_t> check;     // CRC-32C of the mail's number, period, stamp, length and bytes
};
// The layout other processes share: fixed sizes, no locks hidden in the atomics.
static_assert(sizeof(RingHeader) == 64 && sizeof(SlotHeader) == 64);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::uint32_t>::is_always_lock_free);

// Bytes a ring of `depth` mails of up to `capacity` bytes (a multiple of 64, so that every slot
// starts on a cache line) takes.
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

  // The oldest unread mail, copied into `buffer` (capacity bytes); nullopt when none is there,
  // or when the few tries one call makes all met damaged mail (then call again: each try moved
  // past a mail for good).
  std::optional<ReadMail> next(std::byte* buffer);
  // The newest, copied into `buffer`; the unread mail before it is passed over.
  std::optional<ReadMail> latest(std::byte* buffer);
  // Whether a mail is there to read: the head is past the cursor and its slot vouches for it.
  bool unread() const;

  std::uint64_t lost() const { return lost_; }           // overwritten before it was read
  std::uint64_t corrupt() const { return corrupt_; }     // a sequence, length or check no writer leaves
  std::uint64_t torn() const { return torn_; }           // rewritten while it was being copied
  std::uint64_t badHeads() const { return bad_heads_; }  // heads no slot vouched for, by value

 private:
  enum class Copy { kDone, kOverwritten, kTorn, kCorrupt };
  Copy copy(std::uint64_t n, std::byte* buffer, ReadMail& mail) const;
  bool vouched(std::uint64_t head) const;
  // The head to read up to, or nullopt when there is none (a head no slot vouches for, counted
  // once per value; a head below the cursor that the cursor's own slot no longer vouches for
  // moves the cursor back to it).
  std::optional<std::uint64_t> head();

  const RingHeader* header_ = nullptr;
  const std::byte* slots_ = nullptr;
  std::uint64_t cursor_ = 0;  // the next mail to read
  std::uint32_t depth_ = 0, capacity_ = 0;
  std::uint64_t lost_ = 0, corrupt_ = 0, torn_ = 0, bad_heads_ = 0;
  std::uint64_t last_bad_head_ = 0;
};

}  // namespace rfms
