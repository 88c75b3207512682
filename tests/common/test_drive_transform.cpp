#include <gtest/gtest.h>

#include <random>

#include "common/drive_transform.hpp"
#include "common/transform.hpp"

namespace rfms {
namespace {

Transform randomPose(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), a(-3.0, 3.0);
  return trans(u(rng), u(rng), u(rng)) * eul(a(rng), std::abs(a(rng)), a(rng));
}

TEST(DriveTransform, ReachesTheEndPose) {
  std::mt19937_64 rng(60);
  for (int n = 0; n < 2000; ++n) {
    const Transform a = randomPose(rng), b = randomPose(rng);
    EXPECT_TRUE((a * driveTransform(driveParams(a, b))).isApprox(b, 1e-12));
    EXPECT_TRUE(driveTransform(Vec6::Zero()).isApprox(Transform::Identity()));
  }
}

TEST(DriveTransform, PositionMovesOnAStraightLineAndTheApproachTiltsAboutAFixedAxis) {
  std::mt19937_64 rng(61);
  const Transform a = randomPose(rng), b = randomPose(rng);
  const Vec6 d = driveParams(a, b);
  const Vec3 axis = (a.linear() * Vec3(d[3], d[4], 0.0)).normalized();
  for (double r = 0.1; r < 1.0; r += 0.1) {
    const Transform t = a * driveTransform(r * d);
    const Vec3 along = (t.translation() - a.translation()).cross(b.translation() - a.translation());
    EXPECT_LT(along.norm(), 1e-12);  // on the line from A to B
    EXPECT_NEAR((t.translation() - a.translation()).norm(), r * (b.translation() - a.translation()).norm(), 1e-12);
    // The approach vector turns in the plane normal to the fixed axis.
    EXPECT_NEAR(t.linear().col(2).dot(axis), a.linear().col(2).dot(axis), 1e-12);
  }
}

TEST(DriveTransform, WithAToolTheToolFrameGoesStraightFromEndToEnd) {
  std::mt19937_64 rng(62);
  for (int n = 0; n < 200; ++n) {
    const Transform a = randomPose(rng), b = randomPose(rng), tool = randomPose(rng);
    const Vec6 d = driveParams(a, b, tool);
    EXPECT_TRUE(drivenT6(a, Vec6::Zero(), tool).isApprox(a, 1e-12));
    EXPECT_TRUE(drivenT6(a, d, tool).isApprox(b, 1e-12));
    const Vec3 from = (a * tool).translation(), to = (b * tool).translation();
    for (double r = 0.25; r < 1.0; r += 0.25) {
      const Vec3 tip = (drivenT6(a, r * d, tool) * tool).translation();
      EXPECT_LT((tip - from).cross(to - from).norm(), 1e-12 * std::max(1.0, (to - from).norm()));
    }
  }
  // Without a tool it is T6's own line.
  const Transform a = randomPose(rng), b = randomPose(rng);
  EXPECT_TRUE(drivenT6(a, 0.5 * driveParams(a, b, Transform::Identity()), Transform::Identity())
                  .isApprox(a * driveTransform(0.5 * driveParams(a, b)), 1e-15));
}

TEST(DriveTransform, SeenFromAnyPointOfTheLineTheMotionIsAgainADriveMotion) {
  // What makes Paul's transitions continuous: relative to a point B' on the segment, the rest of
  // the segment is D(lambda d') for a fixed d', linear in time.
  std::mt19937_64 rng(62);
  const Transform a = randomPose(rng), b = randomPose(rng);
  const Vec6 d = driveParams(a, b);
  const Transform mid = a * driveTransform(0.4 * d);
  const Vec6 back = driveParams(mid, a * driveTransform(0.1 * d));
  for (double l = 0.0; l <= 1.0; l += 0.25) {
    const Transform expected = a * driveTransform((0.4 - 0.3 * l) * d);
    EXPECT_TRUE((mid * driveTransform(l * back)).isApprox(expected, 1e-10)) << l;
  }
}

}  // namespace
}  // namespace rfms
