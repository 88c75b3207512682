// A single-producer, single-consumer ring of variable-length records in one preallocated block:
// the period's thread serialises a message straight into it, the run logger's writer thread
// takes the records out. Neither side allocates, locks or waits: a record that does not fit is
// refused, and the producer decides whether to drop it or try again.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace rfms {

class RecordRing {
 public:
  struct Record {
    std::uint16_t channel = 0;
    std::uint64_t time_ns = 0;
    std::string_view data;
  };

  // `bytes` of storage, rounded up to 8; touched here so that no page fault waits for the producer.
  explicit RecordRing(std::size_t bytes);

  // Producer. Room for a record of `size` bytes, or nullptr when the ring is too full (or the
  // record is larger than half the ring); the record exists once commit() is called.
  std::uint8_t* reserve(std::size_t size);
  void commit(std::uint16_t channel, std::uint64_t time_ns);

  // Consumer. The oldest record, valid until release(); false when the ring is empty.
  bool front(Record& r);
  void release();

  std::size_t capacity() const { return capacity_; }
  std::size_t used() const { return static_cast<std::size_t>(head_.load() - tail_.load()); }

 private:
  struct Header {
    std::uint32_t size;  // payload bytes; kWrap: the rest of the block is unused
    std::uint16_t channel;
    std::uint16_t pad;
    std::uint64_t time_ns;
  };
  static constexpr std::uint32_t kWrap = 0xffffffffu;
  static constexpr std::size_t span(std::size_t size) { return (sizeof(Header) + size + 7) & ~std::size_t{7}; }

  std::size_t capacity_;
  std::unique_ptr<std::uint8_t[]> block_;
  // Bytes ever written and ever released: positions in the block are these modulo capacity_.
  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
  // The producer's reservation in progress.
  std::uint64_t reserved_at_ = 0;
  std::size_t reserved_size_ = 0;
  // The consumer's record in hand.
  std::uint64_t front_end_ = 0;
};

}  // namespace rfms
