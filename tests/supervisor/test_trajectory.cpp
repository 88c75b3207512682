#include <gtest/gtest.h>

#include <numbers>
#include <vector>

#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "supervisor/trajectory.hpp"
#include "supervisor/world_model.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr double kH = 1e-3;

struct Sample {
  JointVec q;
  Transform pose;
  proto::TrajState state;
};

class Trajectory : public ::testing::Test {
 protected:
  void SetUp() override {
    start_ = forwardKinematics(model_, q0_);
    define("a", trans(0.06, 0.0, 0.0) * start_);
    define("b", trans(0.06, 0.05, -0.04) * start_ * rot(Axis::kZ, 0.3));
    define("c", trans(0.0, 0.08, 0.02) * start_ * rot(Axis::kY, 0.2));
    ASSERT_EQ(world_.defineMotion(test::motionDef("cart", true, 1.0, 0.2)).text, "");
    ASSERT_EQ(world_.defineMotion(test::motionDef("joint", false, 0.8, 0.15)).text, "");
    gen_.reset(q0_);
  }
  void define(const std::string& name, const Transform& t) {
    ASSERT_EQ(world_.defineTransform(test::transformDef(name + "_t", t)).text, "");
    const std::string tname = name + "_t";
    proto::DefinePosition p;
    p.set_name(name);
    p.add_lhs("T6");
    p.add_rhs(tname);
    encode(OpwIk(model_).configOf(q0_), *p.mutable_config());
    ASSERT_EQ(world_.definePosition(p).text, "");
  }
  std::uint64_t move(const char* position, const char* motion) {
    gen_.enqueue(MoveSpec{++id_, world_.findPosition(position), world_.findMotion(motion)});
    return id_;
  }
  // Runs until at rest, recording every update and every event.
  std::vector<Sample> run(int max_updates = 20000) {
    std::vector<Sample> out;
    for (int n = 0; n < max_updates; ++n) {
      TrajectoryEvents e;
      EXPECT_TRUE(gen_.update(kH, e));
      for (int i = 0; i < e.count; ++i) events_.push_back(e.items[static_cast<std::size_t>(i)]);
      out.push_back({gen_.q(), gen_.pose(), gen_.state()});
      // One more update after arriving, to see S0.
      if (gen_.atRest() && gen_.queued() == 0 && out.back().state == proto::TS_S0) break;
    }
    return out;
  }
  // How much larger the change of joint velocity between two periods gets anywhere, and at the
  // boundaries between states above all, than it ever is inside a state. A jump in position or
  // velocity at a boundary shows as a ratio far above 1; constant accelerations that switch at
  // the boundaries keep it at 1.
  static double velocityChangeRatio(const std::vector<Sample>& s) {
    auto dv = [&](std::size_t i) { return ((s[i].q - s[i - 1].q) - (s[i - 1].q - s[i - 2].q)).cwiseAbs().maxCoeff(); };
    double inside = 0.0, anywhere = 0.0;
    for (std::size_t k = 2; k + 1 < s.size(); ++k) {
      const bool interior =
          s[k - 2].state == s[k].state && s[k - 1].state == s[k].state && s[k + 1].state == s[k].state;
      if (interior) inside = std::max(inside, dv(k));
      anywhere = std::max(anywhere, dv(k));
    }
    return anywhere / inside;
  }

  const RobotModel& model_ = test::puma260();
  const JointVec q0_ = (JointVec() << 0.1, -0.3, 0.4, 0.2, -0.6, 0.3).finished();
  Transform start_;
  WorldModel world_;
  TrajectoryGenerator gen_{model_, world_.values()};
  std::vector<TrajectoryEvent> events_;
  std::uint64_t id_ = 0;
};

double distanceToLine(const Vec3& p, const Vec3& a, const Vec3& b) {
  return (p - a).cross(b - a).norm() / (b - a).norm();
}

