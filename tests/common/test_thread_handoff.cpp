// The two hand-offs between a period thread and a thread beside it: the queue that carries the
// background's commands in order, and the triple buffer that carries the period's newest view.
// Each is driven by two real threads; what must hold holds whatever the interleaving.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>

#include "common/spsc_queue.hpp"
#include "common/triple_buffer.hpp"

namespace rfms {
namespace {

TEST(SpscQueue, HoldsItsCapacityAndRefusesMoreInOrder) {
  SpscQueue<int> q(3);
  EXPECT_EQ(q.front(), nullptr);
  EXPECT_TRUE(q.push(1));
  EXPECT_TRUE(q.push(2));
  EXPECT_TRUE(q.push(3));
  EXPECT_FALSE(q.push(4));  // full: refused, nothing overwritten
  ASSERT_NE(q.front(), nullptr);
  EXPECT_EQ(*q.front(), 1);
  q.pop();
  EXPECT_TRUE(q.push(4));
  for (int expected : {2, 3, 4}) {
    ASSERT_NE(q.front(), nullptr);
    EXPECT_EQ(*q.front(), expected);
    q.pop();
  }
  EXPECT_EQ(q.front(), nullptr);
  EXPECT_EQ(q.pushed(), 4u);
  EXPECT_EQ(q.popped(), 4u);
}

// A value whose parts must agree: a torn copy would show.
struct Stamped {
  std::uint64_t n = 0;
  std::array<std::uint64_t, 32> copies{};
};

TEST(SpscQueue, CarriesEveryValueOnceInOrderBetweenTwoThreads) {
  constexpr std::uint64_t kValues = 200000;
  SpscQueue<Stamped> q(16);
  std::thread producer([&] {
    for (std::uint64_t n = 1; n <= kValues;) {
      Stamped s;
      s.n = n;
      s.copies.fill(n);
      if (q.push(s))
        ++n;
      else
        std::this_thread::yield();
    }
  });
  std::uint64_t expected = 1, torn = 0;
  while (expected <= kValues) {
    const Stamped* s = q.front();
    if (s == nullptr) {
      std::this_thread::yield();
      continue;
    }
    ASSERT_EQ(s->n, expected);
    for (std::uint64_t c : s->copies) torn += c != s->n ? 1 : 0;
    q.pop();
    ++expected;
  }
  producer.join();
  EXPECT_EQ(torn, 0u);
  EXPECT_EQ(q.front(), nullptr);
}

TEST(TripleBuffer, TheReaderSeesTheNewestWholeValueAndNeverGoesBack) {
  TripleBuffer<Stamped> b;
  EXPECT_EQ(b.latest().n, 0u);  // nothing published yet
  constexpr std::uint64_t kValues = 200000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::uint64_t n = 1; n <= kValues; ++n) {
      Stamped& s = b.back();
      s.n = n;
      s.copies.fill(n);
      b.publish();
    }
    done = true;
  });
  std::uint64_t last = 0, torn = 0, reads = 0;
  while (!done || last < kValues) {
    const Stamped& s = b.latest();
    ASSERT_GE(s.n, last);
    for (std::uint64_t c : s.copies) torn += c != s.n ? 1 : 0;
    last = s.n;
    ++reads;
  }
  writer.join();
  EXPECT_EQ(torn, 0u);
  EXPECT_EQ(last, kValues);  // the last value published is the one the reader ends on
  EXPECT_GT(reads, 0u);
}

}  // namespace
}  // namespace rfms
