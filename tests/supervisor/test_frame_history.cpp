#include <gtest/gtest.h>

#include "common/transform.hpp"
#include "supervisor/frame_history.hpp"

namespace rfms {
namespace {

// A frame on a conveyor that also turns: where it truly is at time t.
Transform truth(double t) {
  return trans(0.2 + 0.03 * t, -0.1 + 0.01 * t, 0.1) * rot(Vec3(0.2, 0.3, 0.9).normalized(), 0.4 * t) *
         rpy(0.1, 1.2, -0.4);
}

constexpr double kWindow = 0.1, kMaxLead = 0.05;

TEST(FrameHistory, AFrameUpdatedAtAFixedRateIsFittedAndCarriedOn) {
  FrameHistory h;
  for (int n = 0; n <= 20; ++n) h.add(0.005 * n, truth(0.005 * n), kWindow);  // 200 Hz
  ASSERT_TRUE(h.moving());
  EXPECT_NEAR((h.velocity() - Vec3(0.03, 0.01, 0.0)).norm(), 0.0, 1e-9);
  EXPECT_NEAR((h.turnRate() - 0.4 * Vec3(0.2, 0.3, 0.9).normalized()).norm(), 0.0, 1e-6);
  const Transform newest = truth(0.1);
  for (double lead : {0.0, 0.002, 0.02, 0.05}) {
    const Transform at = h.at(newest, 0.1 + lead, kMaxLead);
    EXPECT_NEAR((at.translation() - truth(0.1 + lead).translation()).norm(), 0.0, 1e-9) << lead;
    EXPECT_TRUE(at.linear().isApprox(truth(0.1 + lead).linear(), 1e-6)) << lead;
  }
  // Updates that stop: carried no further than max_lead past the newest.
  EXPECT_TRUE(h.at(newest, 5.0, kMaxLead).isApprox(h.at(newest, 0.1 + kMaxLead, kMaxLead), 1e-12));
  // Before the newest update's time: the newest value (no carrying back).
  EXPECT_TRUE(h.at(newest, 0.05, kMaxLead).isApprox(newest, 1e-12));
}

TEST(FrameHistory, AFrameDefinedOnceOrMovedNowAndThenStandsStill) {
  FrameHistory h;
  h.add(0.0, truth(0.0), kWindow);
  EXPECT_FALSE(h.moving());
  h.add(2.0, trans(0.01, 0, 0) * truth(0.0), kWindow);  // a 10 mm step two seconds later
  EXPECT_FALSE(h.moving());
  h.add(2.05, trans(0.02, 0, 0) * truth(0.0), kWindow);  // and another: two updates in the window
  EXPECT_FALSE(h.moving());
  const Transform newest = trans(0.02, 0, 0) * truth(0.0);
  EXPECT_TRUE(h.at(newest, 2.1, kMaxLead).isApprox(newest, 1e-15));
}

TEST(FrameHistory, UpdatesOutsideTheWindowDoNotCountAndManyInOneInstantDoNotMove) {
  FrameHistory h;
  for (int n = 0; n < 8; ++n) h.add(0.005 * n, truth(0.005 * n), kWindow);
  ASSERT_TRUE(h.moving());
  h.add(1.0, truth(0.0), kWindow);  // a second later, alone in the window
  EXPECT_FALSE(h.moving());
  for (int n = 0; n < 4; ++n) h.add(1.0, truth(0.0), kWindow);  // redefined four times in one period
  EXPECT_FALSE(h.moving());
}

}  // namespace
}  // namespace rfms
