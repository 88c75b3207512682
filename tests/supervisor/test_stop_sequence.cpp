// How a stop signal brings the arm to rest: stop the motion once, then switch the power off once,
// when the arm is at rest or the timeout has passed, whichever comes first.
#include <gtest/gtest.h>

#include "supervisor/shell/stop_sequence.hpp"

namespace rfms {
namespace {

using Clock = StopSequence::Clock;

TEST(StopSequence, NothingUntilAStopIsAsked) {
  StopSequence s;
  const Clock::time_point t0{};
  EXPECT_FALSE(s.next(false, proto::RT_SETP, t0));
  EXPECT_FALSE(s.next(false, proto::RT_HOLD, t0 + std::chrono::hours(1)));
  EXPECT_FALSE(s.stopping());
}

TEST(StopSequence, StopsTheMotionThenSwitchesThePowerOffOnceAtRest) {
  StopSequence s;
  const Clock::time_point t0{};
  EXPECT_EQ(s.next(true, proto::RT_SETP, t0), proto::CC_STOP);
  EXPECT_TRUE(s.stopping());
  // Still moving, then stopping on its path: nothing more, whether or not the signal is still seen.
  EXPECT_FALSE(s.next(true, proto::RT_SETP, t0 + std::chrono::milliseconds(1)));
  EXPECT_FALSE(s.next(false, proto::RT_STOP, t0 + std::chrono::seconds(1)));
  EXPECT_EQ(s.next(false, proto::RT_HOLD, t0 + std::chrono::seconds(2)), proto::CC_POWER_OFF);
  EXPECT_FALSE(s.next(true, proto::RT_IDLE, t0 + std::chrono::seconds(3))) << "the power goes off once";
}

TEST(StopSequence, SwitchesThePowerOffAfterTheTimeoutWhateverTheArmDoes) {
  StopSequence s;
  const Clock::time_point t0{};
  EXPECT_EQ(s.next(true, proto::RT_SETP, t0), proto::CC_STOP);
  EXPECT_FALSE(s.next(false, proto::RT_STOP, t0 + StopSequence::kTimeout)) << "at the timeout, not before";
  EXPECT_EQ(s.next(false, proto::RT_STOP, t0 + StopSequence::kTimeout + std::chrono::milliseconds(1)),
            proto::CC_POWER_OFF);
}

TEST(StopSequence, AnArmAlreadyAtRestIsSwitchedOffAtTheNextLook) {
  for (proto::RtState state : {proto::RT_IDLE, proto::RT_HOLD, proto::RT_EMGCY}) {
    StopSequence s;
    EXPECT_EQ(s.next(true, state, Clock::time_point{}), proto::CC_STOP);
    EXPECT_EQ(s.next(true, state, Clock::time_point{}), proto::CC_POWER_OFF) << proto::RtState_Name(state);
  }
}

}  // namespace
}  // namespace rfms
