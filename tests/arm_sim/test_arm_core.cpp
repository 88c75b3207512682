#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "arm_sim/arm_core.hpp"
#include "common/forward_dynamics.hpp"
#include "common/rne.hpp"
#include "tests/support/arm_steps.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

struct Commands {
  std::array<proto::TorqueCommand, kJoints> mail;
  std::array<const proto::TorqueCommand*, kJoints> pointers{};
  Commands(const JointVec& tau, bool power) {
    for (int i = 0; i < kJoints; ++i) {
      mail[static_cast<std::size_t>(i)].set_torque(tau[i]);
      mail[static_cast<std::size_t>(i)].set_power(power);
      pointers[static_cast<std::size_t>(i)] = &mail[static_cast<std::size_t>(i)];
    }
  }
  // The commands renewed for period k, as the joints send them every period (the arm's
  // watchdog refuses a command that is not renewed).
  const std::array<const proto::TorqueCommand*, kJoints>& at(std::uint64_t k) {
    for (auto& m : mail) m.mutable_header()->set_period(k);
    return pointers;
  }
};

const JointVec kStart = (JointVec() << 0.1, -0.3, 0.4, 0.2, -0.6, 0.3).finished();

ArmSimConfig config() {
  ArmSimConfig c;
  c.q_initial = kStart;
  return c;
}

TEST(ArmCore, EncodersStartAtZeroAndCountQuantisedAngle) {
  const RobotModel& model = test::puma260();
  ArmCore arm(model, config());
  proto::ArmSensors s;
  arm.sense(s);
  for (int i = 0; i < kJoints; ++i) EXPECT_EQ(s.encoder(i), 0);  // incremental: power-up is zero
  EXPECT_FALSE(s.powered());
  // Hold against gravity and push joint 1 around: counts follow the angle, one count per
  // 2 pi / counts_per_rev.
  JointVec tau = gravityTorques(model, kStart);
  tau[0] = 2.0;
  Commands c(tau, true);
  for (int k = 0; k < 200; ++k) test::stepArm(arm, c.at(arm.period()));
  arm.sense(s);
  EXPECT_TRUE(s.powered());
  const double per_count = 2 * std::numbers::pi / model.joints[0].counts_per_rev;
  EXPECT_EQ(s.encoder(0), static_cast<std::int64_t>(std::floor((arm.q()[0] - kStart[0]) / per_count)));
  EXPECT_GT(s.encoder(0), 100);
}

TEST(ArmCore, IndexPulseFiresWhereTheModelSaysAndLatchesTheCount) {
  const RobotModel& model = test::puma260();
  ArmSimConfig c = config();
  c.q_initial[0] = model.joints[0].index_angle - 0.05;  // just below joint 1's index
  ArmCore arm(model, c);
  JointVec tau = gravityTorques(model, c.q_initial);
  tau[0] = 1.5;
  Commands cmd(tau, true);
  proto::ArmSensors s;
  bool fired = false;
  for (int k = 0; k < 1000 && !fired; ++k) {
    const double before = arm.q()[0];
    test::stepArm(arm, cmd.at(arm.period()));
    arm.sense(s);
    fired = s.index(0);
    if (fired) {
      EXPECT_LE(before, model.joints[0].index_angle);
      EXPECT_GE(arm.q()[0], model.joints[0].index_angle);
      const double per_count = 2 * std::numbers::pi / model.joints[0].counts_per_rev;
      EXPECT_NEAR(static_cast<double>(s.index_count(0)) * per_count, model.joints[0].index_angle - c.q_initial[0],
                  per_count);
    }
  }
  EXPECT_TRUE(fired);
}

