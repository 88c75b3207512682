// The force loop's monitor (supervisor/force_monitor.hpp) on made-up force series: what a settling
// contact does never stops a move; what an unstable loop, a tool pulled off, a force the wrong way
// and a tool that meets nothing do, each does, with its own reason and soon.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "supervisor/force_monitor.hpp"

namespace rfms {
namespace {

constexpr double kDt = 1e-3;

// Runs `periods` of force (N, the tool pushing down along base z with a 10 N setpoint) and height
// (m) given by the period; the period the monitor stopped the move in, and why (-1, ER_NONE: never).
struct Stop {
  int period = -1;
  proto::EmergencyReason why = proto::ER_NONE;
};
// The drive (N the law commands down) is the setpoint unless given.
// The law settles to all of the setpoint unless `settles` says otherwise.
Stop run(
    int periods, const std::function<double(int)>& force, const std::function<double(int)>& height,
    const std::function<double(int)>& drive = [](int) { return 10.0; }, double settles = 1.0) {
  ForceMonitor m(kDt, 60.0);
  m.begin(Vec3(0, 0, -10), Vec3(0, 0, height(0)), settles);
  for (int k = 0; k < periods; ++k)
    if (const proto::EmergencyReason why =
            m.update(Vec3(0, 0, -force(k)), Vec3(0, 0, height(k)), Vec3(0, 0, -drive(k)));
        why != proto::ER_NONE)
      return {k, why};
  return {};
}
double still(int) { return -0.195; }

TEST(ForceMonitor, AContactThatSettlesEvenRingingIsLeftAlone) {
  // A step to 10 N that rings at 60 Hz, damped as lightly as the paper's P law on the wrist
  // (zeta 0.05), and 0.05 N of noise-like wobble.
  const double w = 2.0 * std::numbers::pi * 60.0, zeta = 0.05;
  auto ring = [&](int k) {
    const double t = k * kDt;
    return 10.0 - 10.0 * std::exp(-zeta * w * t) * std::cos(w * t) + 0.05 * std::sin(1.3 * k);
  };
  EXPECT_EQ(run(3000, ring, still).why, proto::ER_NONE);
  // Coming down through 30 mm of air, then touching and settling.
  auto height = [](int k) { return -0.165 - 0.03 * std::min(1.0, k / 600.0); };
  auto touch = [](int k) { return k < 600 ? 0.0 : 10.0 * (1.0 - std::exp(-(k - 600) / 20.0)); };
  EXPECT_EQ(run(2000, touch, height).why, proto::ER_NONE);
}

TEST(ForceMonitor, AGrowingOscillationStopsTheMoveWithinAFewSwings) {
  // Period-2 (the stiff sensor's Nyquist mode), growing by 20 % a period from 0.1 N.
  auto nyquist = [](int k) { return 8.0 + 0.1 * std::pow(1.2, k) * (k % 2 ? 1 : -1); };
  const Stop s = run(1000, nyquist, still);
  EXPECT_EQ(s.why, proto::ER_FORCE_OSCILLATION);
  EXPECT_LT(s.period, 40);
  // 15 Hz, 3 N about 10 N, steady: swings of a loop that hunts.
  auto hunt = [](int k) { return 10.0 + 3.0 * std::sin(2.0 * std::numbers::pi * 15.0 * k * kDt); };
  const Stop h = run(1000, hunt, still);
  EXPECT_EQ(h.why, proto::ER_FORCE_OSCILLATION);
  EXPECT_LT(h.period, 350);
}

TEST(ForceMonitor, ForceTheWrongWayStopsTheMoveAfterTwentyMilliseconds) {
  const Stop s = run(
      1000, [](int) { return -5.0; }, still);
  EXPECT_EQ(s.why, proto::ER_FORCE_WRONG_SIGN);
  EXPECT_EQ(s.period, 20);
  // A bounce the wrong way shorter than that is not.
  EXPECT_EQ(run(
                1000, [](int k) { return k < 10 ? -5.0 : 10.0; }, still)
                .why,
            proto::ER_NONE);
}

TEST(ForceMonitor, LeavingTheSurfaceAgainstTheSetpointIsLostContact) {
  // In contact for 100 periods, then off it and rising at 50 mm/s.
  auto force = [](int k) { return k < 100 ? 10.0 : 0.0; };
  auto height = [](int k) { return -0.195 + (k < 100 ? 0.0 : 0.05 * (k - 100) * kDt); };
  const Stop s = run(2000, force, height);
  EXPECT_EQ(s.why, proto::ER_FORCE_LOST_CONTACT);
  EXPECT_NEAR(s.period, 100 + 201, 2);  // 10 mm up
}

TEST(ForceMonitor, GoingOnWithoutMeetingASurfaceIsARunaway) {
  auto height = [](int k) { return -0.15 - 0.05 * k * kDt; };  // down at 50 mm/s through air
  const Stop s = run(
      3000, [](int) { return 0.0; }, height);
  EXPECT_EQ(s.why, proto::ER_FORCE_RUNAWAY);
  EXPECT_NEAR(s.period, 1001, 2);  // 50 mm on
}

// Issue 57: `force z -10 force x 5` on the tilted table. Along x the tool pushed on friction alone
// (3 N of it, under 10 N down), which reads as contact; the law wound up and the tool slid 162 mm
// in 1.1 s until a joint's IK failed. Going on along the setpoint without the force ever coming
// to what the law settles to is a runaway, contact or not.
TEST(ForceMonitor, SlidingOnFrictionThatNeverComesToTheSetpointIsARunaway) {
  auto sliding = [](int k) { return -0.15 - 0.5 * 0.05 * (k * kDt) * (k * kDt); };  // accelerating at 50 mm/s^2
  const Stop s = run(
      3000, [](int k) { return 3.0 + 0.05 * std::sin(1.3 * k); }, sliding);
  EXPECT_EQ(s.why, proto::ER_FORCE_RUNAWAY);
  EXPECT_NEAR(s.period, 1415, 2);  // 50 mm on: sqrt(2 * 0.05 / 0.05) s
}

// What a surface does is left alone however far the tool goes along the setpoint: a slope that
// the force rides down (held all the way, noise and all), and a P law that holds what it settles
// to, K_p / (1 + K_p) of the setpoint.
TEST(ForceMonitor, RidingDownASlopeWithTheForceHeldIsNoRunaway) {
  auto slope = [](int k) { return -0.15 - 0.02 * k * kDt; };  // 20 mm/s down for 5 s: 100 mm
  EXPECT_EQ(run(
                5000, [](int k) { return 10.0 + 0.3 * std::sin(1.3 * k); }, slope)
                .why,
            proto::ER_NONE);
  EXPECT_EQ(run(
                5000, [](int k) { return 5.0 + 0.3 * std::sin(1.3 * k); }, slope, [](int) { return 10.0; }, 0.5)
                .why,
            proto::ER_NONE);
}

// A P law so weak that it settles below a tenth of its setpoint is held once in contact, and
// still runs away through the air.
TEST(ForceMonitor, AWeakPLawStillRunsAwayThroughTheAir) {
  auto air = [](int k) { return -0.15 - 0.05 * k * kDt; };
  const Stop s = run(
      3000, [](int) { return 0.0; }, air, [](int) { return 10.0; }, 0.05);
  EXPECT_EQ(s.why, proto::ER_FORCE_RUNAWAY);
  EXPECT_NEAR(s.period, 1001, 2);
}

}  // namespace
}  // namespace rfms

