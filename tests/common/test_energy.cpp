// The emulated arm's integration: an unforced, frictionless arm keeps its total energy, and an
// unpowered arm falls under gravity the right way.
#include <gtest/gtest.h>

#include "common/forward_dynamics.hpp"
#include "common/rk4.hpp"
#include "common/rne.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

using State = Eigen::Matrix<double, 2 * kJoints, 1>;

State derivative(const RobotModel& model, const State& x) {
  State dx;
  dx.head<kJoints>() = x.tail<kJoints>();
  dx.tail<kJoints>() = forwardDynamics(model, x.head<kJoints>(), x.tail<kJoints>(), JointVec::Zero());
  return dx;
}

double totalEnergy(const RobotModel& model, const State& x) {
  return kineticEnergy(model, x.head<kJoints>(), x.tail<kJoints>()) + potentialEnergy(model, x.head<kJoints>());
}

class Energy : public ::testing::TestWithParam<const char*> {
 protected:
  const RobotModel& model() const { return std::string(GetParam()) == "puma260" ? test::puma260() : test::puma560(); }
};

TEST_P(Energy, IsConservedOverTenSecondsOfOneMillisecondRk4Steps) {
  State x;
  x.head<kJoints>() << 0.3, -0.6, 0.4, 0.2, 0.8, -0.3;
  x.tail<kJoints>() << 0.5, -0.4, 0.6, 1.0, -0.8, 1.2;
  const RobotModel& m = model();
  // Measured against the energy that moves around: the kinetic energy plus the potential energy
  // relative to the lowest point it could reach (so the reference of potential energy cancels).
  const double e0 = totalEnergy(m, x);
  double max_drift = 0.0, scale = kineticEnergy(m, x.head<kJoints>(), x.tail<kJoints>());
  for (int k = 0; k < 10000; ++k) {
    rk4Step(x, k * 1e-3, 1e-3, [&m](double, const State& s) { return derivative(m, s); });
    max_drift = std::max(max_drift, std::abs(totalEnergy(m, x) - e0));
    scale = std::max(scale, kineticEnergy(m, x.head<kJoints>(), x.tail<kJoints>()));
  }
  ASSERT_TRUE(x.allFinite());
  EXPECT_LE(max_drift / scale, 1e-6) << "drift " << max_drift << " J of " << scale << " J";
}

TEST_P(Energy, UnpoweredArmFallsDownhill) {
  // Released at rest with zero torque: gravity does positive work from the first instant (its
  // torque -g(q) and the acceleration agree), potential energy turns into kinetic energy, and
  // gravity exerts no torque about joint 1, whose axis is vertical.
  const RobotModel& m = model();
  State x = State::Zero();
  x.head<kJoints>() << 0.0, 0.3, -0.2, 0.0, 0.4, 0.0;
  const double v0 = potentialEnergy(m, x.head<kJoints>());
  const JointVec qdd0 = derivative(m, x).tail<kJoints>();
  const JointVec hold = gravityTorques(m, x.head<kJoints>());
  EXPECT_GT(-hold.dot(qdd0), 0.0);
  EXPECT_NEAR(hold[0], 0.0, 1e-12);
  for (int k = 0; k < 100; ++k) rk4Step(x, k * 1e-3, 1e-3, [&m](double, const State& s) { return derivative(m, s); });
  EXPECT_LT(potentialEnergy(m, x.head<kJoints>()), v0);
  EXPECT_GT(kineticEnergy(m, x.head<kJoints>(), x.tail<kJoints>()), 0.0);
}

TEST(Energy, Puma260AtHomeDropsItsUpperArm) {
  // At q = 0 the upper arm is horizontal with the wrist mass ahead of the shoulder: the holding
  // torque on joint 2 is positive (it would raise the arm), so without it the shoulder turns down.
  const JointVec qdd = forwardDynamics(test::puma260(), JointVec::Zero(), JointVec::Zero(), JointVec::Zero());
  EXPECT_LT(qdd[1], 0.0);
}

INSTANTIATE_TEST_SUITE_P(Robots, Energy, ::testing::Values("puma260", "puma560"));

}  // namespace
}  // namespace rfms
