#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <array>
#include <numbers>
#include <random>

#include "common/error.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr double kPi = std::numbers::pi;

double poseError(const Transform& a, const Transform& b) {
  return std::max((a.translation() - b.translation()).cwiseAbs().maxCoeff(),
                  (a.linear() - b.linear()).cwiseAbs().maxCoeff());
}

std::array<ArmConfig, 8> allConfigs() {
  std::array<ArmConfig, 8> c;
  for (int k = 0; k < 8; ++k) c[k] = ArmConfig{(k & 1) != 0, (k & 2) != 0, (k & 4) != 0};
  return c;
}

// A random configuration away from the wrist singularity, so that its flags are well defined.
JointVec randomRegularConfiguration(const RobotModel& model, std::mt19937_64& rng) {
  for (;;) {
    const JointVec q = test::randomConfiguration(model, rng);
    if (std::abs(std::sin(q[4] + model.joints[4].dh.theta_offset)) > 1e-3) return q;
  }
}

class OpwIkRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(OpwIkRoundTrip, EveryReachableConfigurationOfTenThousandPosesReturnsToThePose) {
  const RobotModel& model = std::string(GetParam()) == "puma260" ? test::puma260() : test::puma560();
  const OpwIk ik(model);
  std::mt19937_64 rng(6);
  std::array<int, 8> solved{};
  for (int n = 0; n < 10000; ++n) {
    const JointVec q = randomRegularConfiguration(model, rng);
    const Transform t6 = forwardKinematics(model, q);
    // The pose's own configuration gives back exactly q.
    const IkSolution own = ik.solveSerial(t6, ik.configOf(q), q);
    ASSERT_EQ(own.status, IkStatus::kOk) << "q=" << q.transpose();
    ASSERT_LT((own.q - q).cwiseAbs().maxCoeff(), 1e-7) << "q=" << q.transpose();
    // Every other configuration either reaches the same pose, in that configuration, or says why
    // it cannot (a joint limit).
    const auto configs = allConfigs();
    for (int k = 0; k < 8; ++k) {
      const IkSolution s = ik.solveSerial(t6, configs[k], JointVec::Zero());
      if (s.status == IkStatus::kJointLimit) continue;
      ASSERT_EQ(s.status, IkStatus::kOk) << configs[k].toString() << " q=" << q.transpose();
      ASSERT_LE(poseError(forwardKinematics(model, s.q), t6), 1e-9) << configs[k].toString() << " q=" << q.transpose();
      ASSERT_EQ(ik.configOf(s.q), configs[k]) << " q=" << q.transpose();
      ++solved[k];
    }
  }
  for (int k = 0; k < 8; ++k) EXPECT_GT(solved[k], 1000) << allConfigs()[k].toString();
}

INSTANTIATE_TEST_SUITE_P(Robots, OpwIkRoundTrip, ::testing::Values("puma260", "puma560"));

TEST(OpwIk, HomeIsRightyDownAtZero) {
  const OpwIk ik(test::puma260());
  const ArmConfig c = ik.configOf(JointVec::Zero());
  EXPECT_TRUE(c.righty);
  EXPECT_FALSE(c.up);
}

