#include "runtime/mail_ring.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/crc32c.hpp"

namespace rfms {

namespace {

constexpr std::size_t slotBytes(std::uint32_t capacity) { return sizeof(SlotHeader) + capacity; }

SlotHeader* slotAt(std::byte* slots, std::uint32_t capacity, std::uint64_t i) {
  return reinterpret_cast<SlotHeader*>(slots + i * slotBytes(capacity));
}
const SlotHeader* slotAt(const std::byte* slots, std::uint32_t capacity, std::uint64_t i) {
  return reinterpret_cast<const SlotHeader*>(slots + i * slotBytes(capacity));
}

// The payload is copied a word at a time through atomic references: another process may be
// writing it meanwhile, and only atomic accesses make that race defined (the sequence then says
// whether the copy is whole).
std::uint64_t* wordsOf(SlotHeader* s) { return reinterpret_cast<std::uint64_t*>(s + 1); }
const std::uint64_t* wordsOf(const SlotHeader* s) { return reinterpret_cast<const std::uint64_t*>(s + 1); }

constexpr int kTries = 4;  // mails one call moves past before it gives up for now

// The check a mail carries: over its number too, so that a slot's bytes from another lap, or
// another slot's, never pass for this mail.
std::uint32_t checkOf(std::uint64_t n, std::uint64_t period, std::int64_t stamp_ns, std::uint32_t size,
                      const void* data) {
  struct {
    std::uint64_t n, period;
    std::int64_t stamp_ns;
    std::uint64_t size;
  } const fields{n, period, stamp_ns, size};
  return crc32c(crc32c(0, &fields, sizeof fields), data, size);
}

// No run writes more mail than this (2^61 mails at 1 MHz take 73,000 years): a head or mark
// beyond it is a scribble.
constexpr std::uint64_t kLargestMail = std::uint64_t{1} << 61;

// The writer marks mail n's slot with 2n+2 before it sets the head to n+1, and later laps only
// raise the mark: a slot marked below that never held the mail the head claims.
bool vouches(const std::byte* slots, std::uint32_t depth, std::uint32_t capacity, std::uint64_t head) {
  if (head == 0) return true;
  return head <= kLargestMail &&
         slotAt(slots, capacity, (head - 1) % depth)->sequence.load(std::memory_order_acquire) >= 2 * head;
}

}  // namespace

std::size_t ringBytes(int depth, std::uint32_t capacity) {
  return sizeof(RingHeader) + static_cast<std::size_t>(depth) * slotBytes(capacity);
}

void initRing(void* at, int depth, std::uint32_t capacity) {
  auto* h = new (at) RingHeader;
  h->head.store(0, std::memory_order_relaxed);
  h->depth = static_cast<std::uint32_t>(depth);
  h->capacity = capacity;
  auto* slots = reinterpret_cast<std::byte*>(h + 1);
  for (int i = 0; i < depth; ++i) {
    auto* s = new (slotAt(slots, capacity, static_cast<std::uint64_t>(i))) SlotHeader;
    s->sequence.store(0, std::memory_order_relaxed);
    s->period.store(0, std::memory_order_relaxed);
    s->stamp_ns.store(0, std::memory_order_relaxed);
    s->length.store(0, std::memory_order_relaxed);
    s->check.store(0, std::memory_order_relaxed);
  }
  std::atomic_thread_fence(std::memory_order_release);
}

bool ringHasShape(const void* at, int depth, std::uint32_t capacity) {
  const auto* h = static_cast<const RingHeader*>(at);
  return h->depth == static_cast<std::uint32_t>(depth) && h->capacity == capacity;
}

RingWriter::RingWriter(void* at, int depth, std::uint32_t capacity)
    : header_(static_cast<RingHeader*>(at)),
      slots_(reinterpret_cast<std::byte*>(header_ + 1)),
      depth_(static_cast<std::uint32_t>(depth)),
      capacity_(capacity) {
  // A writer that takes over a ring (a node restarted) goes on after the newest mail in it. The
  // head says which, unless something scribbled on it: then the slots' marks do.
  written_ = header_->head.load(std::memory_order_acquire);
  if (vouches(slots_, depth_, capacity_, written_)) return;
  written_ = 0;
  for (std::uint32_t i = 0; i < depth_; ++i) {
    const std::uint64_t mark = slotAt(slots_, capacity_, i)->sequence.load(std::memory_order_acquire);
    if (mark <= 2 * kLargestMail) written_ = std::max(written_, (mark + 1) / 2);
  }
}

bool RingWriter::write(const void* data, std::uint32_t size, std::uint64_t period, std::int64_t stamp_ns) {
  if (size > capacity_) return false;
  SlotHeader* s = slotAt(slots_, capacity_, written_ % depth_);
  s->sequence.store(2 * written_ + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);  // the odd mark before any byte of the mail
  s->period.store(period, std::memory_order_relaxed);
  s->stamp_ns.store(stamp_ns, std::memory_order_relaxed);
  s->length.store(size, std::memory_order_relaxed);
  s->check.store(checkOf(written_, period, stamp_ns, size, data), std::memory_order_relaxed);
  std::uint64_t* words = wordsOf(s);
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::uint32_t at = 0; at < size; at += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes + at, size - at < 8 ? size - at : 8);
    std::atomic_ref<std::uint64_t>(words[at / 8]).store(w, std::memory_order_relaxed);
  }
  s->sequence.store(2 * written_ + 2, std::memory_order_release);
  ++written_;
  // Sequentially consistent: a reader that announces it waits and then finds no new mail must
  // be seen by this writer's look at its doorbell (runtime/doorbell.hpp).
  header_->head.store(written_, std::memory_order_seq_cst);
  return true;
}

