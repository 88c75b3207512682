#include <gtest/gtest.h>

#include "common/motor.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

TEST(Motor, VoltageAndTorqueAreInverses) {
  const JointModel& j = test::puma260().joints[1];
  for (double qd : {-1.0, 0.0, 0.7})
    for (double tau : {-10.0, 0.0, 3.5}) {
      const double v = voltageForTorque(j, tau, qd);
      EXPECT_NEAR(torqueFromVoltage(j, v, qd), tau, 1e-12);
    }
}

TEST(Motor, BackEmfOpposesMotion) {
  // With the terminals shorted the motor brakes: torque opposes the speed, in proportion to it.
  const JointModel& j = test::puma260().joints[0];
  const double t = torqueFromVoltage(j, 0.0, 0.5);
  EXPECT_LT(t, 0.0);
  EXPECT_NEAR(t, -j.gear_ratio * j.gear_ratio * j.kt * j.kt * 0.5 / j.resistance, 1e-12);
}

TEST(Motor, CurrentModeAndSaturation) {
  const JointModel& j = test::puma260().joints[2];
  EXPECT_NEAR(torqueFromCurrent(j, 1.0), j.gear_ratio * j.kt, 1e-12);
  EXPECT_NEAR(torqueFromCurrent(j, 1e6), j.gear_ratio * j.kt * j.max_current, 1e-9);
  EXPECT_NEAR(currentForTorque(j, torqueFromCurrent(j, 0.3)), 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(saturateTorque(j, 1e6), j.tau_max);
  EXPECT_DOUBLE_EQ(saturateTorque(j, -1e6), -j.tau_max);
  EXPECT_DOUBLE_EQ(saturateTorque(j, 0.1), 0.1);
}

}  // namespace
}  // namespace rfms
