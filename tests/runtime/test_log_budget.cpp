// The log budget: a flood of client-caused lines becomes a few lines a second and a count.
#include <gtest/gtest.h>

#include "runtime/log_budget.hpp"

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

// Issue 54: the count of what was held back came only with the next line, which after a flood
// may be minutes away. heldBack() says it once the window has ended, once.
TEST(LogBudget, WhatWasHeldBackIsSaidOnATimerWithoutWaitingForTheNextLine) {
  LogBudget b(5);
  const auto t0 = LogBudget::Clock::time_point{} + std::chrono::hours(1);
  std::uint64_t held = 0;
  for (int i = 0; i < 100; ++i) b.take(t0 + std::chrono::milliseconds(i), held);
  EXPECT_EQ(b.heldBack(t0 + std::chrono::milliseconds(500)), 0u);  // the window lasts
  EXPECT_EQ(b.heldBack(t0 + std::chrono::milliseconds(1100)), 95u);
  EXPECT_EQ(b.heldBack(t0 + std::chrono::milliseconds(2200)), 0u);  // said once
  EXPECT_TRUE(b.take(t0 + std::chrono::milliseconds(2300), held));
  EXPECT_EQ(held, 0u);
}

// A flood at 1,000 lines a second for three hours: each hour writes its 600 lines in its first
// minute; after that the count is said once a minute, not once a second.
TEST(LogBudget, AnHoursLinesAreBoundedWhateverTheFloodLasts) {
  LogBudget b(10, 200, 600);
  const auto t0 = LogBudget::Clock::time_point{} + std::chrono::hours(1);
  std::uint64_t held = 0, counted = 0;
  int written = 0, summaries = 0;
  for (int ms = 0; ms < 3 * 3600 * 1000; ++ms) {
    if (b.take(t0 + std::chrono::milliseconds(ms), held)) ++written;
    if (held > 0) ++summaries, counted += held;
  }
  EXPECT_EQ(written, 3 * 600);
  // Per hour: at most one count a second while the lines last (60 s), then one a minute.
  EXPECT_LE(summaries, 3 * (60 + 60));
  EXPECT_GE(summaries, 3 * 59);
  // Every line is written or counted, and every count but the last window's is said.
  EXPECT_EQ(static_cast<std::uint64_t>(written) + b.totalDropped(), 3u * 3600 * 1000);
  EXPECT_LE(counted, b.totalDropped());
  EXPECT_GE(counted + 60 * 1000, b.totalDropped());
}

}  // namespace
}  // namespace rfms
