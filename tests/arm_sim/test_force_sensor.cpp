// The force/torque sensor: its noise, bias, bandwidth and range as the scene states them, and what
// it reads on a still arm: the tool's weight. (On the table, test_arm_contact.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "arm_sim/arm_core.hpp"
#include "arm_sim/force_sensor.hpp"
#include "common/kinematics.hpp"
#include "common/text_proto.hpp"
#include "tests/support/arm_steps.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

ForceTorqueModel quiet() {
  ForceTorqueModel m;
  m.bandwidth_hz = 1e4;
  m.range_force = 200.0;
  m.range_moment = 10.0;
  return m;
}

TEST(ForceSensor, ItsNoiseAndBiasAreWhatTheSceneSays) {
  ForceTorqueModel m = quiet();
  m.noise_force = 0.5;
  m.noise_moment = 0.01;
  m.bias << 1.0, -2.0, 3.0, 0.1, 0.0, -0.1;
  ForceTorqueSensor s(m, 1e-3);
  const Vec6 truth = (Vec6() << 5, 6, 7, 0.5, 0.6, 0.7).finished();
  const int n = 20000;
  Vec6 sum = Vec6::Zero(), sq = Vec6::Zero();
  for (int k = 0; k < n; ++k) {
    s.sample(truth);
    const Vec6 e = s.reading() - truth - m.bias;
    sum += e;
    sq += e.cwiseProduct(e);
  }
  for (int i = 0; i < 6; ++i) {
    const double sigma = i < 3 ? 0.5 : 0.01;
    EXPECT_NEAR(sum[i] / n, 0.0, 5 * sigma / std::sqrt(n)) << "channel " << i;
    EXPECT_NEAR(std::sqrt(sq[i] / n), sigma, 0.03 * sigma) << "channel " << i;
  }
}

TEST(ForceSensor, ASeedGivesTheSameNoiseEveryRun) {
  ForceTorqueModel m = quiet();
  m.noise_force = 0.5;
  ForceTorqueSensor a(m, 1e-3), b(m, 1e-3);
  m.seed = 2;
  ForceTorqueSensor c(m, 1e-3);
  bool differs = false;
  for (int k = 0; k < 100; ++k) {
    a.sample(Vec6::Zero());
    b.sample(Vec6::Zero());
    c.sample(Vec6::Zero());
    ASSERT_EQ(a.reading(), b.reading());
    differs = differs || a.reading() != c.reading();
  }
  EXPECT_TRUE(differs);
}

TEST(ForceSensor, ItsBandwidthIsAFirstOrderLag) {
  ForceTorqueModel m = quiet();
  m.bandwidth_hz = 10.0;
  ForceTorqueSensor s(m, 1e-3);
  s.sample(Vec6::Zero());
  // A 10 N step: 63 % of it after one time constant, 1 / (2 pi 10 Hz) = 15.9 ms.
  const Vec6 step = (Vec6() << 0, 0, 10, 0, 0, 0).finished();
  const int tau_periods = static_cast<int>(std::round(1.0 / (2 * std::numbers::pi * 10.0) / 1e-3));
  for (int k = 0; k < tau_periods; ++k) s.sample(step);
  EXPECT_NEAR(s.reading()[2], 10.0 * (1.0 - std::exp(-1.0)), 0.2);
  for (int k = 0; k < 200; ++k) s.sample(step);
  EXPECT_NEAR(s.reading()[2], 10.0, 1e-3);
}

TEST(ForceSensor, ItClipsAtItsRangeAndSaysWhichChannels) {
  ForceTorqueSensor s(quiet(), 1e-3);
  s.sample((Vec6() << 500, -10, 0, 0, -12, 0).finished());
  EXPECT_EQ(s.reading()[0], 200.0);
  EXPECT_EQ(s.reading()[1], -10.0);
  EXPECT_EQ(s.reading()[4], -10.0);
  EXPECT_EQ(s.saturated(), (1u << 0) | (1u << 4));
}

Scene sensedScene(const std::string& com) {
  proto::Scene p;
  parseTextProto("tool { mass_kg: 1 com_m { " + com + " } tip_m { z: 0.06 } }\n" +
                     "sensor { force_torque { noise_n: 0 noise_nm: 0 bandwidth_hz: 10000 } }\n",
                 p, "test");
  return sceneFromProto(p, "test");
}

TEST(ForceSensor, OnAStillArmItReadsTheToolsWeightFromItsFirstMail) {
  // Power off, brakes on: the arm is still, and the sensor carries the tool's weight, in T6's axes,
  // from power-up on (a first mail reading nothing would be a pull of the tool's weight).
  const Scene scene = sensedScene("x: 0.01 z: 0.04");
  const RobotModel model = withTool(test::puma260(), scene.tool);
  ArmSimConfig c;
  c.q_initial = (JointVec() << 0.1, -0.4, 0.3, 0.2, 1.3, 0.3).finished();
  c.scene = scene;
  ArmCore arm(model, c);
  const std::array<const proto::TorqueCommand*, kJoints> none{};
  const Mat3 r = forwardKinematics(model, arm.q()).linear();
  const Vec3 weight = r.transpose() * (1.0 * model.gravity);
  const Vec3 moment = Vec3(0.01, 0, 0.04).cross(weight);
  for (const int steps : {0, 5}) {
    for (int k = 0; k < steps; ++k) test::stepArm(arm, none);
    proto::ArmSensors s;
    arm.sense(s);
    ASSERT_EQ(s.wrench_size(), 6);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(s.wrench(i), weight[i], 1e-9) << "period " << s.header().period();
      EXPECT_NEAR(s.wrench(3 + i), moment[i], 1e-9) << "period " << s.header().period();
    }
    EXPECT_EQ(s.wrench_saturated(), 0u);
  }
}

}  // namespace
}  // namespace rfms