namespace rfms {
namespace {

// Issue 57: on the compliant wrist a PD law past its bound swung the drive +-60 N at 265 Hz while
// the force read held 9.4 N, and the move "completed". The drive's sustained swings now stop it; a
// stable PD law's drive, noisy by its rate gain (within 10.5 N of its mean on the wrist), and a
// high-gain law's settling ring do not.
TEST(ForceMonitor, ALimitCycleOfTheDriveStopsTheMoveThoughTheForceReadHolds) {
  const double w = 2.0 * std::numbers::pi * 265.0;
  auto held = [](int k) { return 9.4 + 0.2 * std::sin(0.7 * k); };
  auto cycling = [&](int k) { return 60.0 * (std::sin(w * k * kDt) > 0 ? 1.0 : -1.0); };
  const Stop s = run(1000, held, still, cycling);
  EXPECT_EQ(s.why, proto::ER_FORCE_OSCILLATION);
  EXPECT_LT(s.period, 120);  // 48 half-swings of a 265 Hz cycle: 91 ms
  // A high-gain law's settling rings in its drive (the error times the gain): +-60 N at 100 Hz
  // decaying with a damping ratio of 0.02 is a transient, left alone.
  const double wr = 2.0 * std::numbers::pi * 100.0;
  auto ringing = [&](int k) { return 10.0 + 60.0 * std::exp(-0.02 * wr * k * kDt) * std::cos(wr * k * kDt); };
  EXPECT_EQ(run(3000, held, still, ringing).why, proto::ER_NONE);
  auto noisy = [](int k) { return 10.0 + 10.0 * std::sin(1.9 * k) * std::cos(0.37 * k); };
  EXPECT_EQ(run(3000, held, still, noisy).why, proto::ER_NONE);
}

}  // namespace
}  // namespace rfms