TEST(OpwIk, ParallelIterationsReachTheSerialSolutionInSixPeriods) {
  // Lambda_i uses joints 1..i-1 of the previous period: after k periods on a fixed T6 the first k
  // joints are exact, so after six the parallel solution is the serial one.
  const RobotModel& model = test::puma560();
  const OpwIk ik(model);
  // Poses drawn 0.1 rad inside the limits, so that the perturbed start (and the partly solved
  // angles on the way) stay on the same turn of each joint.
  RobotModel inner = model;
  for (auto& j : inner.joints) j.q_min += 0.1, j.q_max -= 0.1;
  std::mt19937_64 rng(7);
  for (int n = 0; n < 500; ++n) {
    const JointVec q = randomRegularConfiguration(inner, rng);
    const Transform t6 = forwardKinematics(model, q);
    const ArmConfig config = ik.configOf(q);
    const IkSolution serial = ik.solveSerial(t6, config, q);
    JointVec prev = q + test::randomVector(rng, 0.01);
    for (int k = 1; k <= kJoints; ++k) {
      prev = ik.solveParallel(t6, config, prev).q;
      // Joints 1..k are now the serial solution.
      ASSERT_LT((prev.head(k) - serial.q.head(k)).cwiseAbs().maxCoeff(), 1e-12)
          << "after " << k << "\nq      " << q.transpose() << "\nprev   " << prev.transpose() << "\nserial "
          << serial.q.transpose();
    }
    // And the exact solution is a fixed point.
    EXPECT_LT((ik.solveParallel(t6, config, serial.q).q - serial.q).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(OpwIk, PerJointFunctionsChainIntoTheSerialSolution) {
  const RobotModel& model = test::puma260();
  const OpwIk ik(model);
  std::mt19937_64 rng(8);
  const JointVec q = randomRegularConfiguration(model, rng);
  const Transform t6 = forwardKinematics(model, q);
  const ArmConfig config = ik.configOf(q);
  JointVec known = JointVec::Zero();
  for (int i = 1; i <= kJoints; ++i) {
    const JointSolution s = ik.solveJoint(i, t6, known, config, q);
    ASSERT_EQ(s.status, IkStatus::kOk);
    known[i - 1] = s.q;
  }
  EXPECT_EQ(known, ik.solveSerial(t6, config, q).q);
  EXPECT_LT((known - q).cwiseAbs().maxCoeff(), 1e-9);
}

TEST_P(OpwIkRoundTrip, DecoupledFormsGiveTheSerialAnglesWithFewerDependencies) {
  const RobotModel& model = std::string(GetParam()) == "puma260" ? test::puma260() : test::puma560();
  const OpwIk ik(model);
  std::mt19937_64 rng(9);
  for (int n = 0; n < 2000; ++n) {
    const JointVec q = randomRegularConfiguration(model, rng);
    const Transform t6 = forwardKinematics(model, q);
    const ArmConfig config = ik.configOf(q);
    const IkSolution serial = ik.solveSerial(t6, config, q);
    ASSERT_EQ(serial.status, IkStatus::kOk);
    // The arm joints ignore `known` entirely: garbage in it changes nothing.
    const JointVec garbage = test::randomVector(rng, 3.0);
    // The wrist joints read only theta_1 and theta_2 + theta_3: moving theta_2 and theta_3 in
    // opposite directions, or perturbing theta_4 and theta_5, changes nothing either.
    JointVec inner = serial.q;
    inner[1] += 0.3;
    inner[2] -= 0.3;
    inner[3] += 0.7;
    inner[4] -= 0.2;
    for (int i = 1; i <= kJoints; ++i) {
      const JointSolution s = ik.solveJointDecoupled(i, t6, i <= 3 ? garbage : inner, config, q);
      ASSERT_EQ(s.status, IkStatus::kOk) << "joint " << i << " q=" << q.transpose();
      ASSERT_NEAR(s.q, serial.q[i - 1], 1e-9) << "joint " << i << " q=" << q.transpose();
    }
  }
}

TEST(OpwIk, SingularWristHoldsJointFourAndStillReachesThePose) {
  const RobotModel& model = test::puma260();
  const OpwIk ik(model);
  const JointVec q = (JointVec() << 0.3, -0.5, 0.2, 0.7, 0.0, -0.4).finished();
  const Transform t6 = forwardKinematics(model, q);
  JointVec near = JointVec::Zero();
  near[3] = 0.25;
  const IkSolution s = ik.solveSerial(t6, ArmConfig{true, false, false}, near);
  EXPECT_EQ(s.status, IkStatus::kWristSingular);
  EXPECT_EQ(s.joint, 4);
  EXPECT_DOUBLE_EQ(s.q[3], 0.25);
  EXPECT_LE(poseError(forwardKinematics(model, s.q), t6), 1e-9);
}

TEST(OpwIk, OutOfReachPosesAreRefusedWithTheReason) {
  const OpwIk ik(test::puma260());
  const IkSolution far = ik.solveSerial(trans(1.0, 0.0, 0.2), ArmConfig{}, JointVec::Zero());
  EXPECT_EQ(far.status, IkStatus::kOutOfReachElbow);
  EXPECT_EQ(far.joint, 2);
  // Straight above the base the wrist would sit inside the 126 mm shoulder offset.
  const IkSolution inside = ik.solveSerial(trans(0.0, 0.05, 0.3), ArmConfig{}, JointVec::Zero());
  EXPECT_EQ(inside.status, IkStatus::kOutOfReachShoulder);
  EXPECT_EQ(inside.joint, 1);
  EXPECT_FALSE(usable(inside.status));
  EXPECT_NE(std::string(describe(inside.status)).find("shoulder"), std::string::npos);
}

// Targets so far that their squares overflow (1e155 m and beyond) used to come back as NaN
// angles with the status kOk; and NaN in a target is no target. Every joint's function refuses.
TEST(OpwIk, AbsurdlyFarOrNotANumberTargetsAreOutOfReachNotNaN) {
  const OpwIk ik(test::puma260());
  for (const double x : {1e155, 1e200, std::numeric_limits<double>::infinity(), std::nan("")}) {
    const IkSolution s = ik.solveSerial(trans(x, -0.12624, 0.15), ArmConfig{}, JointVec::Zero());
    EXPECT_FALSE(usable(s.status)) << x;
    EXPECT_TRUE(s.q.allFinite()) << x;
    for (int i = 1; i <= kJoints; ++i) {
      EXPECT_FALSE(usable(ik.solveJoint(i, trans(x, 0, 0), JointVec::Zero(), ArmConfig{}, JointVec::Zero()).status));
      EXPECT_FALSE(
          usable(ik.solveJointDecoupled(i, trans(x, 0, 0), JointVec::Zero(), ArmConfig{}, JointVec::Zero()).status));
    }
  }
}

TEST(OpwIk, JointLimitIsReported) {
  // Joint 5 of the PUMA 260 turns +-100 deg: a pose needing 150 deg there cannot be reached noflip.
  const RobotModel& model = test::puma260();
  RobotModel wide = model;
  wide.joints[4].q_min = -kPi;
  wide.joints[4].q_max = kPi;
  const JointVec q = (JointVec() << 0.1, -0.3, 0.2, 0.4, 150.0 * kPi / 180, 0.2).finished();
  const Transform t6 = forwardKinematics(wide, q);
  const IkSolution s = OpwIk(model).solveSerial(t6, ArmConfig{true, false, false}, JointVec::Zero());
  EXPECT_EQ(s.status, IkStatus::kJointLimit);
  EXPECT_EQ(s.joint, 5);
}

TEST(OpwIk, WrapAroundPicksTheEquivalentAngleNearestTheCurrentOne) {
  // Joint 6 of the PUMA 560 turns +-266 deg, so -2 rad and -2 + 2 pi rad are both reachable.
  const RobotModel& model = test::puma560();
  const OpwIk ik(model);
  const JointVec q = (JointVec() << 0.2, 0.5, -0.8, 0.3, 0.6, -2.0).finished();
  const Transform t6 = forwardKinematics(model, q);
  JointVec near = q;
  near[5] = 3.5;
  const IkSolution s = ik.solveSerial(t6, ik.configOf(q), near);
  ASSERT_EQ(s.status, IkStatus::kOk);
  EXPECT_NEAR(s.q[5], -2.0 + 2 * kPi, 1e-9);
  near[5] = -1.0;
  EXPECT_NEAR(ik.solveSerial(t6, ik.configOf(q), near).q[5], -2.0, 1e-9);
}

TEST(OpwIk, InvalidJointNumberIsAStatusNotACrash) {
  const OpwIk ik(test::puma260());
  EXPECT_EQ(ik.solveJoint(7, Transform::Identity(), JointVec::Zero(), ArmConfig{}, JointVec::Zero()).status,
            IkStatus::kInvalidJoint);
}

TEST(OpwIk, RejectsModelsOutsideThePumaFamily) {
  RobotModel m = test::puma560();
  m.joints[3].dh.a = 0.05;  // no longer a spherical wrist
  EXPECT_THROW(OpwIk{m}, ConfigError);
  m = test::puma560();
  m.joints[1].dh.setAlpha(0.1);
  EXPECT_THROW(OpwIk{m}, ConfigError);
}

TEST(ArmConfig, ParsesAndPrints) {
  const auto c = ArmConfig::parse("lefty,up,flip");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->righty);
  EXPECT_TRUE(c->up);
  EXPECT_TRUE(c->flip);
  EXPECT_EQ(c->toString(), "lefty,up,flip");
  EXPECT_EQ(ArmConfig::parse("NOFLIP, Down, right"), (ArmConfig{true, false, false}));
  EXPECT_FALSE(ArmConfig::parse("lefty,righty,up"));
  EXPECT_FALSE(ArmConfig::parse("lefty,up"));
  EXPECT_FALSE(ArmConfig::parse("lefty,up,sideways"));
}

}  // namespace
}  // namespace rfms
