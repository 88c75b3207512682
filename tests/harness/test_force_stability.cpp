// Stability before a force move, on the whole controller: the supervisor's model of the sampled
// force loop (common/force_loop.hpp, supervisor/force_stability.hpp) against the emulated arm
// itself. The bound it predicts for a P law separates the gains that hold the table from those
// whose contact diverges, on the stiff sensor and on the compliant wrist; a law past it is refused
// before it moves the arm, unless the controller is told to let it through, and then with a warning.
#include <gtest/gtest.h>

#include "supervisor/force_stability.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/force_press.hpp"

namespace rfms {
namespace {

using test::Contact;
using test::pressWith;

proto::ControllerSettings letThrough() {
  proto::ControllerSettings s;
  s.mutable_force()->set_refuse_unstable_laws(false);
  return s;
}

// The P law's bound predicted at the pose a stable press ended in.
double predictedBound(const std::string& scene_file) {
  const Contact stable = pressWith("motion m cartesian 3 0.5 force z -10 law p 1", true, scene_file);
  EXPECT_TRUE(stable.completed);
  const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/" + scene_file);
  const SupervisorConfig config = supervisorConfigFor(proto::ControllerSettings{}, scene);
  const ForceStability stability(withTool(test::puma260(), scene.tool), config);
  ForceGains p;
  p.law = ForceLawKind::kP;
  const ForceLoopPlant plant = stability.plantAt(stable.end, Vec3::UnitZ(), scene.surfaces.front(), 200.0);
  return forceGainBound(plant, p, ForceGain::kKp, 1e3);
}

// Holds its force where A.1's Eq. 27 says (stable), or not at all (diverged: the contact chatters).
bool holds(const Contact& c, double kp) {
  return c.completed && !c.emergency && std::abs(c.figures.error_p50_n - 10.0 / (1.0 + kp)) < 0.3;
}

void expectTheBoundSeparates(const std::string& scene_file) {
  const double bound = predictedBound(scene_file);
  ::testing::Test::RecordProperty("bound_" + scene_file, std::to_string(bound));
  // Below it by 15 %, the press holds; above it by 15 %, it does not. (The model agrees with the
  // arm to a few per cent: docs/force.md has the sweep.)
  const double below = 0.85 * bound, above = 1.15 * bound;
  const Contact calm =
      pressWith("motion m cartesian 3 0.5 force z -10 law p " + std::to_string(below), true, scene_file, letThrough());
  const Contact wild =
      pressWith("motion m cartesian 3 0.5 force z -10 law p " + std::to_string(above), true, scene_file, letThrough());
  EXPECT_TRUE(holds(calm, below)) << scene_file << ": K_p " << below << ", p50 " << calm.figures.error_p50_n;
  EXPECT_FALSE(holds(wild, above)) << scene_file << ": K_p " << above << ", p50 " << wild.figures.error_p50_n;
}

TEST(ForceStability, ThePredictedBoundSeparatesHoldingFromDivergingOnTheStiffSensor) {
  expectTheBoundSeparates("table.textproto");
}

TEST(ForceStability, ThePredictedBoundSeparatesHoldingFromDivergingOnTheCompliantWrist) {
  expectTheBoundSeparates("wrist_table.textproto");
}

TEST(ForceStability, AnUnstableLawIsRefusedNamingTheGainAndItsBound) {
  const Contact c = pressWith("motion m cartesian 3 0.5 force z -10 law p 100");
  EXPECT_FALSE(c.completed);
  EXPECT_NE(c.refused.find("would not hold its force"), std::string::npos) << c.refused;
  EXPECT_NE(c.refused.find("law P with K_p = 100 is unstable at 1 kHz: K_p must be below"), std::string::npos)
      << c.refused;
  EXPECT_NE(c.refused.find("against 'table' on the force/torque sensor"), std::string::npos) << c.refused;
  // Within the margin: refused too, and said so.
  const Contact close = pressWith("motion m cartesian 3 0.5 force z -10 law p 4");
  EXPECT_NE(close.refused.find("within the gain margin"), std::string::npos) << close.refused;
  // A PD law's rate gain is bounded as well.
  const Contact rate = pressWith("motion m cartesian 3 0.5 force z -10 law pd 1 0.005");
  EXPECT_NE(rate.refused.find("or K_v below"), std::string::npos) << rate.refused;
}

TEST(ForceStability, LetThroughByTheSettingAnUnstableLawRunsWithAWarning) {
  const Contact c = pressWith("motion m cartesian 3 0.5 force z -10 law p 100", true, "table.textproto", letThrough());
  EXPECT_TRUE(c.refused.empty()) << c.refused;
  EXPECT_NE(c.warning.find("refuse_unstable_laws is off"), std::string::npos) << c.warning;
}

// About an axis the loop is not modelled: the reply says the move runs unchecked and unwatched
// there, beside any other caution, instead of passing in silence.
TEST(ForceStability, AMomentAxisIsSaidToBeNeitherCheckedNorWatched) {
  const Contact c = pressWith("motion m cartesian 3 0.5 force z -10 force rx 0");
  EXPECT_TRUE(c.refused.empty()) << c.refused;
  EXPECT_NE(c.warning.find("its moment axes (rx) are neither checked for stability"), std::string::npos) << c.warning;
  const Contact both = pressWith("motion m cartesian 3 0.5 force z -10 force rx 0 force rz 0 law p 100", true,
                                 "table.textproto", letThrough());
  EXPECT_NE(both.warning.find("refuse_unstable_laws is off"), std::string::npos) << both.warning;
  EXPECT_NE(both.warning.find("(rx, rz)"), std::string::npos) << both.warning;
  EXPECT_TRUE(pressWith("motion m cartesian 3 0.5 force z -10").warning.empty());
}

// Issue 57: `force rx 300` (N mm) ran, turned the tool 33 deg and said "completed"; a ball
// contact at the tool point can give at most friction x force x radius about it. Refused before
// the move, naming the axis and the bound; a moment within the bound still runs.
TEST(ForceStability, AMomentNoContactCanGiveIsRefusedNamingTheAxisAndTheBound) {
  Harness h(test::puma260(), {}, loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto"));
  auto define = [&](const std::string& line) {
    const auto statements = parseTaskFile("units mm deg N\n" + line + "\n", "moment");
    return h.request(statements.back().request);
  };
  const proto::TaskReply refused = define("motion m cartesian 3 0.5 force z -10 force rx 300");  // N mm
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), proto::RC_CANNOT_ACT) << refused.reason();
  EXPECT_NE(refused.reason().find("its moment setpoint of 0.3 N m about x cannot be applied"), std::string::npos)
      << refused.reason();
  EXPECT_NE(
      refused.reason().find("at most 0.09 N m ('table': friction 0.3 x the force limit 60 N x the ball's radius 5 mm)"),
      std::string::npos)
      << refused.reason();
  EXPECT_TRUE(define("motion n cartesian 3 0.5 force z -10 force ry 5").accepted());  // 0.005 N m
}

TEST(ForceStability, TheDefaultLawAndThePapersGainsOnTheWristPass) {
  EXPECT_TRUE(pressWith("motion m cartesian 3 0.5 force z -10").completed);
  for (const char* law : {"p 30", "pd 30 0.01", "pi 30 20"}) {
    const Contact c =
        pressWith(std::string("motion m cartesian 3 0.5 force z -10 law ") + law, true, "wrist_table.textproto");
    EXPECT_TRUE(c.refused.empty()) << law << ": " << c.refused;
  }
}

// Watched while it runs: each of the cases the check lets through, or cannot see, stops with its
// own reason, long before a joint's IK would have failed (the run that let the P law at K_p = 100
// go unwatched ended in "setpoint could not be solved (joint 5)" 2.6 s later).
TEST(ForceMonitor, AnUnstableLawLetThroughStopsOnItsOscillationWithinTensOfPeriods) {
  for (const char* law : {"p 100", "p 5", "pd 1 0.01"}) {
    const Contact c = pressWith(std::string("motion m cartesian 3 0.5 force z -10 law ") + law, true, "table.textproto",
                                letThrough());
    EXPECT_TRUE(c.emergency) << law;
    EXPECT_EQ(c.reason, proto::ER_FORCE_OSCILLATION) << law << ": " << proto::EmergencyReason_Name(c.reason);
    EXPECT_LT(c.stopped - c.started, 100u) << law;
  }
}

TEST(ForceMonitor, AForceThatPullsAwayFromTheTableRunsAwayAndIsStopped) {
  const Contact c = pressWith("motion m cartesian 3 0.5 force z 10");
  EXPECT_TRUE(c.emergency);
  EXPECT_EQ(c.reason, proto::ER_FORCE_RUNAWAY) << proto::EmergencyReason_Name(c.reason);
  EXPECT_EQ(c.axis, "z");  // the emergency names the axis it was found along
}

}  // namespace
}  // namespace rfms
