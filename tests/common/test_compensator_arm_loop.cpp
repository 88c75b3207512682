// The sampled model of the compensator's loop on the whole arm (common/compensator_arm_loop.hpp)
// against an independent oracle: on a one-coordinate arm, sampled finely, its bound on K_1 is the
// continuous loop's, built here from the equations of motion and judged by its eigenvalues. The
// continuous loop shows the term the check was missing in closed form: the loop's highest term
// is (M - K_1 M_ff) m, so it holds K_1 up to M / M_ff exactly, whatever the servo and the damper.
// Fed forward as the arm alone (M_ff = M) that is A.1's 1; with the tool in the joints' model
// (M_ff = M + m), M / (M + m).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/compensator_arm_loop.hpp"
#include "common/gain_bound.hpp"

namespace rfms {
namespace {

struct OneAxis {
  double arm = 3.0;     // kg: M
  double fed = 4.0;     // kg: M_ff
  double tool = 1.0;    // kg: m
  double k = 4000.0;    // N/m
  double c = 100.0;     // N s/m
  double kp = 10000.0;  // N/m
  double kd = 400.0;    // N s/m
};

// The model's plant: the arm a single mass along x, the wrist's other axes holding the tool to a
// flange that does not move along them.
ArmCompensatorPlant sampled(const OneAxis& a, double dt) {
  ArmCompensatorPlant p;
  p.dt = dt;
  p.mass = Eigen::MatrixXd::Constant(1, 1, a.arm);
  p.feedforward_mass = Eigen::MatrixXd::Constant(1, 1, a.fed);
  p.wrist_point = Eigen::MatrixXd::Zero(3, 1);
  p.wrist_point(0, 0) = 1.0;
  p.friction = Eigen::VectorXd::Zero(1);
  p.servo_stiffness = Eigen::VectorXd::Constant(1, a.kp);
  p.servo_damping = Eigen::VectorXd::Constant(1, a.kd);
  p.feedforward_friction = Eigen::VectorXd::Zero(1);
  p.setpoint_shift = Eigen::MatrixXd::Zero(1, 3);
  p.setpoint_shift(0, 0) = 1.0;
  p.tool_mass = a.tool;
  p.wrist_stiffness = a.k;
  p.wrist_damping = a.c;
  p.axes = 0x1u;
  return p;
}

// The continuous loop, c = -K_1 d, state [x_l, x, x_l', x']:
//   M x_l'' = K_p (c - x_l) + K_d (c' - x_l') + M_ff c'' + K d + C d',   m x'' = -(K d + C d'),
// with d = x - x_l; c'' holds both accelerations, so x_l'' is solved for.
bool continuousStable(const OneAxis& a, double k1) {
  Eigen::Matrix4d s = Eigen::Matrix4d::Zero();
  s(0, 2) = s(1, 3) = 1.0;
  // Rows of y: d, d', and the tool's acceleration.
  const Eigen::RowVector4d d(-1.0, 1.0, 0.0, 0.0), dd(0.0, 0.0, -1.0, 1.0);
  const Eigen::RowVector4d tool = -(a.k * d + a.c * dd) / a.tool;
  const Eigen::RowVector4d x_l(1.0, 0.0, 0.0, 0.0), v_l(0.0, 0.0, 1.0, 0.0);
  // (M - M_ff K_1) x_l'' = rest - M_ff K_1 x''.
  const Eigen::RowVector4d rest =
      -a.kp * k1 * d - a.kp * x_l - a.kd * k1 * dd - a.kd * v_l + a.k * d + a.c * dd - a.fed * k1 * tool;
  s.row(2) = rest / (a.arm - a.fed * k1);
  s.row(3) = tool;
  double largest = -std::numeric_limits<double>::infinity();
  for (const auto& z : s.eigenvalues()) largest = std::max(largest, z.real());
  return largest < 0.0;
}

double sampledBound(const OneAxis& a, double dt) {
  const ArmCompensatorPlant p = sampled(a, dt);
  return leastUnstable([&](double k1) { return compensatorArmRadius(p, {.k1 = k1}) < 1.0; }, 2.0);
}

double continuousBound(const OneAxis& a) {
  return leastUnstable([&](double k1) { return continuousStable(a, k1); }, 2.0);
}

TEST(CompensatorArmLoop, OnOneAxisTheContinuousLoopHoldsK1UpToTheArmsShareOfTheFedForwardMass) {
  for (const double fed : {3.0, 4.0})
    for (const double c : {30.0, 100.0, 300.0})
      for (const double kp : {2500.0, 10000.0}) {
        // The servo critically damped on the arm and the tool together (3 + 1 kg).
        const OneAxis a{.fed = fed, .c = c, .kp = kp, .kd = 2.0 * std::sqrt(kp * 4.0)};
        EXPECT_NEAR(continuousBound(a), a.arm / a.fed, 1e-4) << fed << " " << c << " " << kp;
      }
}

TEST(CompensatorArmLoop, SampledFinelyItBoundsK1WhereTheContinuousLoopDoes) {
  for (const double fed : {3.0, 4.0})
    for (const double c : {30.0, 100.0, 300.0}) {
      const OneAxis a{.fed = fed, .c = c};
      const double continuous = continuousBound(a), fine = sampledBound(a, 2e-5);
      EXPECT_NEAR(fine, continuous, 0.01 * continuous) << fed << " " << c;
      // At the controller's period its delays move the bound, down with a light damper (the
      // loop rings near the wrist's resonance, where they lag it), up with a heavy one.
      RecordProperty(
          "bound_1kHz_fed" + std::to_string(static_cast<int>(fed)) + "_c" + std::to_string(static_cast<int>(c)),
          std::to_string(sampledBound(a, 1e-3)));
    }
}

TEST(CompensatorArmLoop, OnAnArmWhoseAxesAreApartEachAxisHasTheOneAxisBound) {
  // A point mass moved along x, y and z by three coordinates: the axes do not couple, and three
  // compensated axes hold exactly what one does.
  const OneAxis a{.c = 100.0};
  ArmCompensatorPlant p = sampled(a, 1e-3);
  p.mass = a.arm * Eigen::Matrix3d::Identity();
  p.feedforward_mass = a.fed * Eigen::Matrix3d::Identity();
  p.wrist_point = Eigen::Matrix3d::Identity();
  p.setpoint_shift = Eigen::Matrix3d::Identity();
  p.friction = Eigen::Vector3d::Zero();
  p.servo_stiffness = Eigen::Vector3d::Constant(a.kp);
  p.servo_damping = Eigen::Vector3d::Constant(a.kd);
  p.feedforward_friction = Eigen::Vector3d::Zero();
  const double one = sampledBound(a, 1e-3);
  for (const std::uint32_t axes : {0x1u, 0x7u}) {
    p.axes = axes;
    const double bound = leastUnstable([&](double k1) { return compensatorArmRadius(p, {.k1 = k1}) < 1.0; }, 2.0);
    EXPECT_NEAR(bound, one, 1e-4 * one) << axes;
  }
}

TEST(CompensatorArmLoop, ItsVerdictNamesTheBoundOverTheGainMargin) {
  const OneAxis a{.c = 100.0};
  const ArmCompensatorPlant p = sampled(a, 1e-3);
  const double bound = sampledBound(a, 1e-3);
  EXPECT_EQ(compensatorArmVerdict(p, {.k1 = 0.9 * bound / 1.25}, 1.25), "");
  const std::string why = compensatorArmVerdict(p, {.k1 = 0.9 * bound}, 1.25);
  EXPECT_NE(why.find("is within the gain margin of instability on the arm's sampled loop through the wrist"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("K_1 must be below " + boundText(bound / 1.25)), std::string::npos) << why;
  EXPECT_NE(compensatorArmVerdict(p, {.k1 = 1.1 * bound}, 1.0).find("is unstable"), std::string::npos);
}

}  // namespace
}  // namespace rfms
