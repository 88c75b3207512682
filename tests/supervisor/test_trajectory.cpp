#include <gtest/gtest.h>

#include <vector>

#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "supervisor/trajectory.hpp"
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
    ASSERT_EQ(world_.defineMotion(test::motionDef("cart", true, 1.0, 0.2)), "");
    ASSERT_EQ(world_.defineMotion(test::motionDef("joint", false, 0.8, 0.15)), "");
    gen_.reset(q0_);
  }
  void define(const std::string& name, const Transform& t) {
    ASSERT_EQ(world_.defineTransform(test::transformDef(name + "_t", t)), "");
    const std::string tname = name + "_t";
    proto::DefinePosition p;
    p.set_name(name);
    p.add_lhs("T6");
    p.add_rhs(tname);
    encode(PumaIk(model_).configOf(q0_), *p.mutable_config());
    ASSERT_EQ(world_.definePosition(p), "");
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
  TrajectoryGenerator gen_{model_, world_};
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
  ASSERT_EQ(world_.defineTransform(test::transformDef("tip", tool)), "");
  ASSERT_EQ(world_.defineTransform(test::transformDef("goal", trans(0.05, 0.03, -0.02) * start_ * tool *
                                                                  rot(Axis::kY, 0.4) * rot(Axis::kZ, 0.3))),
            "");
  proto::DefinePosition p = test::positionDef("reach", PumaIk(model_).configOf(q0_), {"T6", "tip"}, {"goal"});
  p.set_tool("tip");
  ASSERT_EQ(world_.definePosition(p), "");
  move("reach", "cart");
  const auto s = run();
  const Vec3 a = (start_ * tool).translation(), b = world_.transform(world_.findTransform("goal")).translation();
  double tip_off = 0.0, t6_off = 0.0;
  const Vec3 a6 = start_.translation(), b6 = world_.solve(world_.findPosition("reach")).translation();
  for (const Sample& x : s) {
    tip_off = std::max(tip_off, distanceToLine((x.pose * tool).translation(), a, b));
    t6_off = std::max(t6_off, distanceToLine(x.pose.translation(), a6, b6));
  }
  EXPECT_LT(tip_off, 1e-9);
  EXPECT_GT(t6_off, 1e-3);  // the wrist swings round the tip: the tool made the difference
  EXPECT_TRUE((s.back().pose * tool).isApprox(world_.transform(world_.findTransform("goal")), 1e-12));
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
  ASSERT_EQ(world_.defineTransform(test::transformDef("a_t", moved)), "");
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
