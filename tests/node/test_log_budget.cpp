// The log budget: a flood of client-caused lines becomes a few lines a second and a count.
#include <gtest/gtest.h>

#include "node/log_budget.hpp"

namespace rfms {
namespace {

TEST(LogBudget, WritesTheBudgetEachSecondCountsTheRestAndCutsLongLines) {
  LogBudget b(10, 20);
  const auto t0 = LogBudget::Clock::time_point{} + std::chrono::hours(1);
  std::uint64_t held = 0;
  int written = 0;
  for (int i = 0; i < 200; ++i) {
    if (b.take(t0 + std::chrono::milliseconds(i), held)) ++written;
    EXPECT_EQ(held, 0u);
  }
  EXPECT_EQ(written, 10);
  // The next second opens with the count of the lines held back.
  EXPECT_TRUE(b.take(t0 + std::chrono::milliseconds(1500), held));
  EXPECT_EQ(held, 190u);
  EXPECT_EQ(b.totalDropped(), 190u);
  EXPECT_EQ(b.cut("short"), "short");
  const std::string cut = b.cut(std::string(65536, 'x'));
  EXPECT_EQ(cut.substr(0, 20), std::string(20, 'x'));
  EXPECT_NE(cut.find("65516 more characters"), std::string::npos);
  EXPECT_LT(cut.size(), 60u);
}

}  // namespace
}  // namespace rfms