TEST_F(Trajectory, CartesianMoveFromRestFollowsTheLineAndStopsOnTarget) {
  const std::uint64_t id = move("a", "cart");
  const auto s = run();
  const Vec3 a = start_.translation(), b = world_.solve(world_.findPosition("a")).translation();
  for (const Sample& x : s) ASSERT_LT(distanceToLine(x.pose.translation(), a, b), 1e-9);
  EXPECT_TRUE(s.back().pose.isApprox(world_.solve(world_.findPosition("a")), 1e-12));
  // From rest: 2 tau of acceleration, T - 2 tau straight, 2 tau of deceleration: T + 2 tau.
  EXPECT_NEAR(static_cast<double>(s.size() - 1) * kH, 1.0 + 0.4, 2 * kH);
  // The states of table 4, in order.
  std::vector<proto::TrajState> seen;
  for (const Sample& x : s)
    if (seen.empty() || seen.back() != x.state) seen.push_back(x.state);
  EXPECT_EQ(seen, (std::vector<proto::TrajState>{proto::TS_S40, proto::TS_S4, proto::TS_S1, proto::TS_S2, proto::TS_S5,
                                                 proto::TS_S0}));
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].kind, TrajectoryEvent::kStarted);
  EXPECT_EQ(events_[1].kind, TrajectoryEvent::kCompleted);
  EXPECT_EQ(events_[1].move_id, id);
  // At rest at both ends.
  EXPECT_LT((s[1].q - s[0].q).norm(), 1e-5);
  EXPECT_LT((s[s.size() - 1].q - s[s.size() - 2].q).norm(), 1e-9);
}

TEST_F(Trajectory, ACartesianMoveWithAToolDrivesTheToolFrameStraight) {
  // A 120 mm tool and a move that turns the hand: the tool's tip goes straight, T6 does not.
  const Transform tool = trans(0.0, 0.0, 0.12);
  ASSERT_EQ(world_.defineTransform(test::transformDef("tip", tool)).text, "");
  ASSERT_EQ(world_
                .defineTransform(test::transformDef(
                    "goal", trans(0.05, 0.03, -0.02) * start_ * tool * rot(Axis::kY, 0.4) * rot(Axis::kZ, 0.3)))
                .text,
            "");
  proto::DefinePosition p = test::positionDef("reach", OpwIk(model_).configOf(q0_), {"T6", "tip"}, {"goal"});
  p.set_tool("tip");
  ASSERT_EQ(world_.definePosition(p).text, "");
  move("reach", "cart");
  const auto s = run();
  const Vec3 a = (start_ * tool).translation(),
             b = world_.values().transform(world_.findTransform("goal")).translation();
  double tip_off = 0.0, t6_off = 0.0;
  const Vec3 a6 = start_.translation(), b6 = world_.solve(world_.findPosition("reach")).translation();
  for (const Sample& x : s) {
    tip_off = std::max(tip_off, distanceToLine((x.pose * tool).translation(), a, b));
    t6_off = std::max(t6_off, distanceToLine(x.pose.translation(), a6, b6));
  }
  EXPECT_LT(tip_off, 1e-9);
  EXPECT_GT(t6_off, 1e-3);  // the wrist swings round the tip: the tool made the difference
  EXPECT_TRUE((s.back().pose * tool).isApprox(world_.values().transform(world_.findTransform("goal")), 1e-12));
}

TEST_F(Trajectory, BlendedCartesianMovesKeepVelocityContinuous) {
  move("a", "cart");
  move("b", "cart");
  move("c", "cart");
  const auto s = run();
  EXPECT_LT(velocityChangeRatio(s), 1.5);
  EXPECT_TRUE(s.back().pose.isApprox(world_.solve(world_.findPosition("c")), 1e-12));
  int blends = 0;
  for (std::size_t k = 1; k < s.size(); ++k) blends += s[k].state == proto::TS_S3;
  EXPECT_EQ(blends, 2);  // through a and b without stopping
  int stops = 0;
  for (const Sample& x : s) stops += x.state == proto::TS_S0;
  EXPECT_EQ(stops, 1);  // only at the end
}

TEST_F(Trajectory, BlendedJointMovesKeepVelocityContinuous) {
  move("a", "joint");
  move("b", "joint");
  move("a", "joint");
  const auto s = run();
  EXPECT_LT(velocityChangeRatio(s), 1.5);
  EXPECT_TRUE(s.back().pose.isApprox(world_.solve(world_.findPosition("a")), 1e-12));
}