TEST(ArmCore, FollowsTheModelsForwardDynamicsWhenFrictionless) {
  RobotModel model = test::puma560();
  for (auto& j : model.joints) j.coulomb = j.viscous = 0.0;
  ArmCore arm(model, config());
  const JointVec tau = gravityTorques(model, kStart) + (JointVec() << 5, -3, 2, 0.2, 0.1, -0.1).finished();
  Commands cmd(tau, true);
  test::stepArm(arm, cmd.at(arm.period()));
  // After 1 ms from rest: q ~ q0 + qdd dt^2 / 2 with the model's own qdd.
  const JointVec qdd = forwardDynamics(model, kStart, JointVec::Zero(), tau);
  EXPECT_LT(((arm.q() - kStart) - 0.5 * qdd * 1e-6).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((arm.qd() - qdd * 1e-3).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(ArmCore, CurrentAmplifierLimitsTheTorque) {
  const RobotModel& model = test::puma260();
  ArmCore arm(model, config());
  Commands cmd(JointVec::Constant(1e6), true);
  test::stepArm(arm, cmd.at(arm.period()));
  for (int i = 0; i < kJoints; ++i) EXPECT_LE(std::abs(arm.appliedTorque()[i]), model.joints[i].tau_max);
}

TEST(ArmCore, WithoutPowerTheBrakesStopAndHoldTheArm) {
  const RobotModel& model = test::puma260();
  ArmCore arm(model, config());
  JointVec tau = gravityTorques(model, kStart);
  tau[0] = 5.0;
  tau[3] = 1.0;
  Commands run(tau, true);
  for (int k = 0; k < 200; ++k) test::stepArm(arm, run.at(arm.period()));
  ASSERT_GT(arm.qd().norm(), 1.0);
  Commands off(tau, false);  // commands are ignored without power
  int k = 0;
  for (; k < 2000 && arm.qd().norm() > 0.0; ++k) test::stepArm(arm, off.at(arm.period()));
  EXPECT_EQ(arm.qd().norm(), 0.0);
  EXPECT_LT(k, 100);  // stopped within 0.1 s
  const JointVec held = arm.q();
  for (int n = 0; n < 500; ++n) test::stepArm(arm, off.at(arm.period()));
  EXPECT_EQ(arm.q(), held);  // gravity does not move a braked arm
  // Missing commands count as no power.
  std::array<const proto::TorqueCommand*, kJoints> none{};
  test::stepArm(arm, none);
  EXPECT_FALSE(arm.powered());
}

// The amplifiers' own watchdog: a moving arm whose joints stop renewing their commands (a dead
// supervisor stops the joints; a realtime arm would reuse their last commands for ever) takes
// its power off after command_timeout_periods, says which joints, and the brakes stop it.
TEST(ArmCore, CommandsNotRenewedForTheWatchdogsPeriodsTakeThePowerOffAndTheBrakesStopTheArm) {
  const RobotModel& model = test::puma260();
  ArmSimConfig c = config();
  c.command_timeout_periods = 10;
  ArmCore arm(model, c);
  JointVec tau = gravityTorques(model, kStart);
  tau[0] = 5.0;
  Commands run(tau, true);
  for (int k = 0; k < 200; ++k) test::stepArm(arm, run.at(arm.period()));
  ASSERT_TRUE(arm.powered());
  ASSERT_GT(arm.qd().norm(), 1.0);
  // The command last applied, reused for a few periods (late mail in realtime): still applied.
  const auto& last = run.at(arm.period() - 1);
  for (int n = 0; n < 9; ++n) {
    test::stepArm(arm, last);
    EXPECT_TRUE(arm.powered()) << n;
    EXPECT_EQ(arm.staleCommands(), 0u);
  }
  // The tenth period without a new one: refused, and the sensors say so.
  test::stepArm(arm, last);
  EXPECT_FALSE(arm.powered());
  EXPECT_EQ(arm.staleCommands(), 0x3fu);
  proto::ArmSensors sensors;
  arm.sense(sensors);
  EXPECT_EQ(sensors.stale_commands(), 0x3fu);
  EXPECT_FALSE(sensors.powered());
  int k = 0;
  for (; k < 2000 && arm.qd().norm() > 0.0; ++k) test::stepArm(arm, last);
  EXPECT_EQ(arm.qd().norm(), 0.0) << "the brakes stop the arm";
  EXPECT_LT(k, 100);
  EXPECT_FALSE(arm.powered());
  // New commands again: the watchdog lets them through.
  test::stepArm(arm, run.at(arm.period()));
  EXPECT_TRUE(arm.powered());
  EXPECT_EQ(arm.staleCommands(), 0u);
}

// One joint going quiet is enough: power needs all six.
TEST(ArmCore, OneJointsStaleCommandIsEnoughToTakeThePowerOff) {
  const RobotModel& model = test::puma260();
  ArmSimConfig c = config();
  c.command_timeout_periods = 3;
  ArmCore arm(model, c);
  Commands run(gravityTorques(model, kStart), true);
  test::stepArm(arm, run.at(arm.period()));
  proto::TorqueCommand frozen = run.mail[2];
  for (int n = 0; n < 3; ++n) {
    auto pointers = run.at(arm.period());
    pointers[2] = &frozen;
    test::stepArm(arm, pointers);
  }
  EXPECT_FALSE(arm.powered());
  EXPECT_EQ(arm.staleCommands(), 1u << 2);
}

TEST(ArmCore, ExternalWrenchActsThroughTheJacobianTranspose) {
  RobotModel model = test::puma560();
  for (auto& j : model.joints) j.coulomb = j.viscous = 0.0;
  ArmCore pushed(model, config()), free(model, config());
  const Vec6 wrench = (Vec6() << 0, 0, -50, 0, 0, 0).finished();
  pushed.setExternalWrench(wrench);
  Commands cmd(gravityTorques(model, kStart), true);
  test::stepArm(pushed, cmd.at(pushed.period()));
  test::stepArm(free, cmd.at(free.period()));
  EXPECT_GT((pushed.q() - free.q()).norm(), 1e-9);
}

}  // namespace
}  // namespace rfms