RingReader::RingReader(const void* at, int depth, std::uint32_t capacity)
    : header_(static_cast<const RingHeader*>(at)),
      slots_(reinterpret_cast<const std::byte*>(header_ + 1)),
      cursor_(header_->head.load(std::memory_order_acquire)),
      depth_(static_cast<std::uint32_t>(depth)),
      capacity_(capacity) {}

RingReader::Copy RingReader::copy(std::uint64_t n, std::byte* buffer, ReadMail& mail) const {
  const SlotHeader* s = slotAt(slots_, capacity_, n % depth_);
  const std::uint64_t want = 2 * n + 2;
  const std::uint64_t before = s->sequence.load(std::memory_order_acquire);
  // Odd just above: the writer is writing the mail a lap on over this one.
  if (before != want) return before > want ? Copy::kOverwritten : Copy::kCorrupt;
  mail.period = s->period.load(std::memory_order_relaxed);
  mail.stamp_ns = s->stamp_ns.load(std::memory_order_relaxed);
  mail.size = s->length.load(std::memory_order_relaxed);
  const std::uint32_t check = s->check.load(std::memory_order_relaxed);
  if (mail.size <= capacity_) {
    const std::uint64_t* words = wordsOf(s);
    for (std::uint32_t at = 0; at < mail.size; at += 8) {
      const std::uint64_t w = std::atomic_ref<const std::uint64_t>(words[at / 8]).load(std::memory_order_relaxed);
      std::memcpy(buffer + at, &w, mail.size - at < 8 ? mail.size - at : 8);
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // every byte copied before the mark is read again
  if (s->sequence.load(std::memory_order_relaxed) != before) return Copy::kTorn;
  if (mail.size > capacity_ || check != checkOf(n, mail.period, mail.stamp_ns, mail.size, buffer))
    return Copy::kCorrupt;
  return Copy::kDone;
}

bool RingReader::vouched(std::uint64_t head) const { return vouches(slots_, depth_, capacity_, head); }

bool RingReader::unread() const {
  if (header_ == nullptr) return false;
  const std::uint64_t head = header_->head.load(std::memory_order_acquire);
  return head > cursor_ && vouched(head);
}

std::optional<std::uint64_t> RingReader::head() {
  const std::uint64_t head = header_->head.load(std::memory_order_acquire);
  if (!vouched(head)) {
    if (head != last_bad_head_) ++bad_heads_, last_bad_head_ = head;
    return std::nullopt;
  }
  if (head >= cursor_) return head;
  // Below what was read: either this head is a scribble (the cursor's slot still vouches for the
  // cursor: wait for the writer to put it right) or the cursor came from one (go where the writer is).
  if (!vouched(cursor_)) cursor_ = head;
  if (head != last_bad_head_) ++bad_heads_, last_bad_head_ = head;
  return std::nullopt;
}

std::optional<ReadMail> RingReader::next(std::byte* buffer) {
  if (header_ == nullptr) return std::nullopt;
  for (int tries = 0; tries < kTries; ++tries) {
    const std::optional<std::uint64_t> head = this->head();
    if (!head || cursor_ == *head) return std::nullopt;
    if (*head - cursor_ > depth_) {
      lost_ += *head - depth_ - cursor_;
      cursor_ = *head - depth_;
    }
    ReadMail mail;
    // Whatever the copy found, this mail is done with: taken, or gone for good.
    switch (copy(cursor_++, buffer, mail)) {
      case Copy::kDone: return mail;
      case Copy::kOverwritten: ++lost_; break;  // lapped: its slot holds a later mail
      case Copy::kTorn: ++torn_; break;
      case Copy::kCorrupt: ++corrupt_; break;
    }
  }
  return std::nullopt;
}

std::optional<ReadMail> RingReader::latest(std::byte* buffer) {
  if (header_ == nullptr) return std::nullopt;
  for (int tries = 0; tries < kTries; ++tries) {
    const std::optional<std::uint64_t> head = this->head();
    if (!head || cursor_ == *head) return std::nullopt;
    ReadMail mail;
    switch (copy(*head - 1, buffer, mail)) {
      case Copy::kDone: cursor_ = *head; return mail;
      case Copy::kOverwritten: continue;  // the writer has moved on: its newer head is the one to read
      case Copy::kTorn: ++torn_; continue;
      case Copy::kCorrupt:
        ++corrupt_;
        cursor_ = *head;
        return std::nullopt;
    }
  }
  // A writer that outruns every try: what is there now is passed over, so that unread() is false
  // until it writes again.
  if (const std::optional<std::uint64_t> head = this->head()) cursor_ = *head;
  return std::nullopt;
}

}  // namespace rfms
