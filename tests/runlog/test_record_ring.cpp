#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runlog/record_ring.hpp"

namespace rfms {
namespace {

// Record n: channel n % 7, time n, and n % 97 bytes of the value n % 251.
bool put(RecordRing& ring, std::uint64_t n) {
  const std::size_t size = n % 97;
  std::uint8_t* at = ring.reserve(size);
  if (at == nullptr) return false;
  std::memset(at, static_cast<int>(n % 251), size);
  ring.commit(static_cast<std::uint16_t>(n % 7), n);
  return true;
}

void expectRecord(const RecordRing::Record& r, std::uint64_t n) {
  ASSERT_EQ(r.time_ns, n);
  ASSERT_EQ(r.channel, n % 7);
  ASSERT_EQ(r.data.size(), n % 97);
  for (char c : r.data) ASSERT_EQ(static_cast<std::uint8_t>(c), n % 251);
}

TEST(RecordRing, RecordsComeOutInOrderAcrossManyWrapsAndAFullRingRefuses) {
  RecordRing ring(1000);  // rounded up to 1000; a few records fill it
  std::uint64_t written = 0, read = 0;
  RecordRing::Record r;
  for (int round = 0; round < 2000; ++round) {
    while (put(ring, written)) ++written;  // until full
    EXPECT_GT(ring.used(), ring.capacity() / 2);
    const int take = 1 + round % 5;
    for (int i = 0; i < take && ring.front(r); ++i, ++read) {
      expectRecord(r, read);
      ring.release();
    }
  }
  while (ring.front(r)) {
    expectRecord(r, read++);
    ring.release();
  }
  EXPECT_EQ(read, written);
  EXPECT_GT(written, 5000u);
  EXPECT_EQ(ring.used(), 0u);
  EXPECT_EQ(ring.reserve(600), nullptr);  // more than half the ring can never fit
}

TEST(RecordRing, AProducerAndAConsumerThreadAgreeOnEveryRecord) {
  RecordRing ring(4096);
  constexpr std::uint64_t kRecords = 200000;
  std::thread producer([&] {
    for (std::uint64_t n = 0; n < kRecords;)
      if (put(ring, n))
        ++n;
      else
        std::this_thread::yield();
  });
  std::uint64_t read = 0;
  RecordRing::Record r;
  while (read < kRecords) {
    if (!ring.front(r)) {
      std::this_thread::yield();
      continue;
    }
    expectRecord(r, read++);
    ring.release();
  }
  producer.join();
  EXPECT_FALSE(ring.front(r));
}

}  // namespace
}  // namespace rfms
