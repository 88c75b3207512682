#include "runlog/record_ring.hpp"

namespace rfms {

RecordRing::RecordRing(std::size_t bytes)
    : capacity_((bytes + 7) & ~std::size_t{7}), block_(new std::uint8_t[capacity_]) {
  std::memset(block_.get(), 0, capacity_);
}

std::uint8_t* RecordRing::reserve(std::size_t size) {
  const std::size_t need = span(size);
  if (need > capacity_ / 2) return nullptr;
  const std::uint64_t head = head_.load(std::memory_order_relaxed);
  const std::uint64_t tail = tail_.load(std::memory_order_acquire);
  const std::size_t at = static_cast<std::size_t>(head % capacity_);
  // A record never wraps: when it does not fit before the end, the end is skipped.
  const std::size_t skip = capacity_ - at < need ? capacity_ - at : 0;
  if (head + skip + need - tail > capacity_) return nullptr;
  if (skip > 0) {
    Header wrap{kWrap, 0, 0, 0};
    std::memcpy(block_.get() + at, &wrap, sizeof(std::uint32_t));  // at least 8 bytes remain there
  }
  reserved_at_ = head + skip;
  reserved_size_ = size;
  return block_.get() + (reserved_at_ % capacity_) + sizeof(Header);
}

void RecordRing::commit(std::uint16_t channel, std::uint64_t time_ns) {
  const Header h{static_cast<std::uint32_t>(reserved_size_), channel, 0, time_ns};
  std::memcpy(block_.get() + (reserved_at_ % capacity_), &h, sizeof h);
  head_.store(reserved_at_ + span(reserved_size_), std::memory_order_release);
}

bool RecordRing::front(Record& r) {
  std::uint64_t tail = tail_.load(std::memory_order_relaxed);
  for (;;) {
    if (tail == head_.load(std::memory_order_acquire)) return false;
    const std::size_t at = static_cast<std::size_t>(tail % capacity_);
    Header h;
    std::memcpy(&h.size, block_.get() + at, sizeof h.size);
    if (h.size == kWrap) {
      tail += capacity_ - at;
      tail_.store(tail, std::memory_order_release);
      continue;
    }
    std::memcpy(&h, block_.get() + at, sizeof h);
    r.channel = h.channel;
    r.time_ns = h.time_ns;
    r.data = std::string_view(reinterpret_cast<const char*>(block_.get() + at + sizeof h), h.size);
    front_end_ = tail + span(h.size);
    return true;
  }
}

void RecordRing::release() { tail_.store(front_end_, std::memory_order_release); }

}  // namespace rfms