TEST_F(Trajectory, AChangeOfModeStopsBetweenTheMoves) {
  move("a", "joint");
  move("b", "cart");
  const auto s = run();
  int from_rest = 0;
  for (const Sample& x : s) from_rest += x.state == proto::TS_S40;
  EXPECT_EQ(from_rest, 2);
  EXPECT_LT(velocityChangeRatio(s), 1.5);
}

TEST_F(Trajectory, AnUpdatedTransformMovesTheTarget) {
  move("a", "cart");
  for (int n = 0; n < 300; ++n) {
    TrajectoryEvents e;
    gen_.update(kH, e);
  }
  const Transform moved = trans(0.0, 0.0, 0.03) * world_.solve(world_.findPosition("a"));
  ASSERT_EQ(world_.defineTransform(test::transformDef("a_t", moved)).text, "");
  const auto s = run();
  EXPECT_TRUE(s.back().pose.isApprox(moved, 1e-12));
}

TEST_F(Trajectory, StopComesToRestSmoothlyOnTheLineAndDropsTheQueue) {
  move("a", "cart");
  const std::uint64_t dropped = move("b", "cart");
  std::vector<Sample> s;
  for (int n = 0; n < 500; ++n) {
    TrajectoryEvents e;
    gen_.update(kH, e);
    s.push_back({gen_.q(), gen_.pose(), gen_.state()});
  }
  TrajectoryEvents e;
  gen_.stop(e);
  ASSERT_EQ(e.count, 1);
  EXPECT_EQ(e.items[0].kind, TrajectoryEvent::kAborted);
  EXPECT_EQ(e.items[0].move_id, dropped);
  const auto rest = run();
  s.insert(s.end(), rest.begin(), rest.end());
  EXPECT_LT(velocityChangeRatio(s), 1.5);
  EXPECT_TRUE(gen_.atRest());
  const Vec3 a = start_.translation(), b = world_.solve(world_.findPosition("a")).translation();
  EXPECT_LT(distanceToLine(s.back().pose.translation(), a, b), 1e-9);
  EXPECT_GT((s.back().pose.translation() - b).norm(), 1e-3);               // stopped short of the target
  EXPECT_LT(static_cast<double>(rest.size() - 1) * kH, 2 * 0.2 + 2 * kH);  // within 2 tau
}

// A transform redefined 10 mm away while a move runs: the reference jumps, the setpoint does not.
// Without the filter the same update moves the setpoint by millimetres in one period.
TEST_F(Trajectory, ATargetRedefinedMidMoveMovesTheSetpointNoFasterThanTheLimitsAllow) {
  const SetpointLimits limits = setpointLimits(model_, proto::TrackingSettings{});
  const auto largestStep = [&](TrajectoryGenerator& gen) {
    gen.reset(q0_);
    EXPECT_EQ(world_.defineTransform(test::transformDef("a_t", trans(0.06, 0.0, 0.0) * start_)).text, "");
    gen.enqueue(MoveSpec{++id_, world_.findPosition("a"), world_.findMotion("cart")});
    double largest = 0.0, largest_change = 0.0;
    Vec3 last_step = Vec3::Zero();
    for (int n = 0; n < 3000; ++n) {
      if (n == 500) {
        EXPECT_EQ(world_.defineTransform(test::transformDef("a_t", trans(0.06, 0.01, 0.0) * start_)).text, "");
      }
      const Vec3 before = gen.pose().translation();
      TrajectoryEvents e;
      EXPECT_TRUE(gen.update(kH, e));
      const Vec3 step = gen.pose().translation() - before;
      largest = std::max(largest, step.norm());
      largest_change = std::max(largest_change, (step - last_step).norm());
      last_step = step;
    }
    EXPECT_TRUE(gen.atRest());
    EXPECT_TRUE(gen.pose().isApprox(world_.solve(world_.findPosition("a")), 1e-12));
    return std::pair{largest / kH, largest_change / (kH * kH)};
  };
  const auto [speed, accel] = largestStep(gen_);
  EXPECT_LE(speed, limits.wrist_speed * 1.01);
  EXPECT_LE(accel, limits.wrist_accel * 1.05);
  TrajectoryGenerator unfiltered(model_, world_.values(), limits, false);
  const auto [raw_speed, raw_accel] = largestStep(unfiltered);
  EXPECT_GT(raw_speed * kH, 3e-3);  // the jump the filter takes out
  (void)raw_accel;
}

