#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "arm_sim/arm_core.hpp"
#include "common/forward_dynamics.hpp"
#include "common/rne.hpp"
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
  const Commands c(tau, true);
  for (int k = 0; k < 200; ++k) arm.step(c.pointers);
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
  const Commands cmd(tau, true);
  proto::ArmSensors s;
  bool fired = false;
  for (int k = 0; k < 1000 && !fired; ++k) {
    const double before = arm.q()[0];
    arm.step(cmd.pointers);
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
  const Commands cmd(tau, true);
  arm.step(cmd.pointers);
  // After 1 ms from rest: q ~ q0 + qdd dt^2 / 2 with the model's own qdd.
  const JointVec qdd = forwardDynamics(model, kStart, JointVec::Zero(), tau);
  EXPECT_LT(((arm.q() - kStart) - 0.5 * qdd * 1e-6).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((arm.qd() - qdd * 1e-3).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(ArmCore, CurrentAmplifierLimitsTheTorque) {
  const RobotModel& model = test::puma260();
  ArmCore arm(model, config());
  const Commands cmd(JointVec::Constant(1e6), true);
  arm.step(cmd.pointers);
  for (int i = 0; i < kJoints; ++i) EXPECT_LE(std::abs(arm.appliedTorque()[i]), model.joints[i].tau_max);
}

TEST(ArmCore, WithoutPowerTheBrakesStopAndHoldTheArm) {
  const RobotModel& model = test::puma260();
  ArmCore arm(model, config());
  JointVec tau = gravityTorques(model, kStart);
  tau[0] = 5.0;
  tau[3] = 1.0;
  const Commands run(tau, true);
  for (int k = 0; k < 200; ++k) arm.step(run.pointers);
  ASSERT_GT(arm.qd().norm(), 1.0);
  const Commands off(tau, false);  // commands are ignored without power
  int k = 0;
  for (; k < 2000 && arm.qd().norm() > 0.0; ++k) arm.step(off.pointers);
  EXPECT_EQ(arm.qd().norm(), 0.0);
  EXPECT_LT(k, 100);  // stopped within 0.1 s
  const JointVec held = arm.q();
  for (int n = 0; n < 500; ++n) arm.step(off.pointers);
  EXPECT_EQ(arm.q(), held);  // gravity does not move a braked arm
  // Missing commands count as no power.
  std::array<const proto::TorqueCommand*, kJoints> none{};
  arm.step(none);
  EXPECT_FALSE(arm.powered());
}

TEST(ArmCore, ExternalWrenchActsThroughTheJacobianTranspose) {
  RobotModel model = test::puma560();
  for (auto& j : model.joints) j.coulomb = j.viscous = 0.0;
  ArmCore pushed(model, config()), free(model, config());
  const Vec6 wrench = (Vec6() << 0, 0, -50, 0, 0, 0).finished();
  pushed.setExternalWrench(wrench);
  const Commands cmd(gravityTorques(model, kStart), true);
  pushed.step(cmd.pointers);
  free.step(cmd.pointers);
  EXPECT_GT((pushed.q() - free.q()).norm(), 1e-9);
}

}  // namespace
}  // namespace rfms
