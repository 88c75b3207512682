// The period's events on their way to the background: each one reaches the events file and the
// log in order, late ticks are said in one line, and events that do not fit a full queue are
// counted and said, never waited for.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "supervisor/shell/event_follower.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

class EventFollowerTest : public ::testing::Test {
 protected:
  EventFollowerTest() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)), log_("supervisor", sink_) {
    log_.set_pattern("%l: %v");
  }

  static SupervisorOutbox outboxWith(std::initializer_list<SupervisorEvent> events) {
    SupervisorOutbox out;
    for (const SupervisorEvent& e : events) out.events[static_cast<std::size_t>(out.event_count++)] = e;
    return out;
  }
  static SupervisorEvent moveEvent(SupervisorEvent::Kind kind, std::uint64_t period, std::uint64_t id) {
    SupervisorEvent e;
    e.kind = kind;
    e.period = period;
    e.move_id = id;
    return e;
  }
  std::vector<std::string> lines() { return sink_->last_formatted(); }

  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  spdlog::logger log_;
};

TEST_F(EventFollowerTest, EachEventReachesTheFileAndTheLogInOrder) {
  EventFollower follower(log_);
  follower.take(outboxWith({moveEvent(SupervisorEvent::kMoveStarted, 10, 1)}));
  follower.take(outboxWith({moveEvent(SupervisorEvent::kMoveCompleted, 20, 1)}));
  const std::string path = (test::scratchDir() / "follower-events.jsonl").string();
  {
    EventFile file(path);
    follower.follow(nullptr, nullptr, &file);
  }
  EXPECT_EQ(lines().size(), 2u);
  EXPECT_NE(lines()[0].find("info: period 10: move #1 started"), std::string::npos) << lines()[0];
  EXPECT_NE(lines()[1].find("info: period 20: move #1 completed"), std::string::npos) << lines()[1];
  std::ifstream in(path);
  std::string first, second, third;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_NE(first.find("\"MOVE_STARTED\""), std::string::npos) << first;
  EXPECT_NE(second.find("\"MOVE_COMPLETED\""), std::string::npos) << second;
  EXPECT_FALSE(std::getline(in, third)) << "each event once";
  follower.follow(nullptr, nullptr, nullptr);
  EXPECT_EQ(lines().size(), 2u) << "nothing new, nothing said";
}

TEST_F(EventFollowerTest, LateTicksAreSaidInOneLineWithTheLastPeriod) {
  EventFollower follower(log_);
  follower.lateTicks(100, 2);
  follower.lateTicks(250, 3);
  follower.follow(nullptr, nullptr, nullptr);
  ASSERT_EQ(lines().size(), 1u);
  EXPECT_NE(lines()[0].find("warning: period 250: 5 tick(s) late; skipped"), std::string::npos) << lines()[0];
}

TEST_F(EventFollowerTest, EventsThatDoNotFitAFullQueueAreCountedAndSaid) {
  EventFollower follower(log_, 2);
  follower.take(
      outboxWith({moveEvent(SupervisorEvent::kMoveStarted, 1, 1), moveEvent(SupervisorEvent::kMoveCompleted, 2, 1),
                  moveEvent(SupervisorEvent::kMoveStarted, 3, 2)}));
  follower.follow(nullptr, nullptr, nullptr);
  const std::vector<std::string> said = lines();
  ASSERT_EQ(said.size(), 3u);
  EXPECT_NE(said[1].find("move #1 completed"), std::string::npos) << said[1];
  EXPECT_NE(said[2].find("error: 1 events of the period were lost"), std::string::npos) << said[2];
}

}  // namespace
}  // namespace rfms