// A conveyor: the frame moves at 30 mm/s and is updated every 5 ms. A tracking move reaches it and
// then keeps on it, carried on between updates by the frame's own fitted velocity, until stopped.
TEST_F(Trajectory, ATrackingMoveFollowsItsMovingFrameUntilStopped) {
  ASSERT_EQ(world_.defineMotion(test::motionDef("follow", true, 0.5, 0.1, 0, true)).text, "");
  const Transform goal = trans(0.06, 0.0, 0.0) * start_;
  const auto frame = [&](double t) { return Transform(trans(0.0, 0.03 * t, 0.0) * goal); };
  const std::uint64_t id = move("a", "follow");
  double t = 0.0, worst = 0.0;
  int tracking_from = -1;
  for (int n = 0; n < 3000; ++n) {
    t = n * kH;
    world_.setClock(t);
    const double moving_since = 1.0;  // the conveyor starts once the arm is there
    if (t >= moving_since && n % 5 == 0) {
      ASSERT_EQ(world_.defineTransform(test::transformDef("a_t", frame(t - moving_since))).text, "");
    }
    TrajectoryEvents e;
    ASSERT_TRUE(gen_.update(kH, e));
    for (int i = 0; i < e.count; ++i) ASSERT_NE(e.items[static_cast<std::size_t>(i)].kind, TrajectoryEvent::kCompleted);
    if (gen_.state() == proto::TS_TRACK && tracking_from < 0) tracking_from = n;
    if (t > moving_since + 0.3)
      worst = std::max(worst, (gen_.pose().translation() - frame(t - moving_since).translation()).norm());
  }
  ASSERT_GT(tracking_from, 0);
  EXPECT_LT(tracking_from * kH, 1.0);  // it got there before the conveyor started
  EXPECT_LT(worst, 1e-6);              // then it kept on the frame, not behind it
  TrajectoryEvents stopped;
  gen_.stop(stopped);
  const Vec3 at_stop = gen_.pose().translation();
  const auto rest = run();
  ASSERT_FALSE(events_.empty());
  EXPECT_EQ(events_.front().kind, TrajectoryEvent::kCompleted);
  EXPECT_EQ(events_.front().move_id, id);
  EXPECT_TRUE(gen_.atRest());
  // Braking from 30 mm/s at the acceleration limit: v^2 / 2a past where the stop was asked.
  const SetpointLimits limits = setpointLimits(model_, proto::TrackingSettings{});
  EXPECT_LT((rest.back().pose.translation() - at_stop).norm(), 0.03 * 0.03 / (2 * limits.wrist_accel) + 1e-4);
}

TEST_F(Trajectory, ATrackingMoveEndsWhenTheNextMoveStarts) {
  ASSERT_EQ(world_.defineMotion(test::motionDef("follow", true, 0.5, 0.1, 0, true)).text, "");
  const std::uint64_t tracked = move("a", "follow");
  for (int n = 0; n < 1000; ++n) {
    TrajectoryEvents e;
    ASSERT_TRUE(gen_.update(kH, e));
  }
  ASSERT_EQ(gen_.state(), proto::TS_TRACK);
  ASSERT_FALSE(gen_.atRest());
  const std::uint64_t next = move("b", "cart");
  run();
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0].kind, TrajectoryEvent::kCompleted);
  EXPECT_EQ(events_[0].move_id, tracked);
  EXPECT_EQ(events_[1].kind, TrajectoryEvent::kStarted);
  EXPECT_EQ(events_[2].kind, TrajectoryEvent::kCompleted);
  EXPECT_EQ(events_[2].move_id, next);
  EXPECT_TRUE(gen_.pose().isApprox(world_.solve(world_.findPosition("b")), 1e-12));
}

