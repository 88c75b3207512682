// The period and the background kept in step, each side on its own thread as in the cluster:
// every step is prepared before the period takes it; a background that needs room has the period
// apply the link's commands first; interrupt() frees a background waiting for room; and the
// realtime clock never waits. Only order is asserted, never how long anything took.
#include <gtest/gtest.h>

#include <poll.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "supervisor/shell/step_handshake.hpp"

namespace rfms {
namespace {

using Clock = StepHandshake::Clock;

// What both sides did, in the order they did it.
class Journal {
 public:
  void add(std::string what) {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(std::move(what));
  }
  std::vector<std::string> entries() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> entries_;
};

// The background's wait for the next period, as its loop polls (at most ten seconds in all).
bool waitForSteps(StepHandshake& h, std::uint64_t steps) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (h.stepsDone() < steps) {
    if (Clock::now() > deadline) return false;
    pollfd fd{h.wakeFd(), POLLIN, 0};
    ::poll(&fd, 1, 100);
    h.drainWake();
  }
  return true;
}

TEST(StepHandshake, RealtimeNeverWaits) {
  StepHandshake h(false);
  h.restart(0);
  EXPECT_TRUE(h.prepared(0));
  EXPECT_TRUE(h.prepared(1000)) << "nothing was prepared, and the period goes on";
}

TEST(StepHandshake, EachStepIsPreparedBeforeThePeriodTakesIt) {
  StepHandshake h(true);
  h.restart(5);
  Journal journal;
  constexpr std::uint64_t kLast = 25;
  std::thread background([&] {
    for (std::uint64_t k = 5; k <= kLast; ++k) {
      if (!waitForSteps(h, k)) return journal.add("background gave up");
      journal.add("prepare " + std::to_string(k));
      h.preparedUpTo(k + 1);
    }
  });
  for (std::uint64_t k = 5; k <= kLast; ++k) {
    while (!h.prepared(k)) journal.add("room asked");
    journal.add("step " + std::to_string(k));
    h.stepped(k);
  }
  background.join();
  std::vector<std::string> want;
  for (std::uint64_t k = 5; k <= kLast; ++k) {
    want.push_back("prepare " + std::to_string(k));
    want.push_back("step " + std::to_string(k));
  }
  EXPECT_EQ(journal.entries(), want);
}

TEST(StepHandshake, ABackgroundThatNeedsRoomHasTheWaitingPeriodTakeTheCommandsFirst) {
  StepHandshake h(true);
  h.restart(0);
  Journal journal;
  std::thread background([&] {
    journal.add("prepare 0 begins");
    const bool made = h.askForRoom(Clock::now() + std::chrono::seconds(60));
    journal.add(made ? "room made" : "no room");
    h.preparedUpTo(1);
  });
  while (!h.prepared(0)) {
    journal.add("commands taken");
    h.roomMade();
  }
  journal.add("step 0");
  background.join();
  const std::vector<std::string> want = {"prepare 0 begins", "commands taken", "room made", "step 0"};
  EXPECT_EQ(journal.entries(), want);
}

TEST(StepHandshake, InterruptFreesABackgroundWaitingForRoom) {
  StepHandshake h(true);
  h.restart(0);
  bool made = true;
  std::thread background([&] { made = h.askForRoom(Clock::now() + std::chrono::hours(1)); });
  h.interrupt();  // whether it comes before the background asks or after, the ask ends
  background.join();
  EXPECT_FALSE(made);
  h.restart(0);
  std::thread again([&] { made = h.askForRoom(Clock::now() + std::chrono::milliseconds(50)); });
  again.join();
  EXPECT_FALSE(made) << "after a restart the ask waits again, until its deadline";
}

}  // namespace
}  // namespace rfms
