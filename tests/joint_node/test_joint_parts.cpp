// The joint core's parts on their own: the encoder and calibration, the interpolation between
// updates, and the servo.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "joint_node/joint_calibration.hpp"
#include "joint_node/joint_core.hpp"
#include "joint_node/joint_servo.hpp"
#include "joint_node/setpoint_interpolation.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr int kJoint = 2;

JointServoConfig config() {
  JointServoConfig c;
  c.joint = kJoint;
  c.dt = 1e-3;
  c.kp = 100.0;
  c.kd = 5.0;
  c.ki = 20.0;
  c.integral_limit = 1.0;
  c.park_angle = 0.3;
  c.calib_speed = 0.1;
  c.calib_range = 0.002;  // 20 periods' search each way
  return c;
}

proto::ArmSensors sensors(std::int64_t count, bool index = false, std::int64_t index_count = 0) {
  proto::ArmSensors s;
  for (int i = 0; i < kJoints; ++i) {
    s.add_encoder(i == kJoint - 1 ? count : 0);
    s.add_index(i == kJoint - 1 && index);
    s.add_index_count(i == kJoint - 1 ? index_count : 0);
  }
  return s;
}

TEST(JointCalibration, CountsAreRelativeToTheParkAngleUntilTheIndexMakesThemAbsolute) {
  const JointModel& joint = test::puma260().joints[kJoint - 1];
  const JointServoConfig c = config();
  const double res = 2.0 * std::numbers::pi / joint.counts_per_rev;
  JointCalibration cal(joint, c);
  EXPECT_FALSE(cal.read(sensors(100, true, 100), false).found) << "a pulse outside CALIB is not the index";
  EXPECT_DOUBLE_EQ(cal.angle(), 0.3 + 100 * res);
  const JointCalibration::Pulse p = cal.read(sensors(120, true, 110), true);
  ASSERT_TRUE(p.found);
  EXPECT_DOUBLE_EQ(p.angle, joint.index_angle + 10 * res);
  EXPECT_DOUBLE_EQ(p.shift, (joint.index_angle + 10 * res) - (0.3 + 120 * res));
  EXPECT_DOUBLE_EQ(cal.angle(), p.angle);
  EXPECT_TRUE(cal.calibrated());
  EXPECT_FALSE(cal.done()) << "it still has to go back where the search began";
}

// A realtime joint may skip the one sensor mail that carried the pulse; the latched count changes.
TEST(JointCalibration, AChangedLatchedCountIsAPulseToo) {
  const JointModel& joint = test::puma260().joints[kJoint - 1];
  const JointServoConfig c = config();
  JointCalibration cal(joint, c);
  EXPECT_FALSE(cal.read(sensors(5, false, 0), true).found);
  EXPECT_TRUE(cal.read(sensors(9, false, 7), true).found);
}

TEST(JointCalibration, TheSearchGoesOneWayThenTheOtherThenGivesUp) {
  const JointServoConfig c = config();
  JointCalibration cal(test::puma260().joints[kJoint - 1], c);
  cal.read(sensors(0), true);
  double target = 0.0;
  const double step = c.calib_speed * c.dt;
  EXPECT_TRUE(cal.search(target));
  EXPECT_DOUBLE_EQ(target, 0.3 + step) << "from where the joint stands";
  int periods = 1;
  while (cal.search(target) && periods < 1000) ++periods;
  EXPECT_TRUE(cal.failed());
  // Out to the range one way, back through the start and out to it the other way.
  EXPECT_NEAR(periods, 3 * c.calib_range / step, 3);
}

TEST(JointCalibration, OnceFoundTheJointGoesBackWhereTheSearchBegan) {
  const JointModel& joint = test::puma260().joints[kJoint - 1];
  const JointServoConfig c = config();
  const double res = 2.0 * std::numbers::pi / joint.counts_per_rev;
  JointCalibration cal(joint, c);
  cal.read(sensors(0), true);
  double target = 0.0;
  cal.search(target);  // the search starts at count 0
  const JointCalibration::Pulse p = cal.read(sensors(1, true, 1), true);
  target = p.angle;
  const double home = joint.index_angle + (0 - 1) * res;  // count 0, now absolute
  for (int n = 0; n < 1000 && cal.search(target); ++n) {
  }
  EXPECT_DOUBLE_EQ(target, home);
  EXPECT_TRUE(cal.done());
}

TEST(SetpointInterpolation, LinearBetweenUpdatesWithTheUpdatesFiniteDifferences) {
  SetpointInterpolator path(1e-3, 0.0);
  path.start(1.0);
  path.next(1.4, 4);  // 0.4 rad in 4 ms
  EXPECT_DOUBLE_EQ(path.velocity(), 100.0);
  EXPECT_DOUBLE_EQ(path.acceleration(), 100.0 / 4e-3);
  for (int phase = 0; phase <= 3; ++phase) EXPECT_DOUBLE_EQ(path.advance(), 1.0 + 0.4 * phase / 4) << phase;
  EXPECT_DOUBLE_EQ(path.advance(), 1.4) << "at the update, and there it stays";
  EXPECT_DOUBLE_EQ(path.advance(), 1.4);
  path.next(1.8, 4);
  EXPECT_NEAR(path.acceleration(), 0.0, 1e-6) << "the same velocity";
  path.still();
  EXPECT_DOUBLE_EQ(path.velocity(), 0.0);
}

