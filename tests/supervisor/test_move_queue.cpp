#include "supervisor/move_queue.hpp"

#include <gtest/gtest.h>

namespace rfms {
namespace {

MoveSpec move(std::uint64_t id) { return MoveSpec{id, static_cast<int>(id % 7), static_cast<int>(id % 5)}; }

// First in, first out, around the ring many times over; full refuses and keeps what it holds.
TEST(MoveQueue, KeepsTheOrderAroundTheRingAndRefusesWhenFull) {
  MoveQueue q;
  std::uint64_t in = 1, out = 1;
  for (int round = 0; round < 5; ++round) {
    while (q.push(move(in))) ++in;
    ASSERT_TRUE(q.full());
    EXPECT_EQ(q.size(), MoveQueue::kCapacity);
    EXPECT_FALSE(q.push(move(999)));
    EXPECT_EQ(q.at(q.size() - 1).id, in - 1) << "a refused push changes nothing";
    for (int n = 0; n < MoveQueue::kCapacity / 2 + round; ++n) {
      EXPECT_EQ(q.front().id, out);
      MoveSpec m;
      ASSERT_TRUE(q.pop(m));
      EXPECT_EQ(m.id, out);
      EXPECT_EQ(m.position, static_cast<int>(out % 7));
      ++out;
    }
    for (int n = 0; n < q.size(); ++n) EXPECT_EQ(q.at(n).id, out + static_cast<std::uint64_t>(n));
  }
  q.clear();
  MoveSpec m;
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.pop(m));
}

}  // namespace
}  // namespace rfms
