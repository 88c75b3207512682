// Paul's transition, the Cartesian jog's pose and the end-of-move policy, on their own.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "supervisor/cartesian_jog.hpp"
#include "supervisor/end_of_move.hpp"
#include "supervisor/paul_segments.hpp"

namespace rfms {
namespace {

const Vec6 kBack = (Vec6() << 0.3, -0.2, 0.1, 0.05, 0.0, -0.4).finished();
const Vec6 kOn = (Vec6() << -0.1, 0.4, 0.2, 0.0, 0.3, 0.1).finished();

// Position continuous at both ends, velocity continuous with both segments (-2 dB and 2 dC over
// the transition's 2 tau), acceleration constant: checked by finite differences.
TEST(PaulTransition, JoinsTheWayBackToTheWayOnWithContinuousVelocityAndConstantAcceleration) {
  EXPECT_TRUE(transitionParams(kBack, kOn, 0.0).isApprox(kBack));
  EXPECT_TRUE(transitionParams(kBack, kOn, 1.0).isApprox(kOn));
  const double h = 1e-6;
  const Vec6 start_slope = (transitionParams(kBack, kOn, h) - transitionParams(kBack, kOn, 0.0)) / h;
  const Vec6 end_slope = (transitionParams(kBack, kOn, 1.0) - transitionParams(kBack, kOn, 1.0 - h)) / h;
  EXPECT_TRUE(start_slope.isApprox(-2.0 * kBack, 1e-5));
  EXPECT_TRUE(end_slope.isApprox(2.0 * kOn, 1e-5));
  for (double x : {0.1, 0.5, 0.9}) {
    const double d = 1e-3;
    const Vec6 curvature = (transitionParams(kBack, kOn, x + d) - 2.0 * transitionParams(kBack, kOn, x) +
                            transitionParams(kBack, kOn, x - d)) /
                           (d * d);
    EXPECT_TRUE(curvature.isApprox(2.0 * (kOn + kBack), 1e-6)) << x;
  }
  // From rest (dB = 0) the transition starts with zero velocity.
  EXPECT_TRUE((transitionParams(Vec6::Zero(), kOn, h) / h).isZero(1e-5));
}

TEST(PaulTransition, FractionAndWayOn) {
  EXPECT_DOUBLE_EQ(transitionFraction(0.1, 0.2), 0.25);
  EXPECT_DOUBLE_EQ(transitionFraction(0.5, 0.2), 1.0) << "past the transition: its end";
  EXPECT_TRUE(wayOn(kOn, 0.25, 2.0).isApprox(kOn * 0.125));
}

TEST(CartesianJog, GoesAtItsSpeedAndStopsAtItsLength) {
  JogSpec jog;
  jog.speed = 0.01;
  jog.length = 0.005;
  EXPECT_DOUBLE_EQ(jogDistance(jog, 0.0, 0.3), 0.003);
  EXPECT_DOUBLE_EQ(jogDistance(jog, 0.003, 0.3), 0.005);
  jog.length = 0.0;  // on until stopped
  EXPECT_DOUBLE_EQ(jogDistance(jog, 0.003, 0.3), 0.006);
}

TEST(CartesianJog, AlongBaseOrToolAxesAndTurningAboutTheWristCentre) {
  Transform start = Transform::Identity();
  start.linear() = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()).toRotationMatrix();
  start.translation() = Vec3(0.2, -0.1, 0.05);
  JogSpec jog;
  jog.axis = 0;  // x
  jog.direction = -1;
  Transform t = jogPose(start, jog, 0.01);
  EXPECT_TRUE(t.translation().isApprox(Vec3(0.19, -0.1, 0.05)));
  EXPECT_TRUE(t.linear().isApprox(start.linear()));
  jog.tool_frame = true;  // T6's x is the base's y here
  t = jogPose(start, jog, 0.01);
  EXPECT_TRUE(t.translation().isApprox(Vec3(0.2, -0.11, 0.05)));
  jog.axis = 5;  // rz, about T6's own z (the base's z here)
  jog.direction = 1;
  t = jogPose(start, jog, 0.1);
  EXPECT_TRUE(t.translation().isApprox(start.translation())) << "the wrist's centre stays";
  EXPECT_TRUE(t.linear().isApprox(Eigen::AngleAxisd(std::numbers::pi / 2 + 0.1, Vec3::UnitZ()).toRotationMatrix()));
}

TEST(EndOfMove, ForceRestsWhereHeldComplianceWhereYieldedElseThePathsEnd) {
  MotionRecord m;
  EXPECT_EQ(restAt(m), RestAt::kPathEnd);
  m.compliance = 0x4;
  EXPECT_EQ(restAt(m), RestAt::kYielded);
  m.has_force = true;
  EXPECT_EQ(restAt(m), RestAt::kWhereHeld) << "force control decides, whatever the bits";
}

TEST(EndOfMove, OnlyTheCompliantAxesAreTakenFromTheArm) {
  Transform end = Transform::Identity();
  end.translation() = Vec3(0.2, -0.1, 0.05);
  Transform arm = Transform::Identity();
  arm.translation() = Vec3(0.21, -0.12, 0.03);
  arm.linear() = (Eigen::AngleAxisd(0.1, Vec3::UnitZ()) * Eigen::AngleAxisd(0.05, Vec3::UnitX())).toRotationMatrix();
  Transform t = yieldedPose(end, arm, 0x4);  // z
  EXPECT_TRUE(t.translation().isApprox(Vec3(0.2, -0.1, 0.03)));
  EXPECT_TRUE(t.linear().isApprox(end.linear()));
  t = yieldedPose(end, arm, 0x20);  // rz: the turn about z alone
  EXPECT_TRUE(t.translation().isApprox(end.translation()));
  const Eigen::AngleAxisd about(t.linear());
  EXPECT_NEAR(std::abs(about.axis().z()), 1.0, 1e-12);
  EXPECT_GT(about.angle(), 0.09);
  EXPECT_TRUE(yieldedPose(end, arm, 0x3f).isApprox(arm, 1e-3)) << "every axis free: the arm's pose, near enough";
}

}  // namespace
}  // namespace rfms