TEST(SetpointInterpolation, ARestartIsAStepNotAPathAndAShiftMovesBothEnds) {
  SetpointInterpolator path(1e-3, 0.0);
  path.start(0.5);
  path.restart(0.9, 3);
  EXPECT_DOUBLE_EQ(path.velocity(), 0.0);
  EXPECT_DOUBLE_EQ(path.advance(), 0.9);
  path.shift(-0.1);
  EXPECT_DOUBLE_EQ(path.advance(), 0.8);
}

proto::SMail mail(proto::RtState state) {
  proto::SMail s;
  s.set_rtstate(state);
  for (int i = 0; i < kJoints; ++i) {
    s.add_desired_acceleration(0.0);
    s.add_servo_error(0.0);
  }
  return s;
}

TEST(JointServo, PidOnTheAngleWithoutAParcel) {
  const JointServoConfig c = config();
  JointServo servo(test::puma260().joints[kJoint - 1], c);
  JointServo::State now;
  now.angle = 0.10;
  now.velocity = 0.2;
  now.setpoint = 0.11;
  now.desired_velocity = 0.5;
  const JointServo::Output o = servo.run(mail(proto::RT_HOLD), proto::RT_HOLD, true, now);
  EXPECT_NEAR(o.error, 0.01, 1e-15);
  EXPECT_NEAR(o.tau, 100.0 * 0.01 + 5.0 * 0.3 + 20.0 * 0.01 * 1e-3, 1e-12);
  EXPECT_EQ(servo.run(mail(proto::RT_HOLD), proto::RT_HOLD, false, now).limited, 0.0) << "unpowered: no torque";
}

TEST(JointServo, TheLimitIsHeldAndTimedAndFreeServoesGravityOnly) {
  const JointModel& joint = test::puma260().joints[kJoint - 1];
  const JointServoConfig c = config();
  JointServo servo(joint, c);
  JointServo::State far;
  far.setpoint = 10.0;  // far beyond what the limit allows
  for (int n = 0; n < 5; ++n)
    EXPECT_DOUBLE_EQ(servo.run(mail(proto::RT_HOLD), proto::RT_HOLD, true, far).limited, joint.tau_max);
  EXPECT_NEAR(servo.saturatedFor(), 5e-3, 1e-15);
  JointServo::State near;
  servo.run(mail(proto::RT_HOLD), proto::RT_HOLD, true, near);
  EXPECT_EQ(servo.saturatedFor(), 0.0);

  proto::SMail s = mail(proto::RT_FREE);
  proto::Parcel& p = *s.mutable_parcel();
  p.set_joint(kJoint);
  for (int i = 0; i < kJoints; ++i) {
    p.add_inertia_row(0.0);
    p.add_compliance_row(0.0);
    p.add_jacobian_column(0.0);
  }
  p.set_gravity_torque(2.5);
  servo.take(s);
  EXPECT_DOUBLE_EQ(servo.run(s, proto::RT_FREE, true, far).tau, 2.5) << "FREE: gravity alone, whatever the error";
}

// Under compliance the servoed error is the PARCEL's row of 1 - P times the joints' errors; under
// force control the joint adds its Jacobian column times the force command.
TEST(JointServo, ComplianceServoesItsRowOfTheErrorsAndForceAddsTheJointsShare) {
  const JointServoConfig c = config();
  JointServo servo(test::puma260().joints[kJoint - 1], c);
  proto::SMail s = mail(proto::RT_SETP);
  proto::Parcel& p = *s.mutable_parcel();
  p.set_joint(kJoint);
  for (int i = 0; i < kJoints; ++i) {
    p.add_inertia_row(0.0);
    p.add_compliance_row(i == 0 ? 0.5 : 0.0);  // joint 1's error, halved, is what joint 2 servoes
    p.add_jacobian_column(i == 2 ? 0.1 : 0.0);
    s.set_servo_error(i, i == 0 ? 0.04 : 0.0);
  }
  servo.take(s);
  s.set_compliance(0x4);
  JointServo::State now;
  now.setpoint = 0.02;  // its own error, which the compliance row leaves out
  JointServo::Output o = servo.run(s, proto::RT_SETP, true, now);
  EXPECT_NEAR(o.kept, 0.02, 1e-15);
  s.set_compliance(0);
  for (int i = 0; i < 6; ++i) s.add_force_command(i == 2 ? 30.0 : 0.0);
  servo.resetIntegral();
  const double without = servo.run(mail(proto::RT_SETP), proto::RT_SETP, true, now).tau;
  servo.resetIntegral();
  o = servo.run(s, proto::RT_SETP, true, now);
  EXPECT_NEAR(o.tau - without, 3.0, 1e-9) << "0.1 times 30 N";
}

}  // namespace
}  // namespace rfms
