#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "supervisor/period_force.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

const JointVec kPose = (JointVec() << 0.2, -0.6, 0.9, 0.1, 0.5, -0.3).finished();

proto::ArmSensors reading(const Vec6& w, std::uint32_t saturated = 0) {
  proto::ArmSensors s;
  for (int i = 0; i < 6; ++i) s.add_wrench(w[i]);
  s.set_wrench_saturated(saturated);
  return s;
}

// A weightless tool at the flange: the contact is the reading itself, turned into base axes.
SupervisorConfig bareFlange() {
  SupervisorConfig c;
  c.max_force = 60.0;
  c.max_moment = 4.0;
  return c;
}

TEST(PeriodForce, WithoutASensorNothingIsMeasuredAndNothingTrips) {
  const SupervisorConfig config = bareFlange();
  PeriodForce force(test::puma260(), config);
  force.read(nullptr);
  force.estimateContact(kPose);
  EXPECT_FALSE(force.sensesForce());
  EXPECT_TRUE(force.contact().isZero());
  EXPECT_FALSE(force.overLimits());
  EXPECT_FALSE(force.guardMet(0.5));
}

TEST(PeriodForce, TheContactIsTheReadingInBaseAxesAndTheLimitsAreJudgedOnIt) {
  const SupervisorConfig config = bareFlange();
  PeriodForce force(test::puma260(), config);
  const proto::ArmSensors five = reading((Vec6() << 3, 0, 4, 0, 0, 0).finished());
  force.read(&five);
  force.estimateContact(kPose);
  ASSERT_TRUE(force.sensesForce());
  EXPECT_NEAR(force.contact().head<3>().norm(), 5.0, 1e-9);
  EXPECT_FALSE(force.overLimits());
  EXPECT_TRUE(force.guardMet(5.0)) << "a guard trips at its force";
  EXPECT_FALSE(force.guardMet(5.1));
  EXPECT_FALSE(force.guardMet(0.0)) << "no guard";

  const proto::ArmSensors hard = reading((Vec6() << 0, 61, 0, 0, 0, 0).finished());
  force.read(&hard);
  force.estimateContact(kPose);
  EXPECT_TRUE(force.overLimits()) << "61 N against a 60 N limit";
  const proto::ArmSensors twist = reading((Vec6() << 0, 0, 0, 0, 4.5, 0).finished());
  force.read(&twist);
  force.estimateContact(kPose);
  EXPECT_TRUE(force.overLimits()) << "4.5 N m against a 4 N m limit";
  const proto::ArmSensors saturated = reading(Vec6::Zero(), 0x4);
  force.read(&saturated);
  force.estimateContact(kPose);
  EXPECT_TRUE(force.overLimits()) << "a saturated channel says nothing of the force: it stops the arm";
}

TEST(PeriodForce, WithoutAForcedMotionTheCommandIsClearedAndNoFiguresAreKept) {
  const SupervisorConfig config = bareFlange();
  PeriodForce force(test::puma260(), config);
  proto::SMail s;
  s.add_force_command(1.0);
  force.command(nullptr, 3, forwardKinematics(test::puma260(), kPose), kPose, JointVec::Zero(), s);
  EXPECT_EQ(s.force_command_size(), 0);
  EXPECT_FALSE(force.figures(3, kPose));
}

// A.1's Eq. 15 through the default lag, a 5 Hz low pass: the flange moves back by K1 of the
// measured deflection, dt / (T_lag + dt) of the way each period (the backward difference), and not
// along the compliant axes.
TEST(PeriodForce, CompensationMovesTheFlangeBackAgainstTheDeflectionThroughALowPass) {
  SupervisorConfig config = bareFlange();
  config.wrist.emplace();  // the deflection is read only with a wrist in the scene
  const RobotModel& model = test::puma260();
  PeriodForce force(model, config);
  const Transform t6 = forwardKinematics(model, kPose);
  const CompensatorGains none{.t_lag = kDefaultCompensatorLagS}, half{.k1 = 0.5, .t_lag = kDefaultCompensatorLagS};
  EXPECT_TRUE(force.compensated(t6, none, 1, 0, kPose).isApprox(t6)) << "no K1, nothing to undo";

  proto::ArmSensors s;
  for (double d : {0.002, -0.001, 0.003, 0.0, 0.0, 0.0}) s.add_deflection(d);
  force.read(&s);
  const Vec3 back = -0.5 * (t6.linear() * Vec3(0.002, -0.001, 0.003));
  const double a = config.dt / (kDefaultCompensatorLagS + config.dt);
  const Transform once = force.compensated(t6, half, 2, 0, kPose);
  EXPECT_TRUE((once.translation() - t6.translation()).isApprox(a * back, 1e-12));
  Transform later = once;
  for (int n = 0; n < 2000; ++n) later = force.compensated(t6, half, 2, 0, kPose);
  EXPECT_TRUE((later.translation() - t6.translation()).isApprox(back, 1e-9)) << "settles at K1 of the deflection";

  // The next move, without compensation, starts from the offset and lets it decay through the lag.
  const Transform next = force.compensated(t6, none, 3, 0, kPose);
  EXPECT_TRUE((next.translation() - t6.translation()).isApprox((1.0 - a) * back, 1e-9));

  force.resetCompensation();
  const Transform z_free = force.compensated(t6, half, 4, 0x4, kPose);  // z compliant: left to the arm
  EXPECT_NEAR(z_free.translation().z() - t6.translation().z(), 0.0, 1e-15);
  EXPECT_NEAR(z_free.translation().x() - t6.translation().x(), a * back.x(), 1e-12);
}