// Cartesian jogs: along or about an axis of the base frame or of T6's own, at a fixed speed, a
// step or until stopped, stopping short at the edge of what the configuration reaches.
TEST_F(Trajectory, AJogMovesTheWristAlongOrAboutAnAxisOfTheBaseOrToolFrame) {
  const auto step = [&](int axis, int direction, bool tool, double length) {
    gen_.reset(q0_);
    EXPECT_TRUE(gen_.jog(JogSpec{axis, direction, tool, axis < 3 ? 0.01 : 0.1, length}));
    const auto s = run();
    EXPECT_TRUE(gen_.atRest());
    EXPECT_FALSE(gen_.stoppedShort());
    return s.back().pose;
  };
  // 5 mm down the base's z: 0.5 s at 10 mm/s.
  Transform end = step(2, -1, false, 0.005);
  EXPECT_NEAR((end.translation() - (start_.translation() - Vec3(0, 0, 0.005))).norm(), 0.0, 1e-9);
  EXPECT_TRUE(end.linear().isApprox(start_.linear(), 1e-9));
  // 5 mm along T6's own x.
  end = step(0, 1, true, 0.005);
  EXPECT_NEAR((end.translation() - (start_.translation() + 0.005 * start_.linear().col(0))).norm(), 0.0, 1e-9);
  // 3 degrees about the base's z, about the wrist's centre: the wrist stays put.
  const double a = 3 * std::numbers::pi / 180;
  end = step(5, 1, false, a);
  EXPECT_NEAR((end.translation() - start_.translation()).norm(), 0.0, 1e-9);
  EXPECT_TRUE(end.linear().isApprox(Eigen::AngleAxisd(a, Vec3::UnitZ()).toRotationMatrix() * start_.linear(), 1e-9));
  // About T6's own y.
  end = step(4, -1, true, a);
  EXPECT_TRUE(end.linear().isApprox(start_.linear() * Eigen::AngleAxisd(-a, Vec3::UnitY()).toRotationMatrix(), 1e-9));
  // Nothing moves a jog's way while a move is queued.
  gen_.reset(q0_);
  move("a", "cart");
  EXPECT_FALSE(gen_.jog(JogSpec{0, 1, false, 0.01, 0.0}));
}

TEST_F(Trajectory, AContinuousJogGoesOnUntilStoppedAndStopsShortOfTheWorkspacesEdge) {
  EXPECT_TRUE(gen_.jog(JogSpec{0, 1, false, 0.01, 0.0}));
  for (int n = 0; n < 1000; ++n) {
    TrajectoryEvents e;
    ASSERT_TRUE(gen_.update(kH, e));
    EXPECT_EQ(e.count, 0);  // a jog is not a move: no events
  }
  EXPECT_TRUE(gen_.jogging());
  EXPECT_NEAR(gen_.referencePose().translation().x() - start_.translation().x(), 0.01, 1e-9);
  TrajectoryEvents stopped;
  gen_.stop(stopped);
  run();
  EXPECT_TRUE(gen_.atRest());
  EXPECT_NEAR(gen_.pose().translation().x() - start_.translation().x(), 0.01, 1e-5);  // braked at once
  // Out along x at 50 mm/s until the arm cannot go further (stretched, its joints would swing ever
  // faster towards the elbow's singularity): it stops there, no failure.
  EXPECT_TRUE(gen_.jog(JogSpec{0, 1, false, 0.05, 0.0}));
  run();
  EXPECT_TRUE(gen_.stoppedShort());
  EXPECT_STRNE(gen_.stoppedWhy(), "");
  EXPECT_TRUE(gen_.atRest());
  EXPECT_GT(gen_.pose().translation().x(), start_.translation().x() + 0.05);
}

TEST_F(Trajectory, AbortDropsEverythingAtOnce) {
  move("a", "cart");
  move("b", "cart");
  TrajectoryEvents e;
  gen_.update(kH, e);
  TrajectoryEvents aborted;
  gen_.abort(aborted);
  EXPECT_EQ(aborted.count, 2);
  EXPECT_TRUE(gen_.atRest());
  EXPECT_EQ(gen_.queued(), 0);
}

}  // namespace
}  // namespace rfms
