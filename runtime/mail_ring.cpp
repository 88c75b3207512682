#include "runtime/mail_ring.hpp"

#include <cstring>
#include <new>

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

constexpr int kTries = 4;  // rereads of a slot rewritten under the reader before giving up

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
      written_(header_->head.load(std::memory_order_acquire)),
      depth_(static_cast<std::uint32_t>(depth)),
      capacity_(capacity) {}

bool RingWriter::write(const void* data, std::uint32_t size, std::uint64_t period, std::int64_t stamp_ns) {
  if (size > capacity_) return false;
  SlotHeader* s = slotAt(slots_, capacity_, written_ % depth_);
  s->sequence.store(2 * written_ + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);  // the odd mark before any byte of the mail
  s->period.store(period, std::memory_order_relaxed);
  s->stamp_ns.store(stamp_ns, std::memory_order_relaxed);
  s->length.store(size, std::memory_order_relaxed);
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
  if (before != want) return before > want ? Copy::kOverwritten : Copy::kCorrupt;
  mail.period = s->period.load(std::memory_order_relaxed);
  mail.stamp_ns = s->stamp_ns.load(std::memory_order_relaxed);
  mail.size = s->length.load(std::memory_order_relaxed);
  if (mail.size <= capacity_) {
    const std::uint64_t* words = wordsOf(s);
    for (std::uint32_t at = 0; at < mail.size; at += 8) {
      const std::uint64_t w = std::atomic_ref<const std::uint64_t>(words[at / 8]).load(std::memory_order_relaxed);
      std::memcpy(buffer + at, &w, mail.size - at < 8 ? mail.size - at : 8);
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // every byte copied before the mark is read again
  if (s->sequence.load(std::memory_order_relaxed) != before) return Copy::kOverwritten;
  return mail.size <= capacity_ ? Copy::kDone : Copy::kCorrupt;
}

std::optional<ReadMail> RingReader::next(std::byte* buffer) {
  if (header_ == nullptr) return std::nullopt;
  for (int tries = 0; tries < kTries; ++tries) {
    const std::uint64_t head = header_->head.load(std::memory_order_acquire);
    if (cursor_ >= head) return std::nullopt;
    if (head - cursor_ > depth_) {
      lost_ += head - depth_ - cursor_;
      cursor_ = head - depth_;
    }
    ReadMail mail;
    switch (copy(cursor_, buffer, mail)) {
      case Copy::kDone: ++cursor_; return mail;
      case Copy::kOverwritten: continue;  // lapped while reading: the head has moved on
      case Copy::kCorrupt:
        ++corrupt_;
        ++cursor_;
        continue;
    }
  }
  ++torn_;
  cursor_ = header_->head.load(std::memory_order_acquire);  // give up on what is there now
  return std::nullopt;
}

std::optional<ReadMail> RingReader::latest(std::byte* buffer) {
  if (header_ == nullptr) return std::nullopt;
  for (int tries = 0; tries < kTries; ++tries) {
    const std::uint64_t head = header_->head.load(std::memory_order_acquire);
    if (cursor_ >= head) return std::nullopt;
    ReadMail mail;
    switch (copy(head - 1, buffer, mail)) {
      case Copy::kDone: cursor_ = head; return mail;
      case Copy::kOverwritten: continue;
      case Copy::kCorrupt:
        ++corrupt_;
        cursor_ = head;
        return std::nullopt;
    }
  }
  ++torn_;
  cursor_ = header_->head.load(std::memory_order_acquire);
  return std::nullopt;
}

}  // namespace rfms
