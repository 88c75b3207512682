// The sampled force loop's model (common/force_loop.hpp) against A.1's closed forms and against the
// one-axis plants integrated by RK4 (arm_sim/wrist_axis.hpp) under the discrete law: two independent
// ways to the same bound. (Against the whole emulated arm: tests/harness/test_force_stability.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "arm_sim/wrist_axis.hpp"
#include "common/force_loop.hpp"

namespace rfms {
namespace {

constexpr double kM = 2.0, kC = 200.0, kKw = 4000.0;  // A.1's arm and wrist

ForceLoopPlant wristOnAWall() {
  ForceLoopPlant p = ForceLoopPlant::onOneAxis(kM, kC);
  p.wrist = true;
  p.wrist_stiffness = kKw;
  p.surface_stiffness = std::numeric_limits<double>::infinity();
  return p;
}

ForceGains law(ForceLawKind kind, double kp, double ki = 0.0) {
  ForceGains g;
  g.law = kind;
  g.kp = kp;
  g.ki = ki;
  return g;
}

// How the force's distance from where the law settles grows over 4 s after a 10 N step: its
// largest value over the last half second over that of the half second before (below 1: it dies
// away; above: it grows). The one-axis plant is integrated by RK4 and the law run once a period,
// as the controller runs it.
double growth(const ForceAxisParams& plant, const ForceGains& gains, double dt) {
  ForceAxis axis(plant);
  ForceLaw f(gains, dt);
  const double settles = gains.law == ForceLawKind::kPI ? 10.0 : 10.0 * gains.kp / (1.0 + gains.kp);
  double before = 0.0, last = 0.0;
  const int periods = static_cast<int>(4.0 / dt);
  for (int k = 0; k < periods; ++k) {
    const double measured = axis.wristForce();
    const double off = std::abs(measured - settles);
    if (k >= periods * 3 / 4 && k < periods * 7 / 8) before = std::max(before, off);
    if (k >= periods * 7 / 8) last = std::max(last, off);
    axis.step(f.update(10.0, measured), dt);
  }
  return last / before;
}

// A.1, Eq. 30 with the Routh criterion: the PI loop on a rigid wall, m s^3 + C s^2 + K_w (1 + K_p) s
// + K_w K_p K_I, is stable while K_I < C (1 + K_p) / (m K_p): 103.3 /s at K_p = 30.
TEST(ForceLoop, TheContinuousPiBoundIsRouths) {
  const double routh = kC * (1.0 + 30.0) / (kM * 30.0);
  const double bound = forceGainBound(wristOnAWall(), law(ForceLawKind::kPI, 30.0, 1.0), ForceGain::kKi, 1e4,
                                      ForceLoopTime::kContinuous);
  EXPECT_NEAR(bound, routh, 1e-4 * routh);
  // The P law's continuous loop is second order: stable at any gain.
  EXPECT_TRUE(std::isinf(
      forceGainBound(wristOnAWall(), law(ForceLawKind::kP, 1.0), ForceGain::kKp, 1e4, ForceLoopTime::kContinuous)));
}

// Sampled at 1 kHz the PI bound falls well below Routh's; the integrated plant agrees where it is.
TEST(ForceLoop, TheSampledPiBoundIsWhereTheIntegratedPlantDiverges) {
  const double dt = 1e-3;
  ForceLoopPlant p = wristOnAWall();
  p.dt = dt;
  const double bound = forceGainBound(p, law(ForceLawKind::kPI, 30.0, 1.0), ForceGain::kKi, 1e4);
  RecordProperty("pi_bound_1khz", std::to_string(bound));
  EXPECT_LT(bound, 0.8 * kC * 31.0 / (kM * 30.0));
  ForceAxisParams plant;  // A.1's, on a rigid wall
  EXPECT_LT(growth(plant, law(ForceLawKind::kPI, 30.0, 0.97 * bound), dt), 1.0);
  EXPECT_GT(growth(plant, law(ForceLawKind::kPI, 30.0, 1.03 * bound), dt), 1.0);
}

// The P law's sampled bound, on a rigid wall and on an elastic environment (Eq. 37) over a range
// of its stiffness: where the model puts it, the integrated plant changes from settling to not.
TEST(ForceLoop, TheSampledPBoundIsWhereTheIntegratedPlantDivergesOnAnyEnvironment) {
  const double dt = 1e-3;
  for (const double stiffness : {0.0, 2e3, 1e4, 4e4}) {
    ForceLoopPlant p = wristOnAWall();
    p.dt = dt;
    ForceAxisParams plant;
    if (stiffness > 0.0) {
      p.surface_stiffness = stiffness;
      p.tool_mass = plant.m_e;
      plant.rigid = false;
      plant.k_e = stiffness;
    }
    const double bound = forceGainBound(p, law(ForceLawKind::kP, 1.0), ForceGain::kKp, 1e4);
    ASSERT_TRUE(std::isfinite(bound)) << stiffness;
    RecordProperty("p_bound_ke_" + std::to_string(static_cast<int>(stiffness)), std::to_string(bound));
    EXPECT_LT(growth(plant, law(ForceLawKind::kP, 0.97 * bound), dt), 1.0) << stiffness;
    EXPECT_GT(growth(plant, law(ForceLawKind::kP, 1.03 * bound), dt), 1.0) << stiffness;
  }
}

TEST(ForceLoop, AVerdictNamesTheGainAndTheBoundOrIsEmpty) {
  ForceLoopPlant p = wristOnAWall();
  const double bound = forceGainBound(p, law(ForceLawKind::kP, 1.0), ForceGain::kKp, 1e4);
  EXPECT_EQ(forceLawVerdict(p, law(ForceLawKind::kP, 0.5 * bound), 1.5), "");
  const std::string close = forceLawVerdict(p, law(ForceLawKind::kP, 0.9 * bound), 1.5);
  EXPECT_NE(close.find("within the gain margin"), std::string::npos) << close;
  const std::string over = forceLawVerdict(p, law(ForceLawKind::kP, 2.0 * bound), 1.0);
  EXPECT_NE(over.find("is unstable at 1 kHz: K_p must be below"), std::string::npos) << over;
}

}  // namespace
}  // namespace rfms
