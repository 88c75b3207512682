#include <gtest/gtest.h>

#include <cmath>

#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "supervisor/setpoint_filter.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr double kH = 1e-3;

class Filter : public ::testing::Test {
 protected:
  void SetUp() override {
    q0_ << 0.1, -0.8, 0.6, 0.2, 0.7, -0.3;
    filter_.reset(q0_);
  }
  // Runs n periods toward the reference r(k), checking each period's step against the limits.
  template <class Reference>
  void run(int n, Reference r) {
    for (int k = 1; k <= n; ++k) {
      const JointVec x = filter_.q(), v = filter_.velocity();
      const Transform before = forwardKinematics(model_, x);
      filter_.update(r(k), kH);
      const JointVec dv = filter_.velocity() - v;
      const Transform after = forwardKinematics(model_, filter_.q());
      const double moved = (after.translation() - before.translation()).norm();
      const Vec3 cart_v = (after.translation() - before.translation()) / kH;
      for (int i = 0; i < kJoints; ++i) {
        ASSERT_LE(std::abs(filter_.velocity()[i]), limits_.speed[i] * 1.0001) << "joint " << i + 1 << " period " << k;
        ASSERT_LE(std::abs(dv[i]), limits_.accel[i] * kH * 1.0001) << "joint " << i + 1 << " period " << k;
      }
      // The Jacobian is taken where the period starts: to first order in the step.
      ASSERT_LE(moved, limits_.wrist_speed * kH * 1.01) << "period " << k;
      if (k > 1) {
        ASSERT_LE((cart_v - last_cart_v_).norm(), limits_.wrist_accel * kH * 1.05) << "period " << k;
      }
      last_cart_v_ = cart_v;
      max_moved_ = std::max(max_moved_, moved);
    }
  }

  const RobotModel& model_ = test::puma260();
  SetpointLimits limits_ = setpointLimits(test::puma260(), proto::TrackingSettings{});
  SetpointFilter filter_{model_, limits_, true};
  JointVec q0_;
  Vec3 last_cart_v_ = Vec3::Zero();
  double max_moved_ = 0.0;
};

TEST_F(Filter, PassesAReferenceWithinTheLimitsThroughExactly) {
  JointVec amplitude;
  amplitude << 0.2, 0.15, 0.1, 0.3, 0.2, 0.4;
  // From rest, as the filter starts: 1 - cos.
  const auto r = [&](int k) { return JointVec(q0_ + amplitude * (1.0 - std::cos(2 * M_PI * 0.5 * k * kH))); };
  for (int k = 1; k <= 3000; ++k) {
    filter_.update(r(k), kH);
    ASSERT_TRUE(filter_.onReference()) << "period " << k;
    ASSERT_EQ(filter_.q(), r(k)) << "period " << k;
  }
}

TEST_F(Filter, AStepOfTheReferenceIsTakenWithinEveryLimitAndEndsOnIt) {
  // 10 mm along y, as a redefined frame would ask.
  const Transform t0 = forwardKinematics(model_, q0_);
  const Transform t1 = Transform(Eigen::Translation3d(0, 0.01, 0)) * t0;
  const IkSolution s = OpwIk(model_).solveSerial(t1, OpwIk(model_).configOf(q0_), q0_);
  ASSERT_EQ(s.status, IkStatus::kOk);
  double overshoot = 0.0;
  int settled_at = -1;
  for (int k = 1; k <= 1000 && settled_at < 0; ++k) {
    run(1, [&](int) { return s.q; });
    const Vec3 p = forwardKinematics(model_, filter_.q()).translation();
    overshoot = std::max(overshoot, (p - t0.translation()).dot(Vec3::UnitY()) - 0.01);
    if (filter_.settled()) settled_at = k;
  }
  ASSERT_GT(settled_at, 0) << "the setpoint never reached the reference";
  EXPECT_EQ(filter_.q(), s.q);
  // Time-optimal at 10 m/s^2 is 2 sqrt(d/a) = 63 ms; the joints' path is not quite straight.
  EXPECT_GT(settled_at, 60);
  EXPECT_LT(settled_at, 130);
  EXPECT_LT(overshoot, 1e-5);
  EXPECT_GT(max_moved_, 0.2e-3);  // it did go at speed, not crawl
}

TEST_F(Filter, AMovingReferenceThatJumpsIsCaughtUpWithAndThenFollowedExactly) {
  JointVec rate;
  rate << 0.3, -0.2, 0.1, 0.0, 0.2, 0.5;  // rad/s
  JointVec jump;
  jump << 0.02, 0.01, -0.02, 0.05, 0.0, 0.03;
  const auto r = [&](int k) { return JointVec(q0_ + rate * k * kH + (k >= 200 ? jump : JointVec::Zero())); };
  run(199, r);
  EXPECT_TRUE(filter_.onReference());
  run(400, [&](int k) { return r(k + 199); });
  EXPECT_TRUE(filter_.onReference());
  EXPECT_LT((filter_.q() - r(599)).norm(), 1e-12);
}

TEST_F(Filter, TurnedOffItPassesEvenAStepThrough) {
  SetpointFilter off(model_, limits_, false);
  off.reset(q0_);
  JointVec far = q0_;
  far[0] += 0.5;
  off.update(far, kH);
  EXPECT_EQ(off.q(), far);
  EXPECT_TRUE(off.onReference());
}

}  // namespace
}  // namespace rfms