// Eq. 15's rate term and H = 1/G_c's acceleration term act on the deflection as read, period by
// period: a deflection growing along x at 10 mm/s moves the flange back by K1 d + K2 d'.
TEST(PeriodForce, TheRateTermActsOnTheDeflectionsRate) {
  SupervisorConfig config = bareFlange();
  config.wrist.emplace();
  const RobotModel& model = test::puma260();
  PeriodForce force(model, config);
  const Transform t6 = forwardKinematics(model, kPose);
  const CompensatorGains pd{.k1 = 1.0, .k2 = 0.004};  // no lag
  Transform t = t6;
  double d = 0.0;
  for (int k = 0; k < 10; ++k) {
    d = 0.001 + 1e-5 * k;
    proto::ArmSensors s;
    for (double v : {d, 0.0, 0.0, 0.0, 0.0, 0.0}) s.add_deflection(v);
    force.read(&s);
    t = force.compensated(t6, pd, 1, 0, kPose);
  }
  const Vec3 expected = -(t6.linear() * Vec3(d + 0.004 * 0.01, 0.0, 0.0));
  EXPECT_TRUE((t.translation() - t6.translation()).isApprox(expected, 1e-12))
      << (t.translation() - t6.translation()).transpose() << " against " << expected.transpose();
}

// The compensation watch, on the offset of K1 = 1 without a lag (the offset is the deflection): a
// small cycle that lasts stops the move (a loop just past its bound, held by the arm's
// nonlinearity), the same cycle below kCompensationCycleM does not, and neither does a tool
// swinging on its springs at the wrist's resonance and settling.
TEST(PeriodForce, TheCompensationWatchStopsASmallCycleThatLastsAndNotASettlingSwing) {
  SupervisorConfig config = bareFlange();
  config.wrist.emplace();
  const RobotModel& model = test::puma260();
  const Transform t6 = forwardKinematics(model, kPose);
  // Periods until the watch stops a deflection d(t) along x (0: not within 2 s).
  const auto stoppedAfter = [&](const auto& deflection) {
    PeriodForce force(model, config);
    for (int k = 0; k < 2000; ++k) {
      proto::ArmSensors s;
      for (double v : {deflection(k * config.dt), 0.0, 0.0, 0.0, 0.0, 0.0}) s.add_deflection(v);
      force.read(&s);
      force.compensated(t6, {.k1 = 1.0}, 1, 0, kPose);
      if (force.loopFault() != proto::ER_NONE) {
        EXPECT_EQ(force.loopFault(), proto::ER_COMPENSATION_OSCILLATION);
        return k;
      }
    }
    return 0;
  };
  const auto cycle = [](double amplitude, double hz) {
    return [=](double t) { return 0.002 + amplitude * std::sin(2.0 * std::numbers::pi * hz * t); };
  };
  const double small = PeriodForce::kCompensationCycleM;
  const int stopped = stoppedAfter(cycle(2.0 * small, 60.0));
  EXPECT_GT(stopped, 0) << "a 60 Hz cycle of twice the threshold, for 2 s";
  EXPECT_LT(stopped, 1000) << "48 half-swings at 60 Hz take 0.4 s";
  EXPECT_EQ(stoppedAfter(cycle(0.5 * small, 60.0)), 0) << "half the threshold";
  // A 2 mm swing at 10 Hz, damping ratio 0.1: 20 half-swings a second at most, and under 0.3 mm
  // within a few of them.
  const double w = 2.0 * std::numbers::pi * 10.0;
  EXPECT_EQ(stoppedAfter([&](double t) { return 0.002 + 0.002 * std::exp(-0.1 * w * t) * std::cos(w * t); }), 0);
}

}  // namespace
}  // namespace rfms
