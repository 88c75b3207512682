#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "joint_node/joint_core.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

const RobotModel& model() { return test::puma260(); }

class JointTest : public ::testing::Test {
 protected:
  void make(int joint) {
    config_ = defaultServoConfig(model(), joint, JointVec::Zero(), 1e-3);
    core_ = std::make_unique<JointCore>(model(), config_);
    resolution_ = 2 * std::numbers::pi / model().joints[joint - 1].counts_per_rev;
    sensors_.mutable_encoder()->Resize(kJoints, 0);
    sensors_.mutable_index()->Resize(kJoints, false);
    sensors_.mutable_index_count()->Resize(kJoints, 0);
  }
  void step(proto::RtState state) {
    smail_.set_rtstate(state);
    smail_.set_power(state != proto::RT_IDLE && state != proto::RT_EMGCY);
    smail_.mutable_header()->set_period(k_);
    core_->step({smail_, sensors_}, out_);
    ++k_;
  }
  void setCount(int joint, std::int64_t count) { sensors_.mutable_encoder()->Set(joint - 1, count); }

  JointServoConfig config_;
  std::unique_ptr<JointCore> core_;
  double resolution_ = 0.0;
  proto::SMail smail_;
  proto::ArmSensors sensors_;
  JointOutbox out_;
  const proto::JMail& jmail_ = out_.jmail;
  const proto::TorqueCommand& torque_ = out_.torque;
  std::uint64_t k_ = 0;
};

TEST_F(JointTest, IdleMeansNoPowerAndTheAssumedAngle) {
  make(2);
  setCount(2, 1000);
  step(proto::RT_IDLE);
  EXPECT_FALSE(torque_.power());
  EXPECT_EQ(torque_.torque(), 0.0);
  EXPECT_FALSE(jmail_.calibrated());
  EXPECT_NEAR(jmail_.angle(), config_.park_angle + 1000 * resolution_, 1e-15);
}

// A realtime joint reads the latest sensor mail and may skip the one whose flag marked the index
// pulse; the count the arm latched at the pulse stays, and is enough (`flag` false: never seen).
class Calibration : public JointTest, public ::testing::WithParamInterface<bool> {};

TEST_P(Calibration, MakesAnglesAbsoluteAndReturnsToTheStart) {
  const bool flag = GetParam();
  make(3);
  const JointModel& j = model().joints[2];
  setCount(3, 0);
  // The encoder follows the servo's setpoint exactly; the index comes 200 counts in.
  bool indexed = false;
  for (int n = 0; n < 50000 && !jmail_.calibrated(); ++n) {
    step(proto::RT_CALIB);
    ASSERT_EQ(jmail_.faults(), 0u);
    const bool at_index = sensors_.encoder(2) >= 200 && !indexed;
    sensors_.mutable_index()->Set(2, flag && at_index);
    if (at_index) sensors_.mutable_index_count()->Set(2, 200);
    // The servo's setpoint is in the joint's own angles: before the index, park + counts; after
    // it (the joint reads the pulse in the next period), absolute.
    const double offset = indexed ? j.index_angle - 200 * resolution_ : config_.park_angle;
    indexed = indexed || at_index;
    setCount(3, static_cast<std::int64_t>(std::llround((jmail_.servo_setpoint() - offset) / resolution_)));
  }
  ASSERT_TRUE(jmail_.calibrated());
  // The index count now reads the model's index angle, and the joint is back at count 0 (where it
  // started), which is now known to be index_angle - 200 counts.
  EXPECT_NEAR(jmail_.angle(), j.index_angle - 200 * resolution_, 2 * resolution_);
  EXPECT_NEAR(std::abs(static_cast<double>(sensors_.encoder(2))), 0.0, 2.0);
}

INSTANTIATE_TEST_SUITE_P(IndexFlag, Calibration, ::testing::Bool(),
                         [](const auto& i) { return i.param ? "Seen" : "Skipped"; });

TEST_F(JointTest, CalibrationFailsWhenNoIndexComes) {
  make(1);
  for (int n = 0; n < 20000 && jmail_.faults() == 0; ++n) {
    step(proto::RT_CALIB);
    setCount(1, static_cast<std::int64_t>(std::llround((jmail_.servo_setpoint() - config_.park_angle) / resolution_)));
  }
  EXPECT_EQ(jmail_.faults(), static_cast<std::uint32_t>(proto::JF_CALIBRATION));
}

TEST_F(JointTest, EveryJointSolvesItsOwnAngleFromT6AndThePreviousSines) {
  const OpwIk ik(model());
  const JointVec q = (JointVec() << 0.1, -0.3, 0.4, 0.2, -0.6, 0.3).finished();
  for (bool serial : {false, true}) {
    for (int joint = 1; joint <= kJoints; ++joint) {
      make(joint);
      smail_ = proto::SMail();
      encode(forwardKinematics(model(), q), *smail_.mutable_t6());
      encode(ik.configOf(q), *smail_.mutable_config());
      JointVec sines;
      std::uint32_t signs = 0;
      for (int i = 0; i < kJoints; ++i) {
        sines[i] = std::sin(q[i]);
        if (std::cos(q[i]) < 0) signs |= 1u << i;
      }
      encode(sines, smail_.mutable_setpoint_sin());
      smail_.set_setpoint_cos_signs(signs);
      smail_.set_new_setpoint(true);
      smail_.set_update_periods(1);
      smail_.set_serial_ik(serial);
      step(proto::RT_SETP);
      EXPECT_NEAR(jmail_.setpoint(), q[joint - 1], 1e-9) << "joint " << joint << (serial ? " serial" : " PIK");
      EXPECT_EQ(jmail_.ik_status(), 0);
    }
  }
}

// A compliant move ends with its setpoint moved onto the arm in one step (supervisor/trajectory.hpp).
// The other joints' setpoints in that S_MAIL are still from before the step, and extrapolating from
// them adds the step again: only the restart flag's exact solve lands on the new pose, at rest.
TEST_F(JointTest, ASetpointRestartIsSolvedExactlyAndNotExtrapolatedAcross) {
  const OpwIk ik(model());
  const JointVec path = (JointVec() << 0.3, -0.5, 0.6, 0.2, -0.7, 0.3).finished();
  const JointVec rate = (JointVec() << 2e-4, -3e-4, 4e-4, 1e-4, 2e-4, -1e-4).finished();  // rad a period
  const JointVec step_to = path + 30.0 * rate + (JointVec() << 0.0, 0.04, -0.06, 0.0, 0.03, 0.0).finished();
  for (bool restart : {false, true}) {
    for (int joint = 1; joint <= kJoints; ++joint) {
      make(joint);
      ASSERT_TRUE(config_.pik == PikScheme::kDecoupledExtrapolated);  // the default extrapolates
      smail_ = proto::SMail();
      smail_.set_update_periods(1);
      smail_.set_new_setpoint(true);
      const auto send = [&](const JointVec& target, const JointVec& known, bool restarts) {
        encode(forwardKinematics(model(), target), *smail_.mutable_t6());
        encode(ik.configOf(target), *smail_.mutable_config());
        encodeSetpoints(known, smail_);
        smail_.set_setpoint_restart(restarts);
        step(proto::RT_SETP);
      };
      // Along a path: the others' setpoints of the period before, as the supervisor sends them.
      for (int n = 1; n <= 30; ++n) send(path + n * rate, path + (n - 1) * rate, false);
      ASSERT_NEAR(jmail_.setpoint(), path[joint - 1] + 30 * rate[joint - 1], 1e-6) << "joint " << joint;
      // The step, then the same pose held with everyone's answers to it.
      send(step_to, path + 30 * rate, restart);
      const double at_step = jmail_.setpoint(), velocity = jmail_.desired_velocity();
      send(step_to, step_to, false);
      const double after = jmail_.setpoint();
      if (restart) {
        EXPECT_NEAR(at_step, step_to[joint - 1], 1e-9) << "joint " << joint;
        EXPECT_EQ(velocity, 0.0) << "joint " << joint;
        EXPECT_NEAR(after, step_to[joint - 1], 1e-9) << "joint " << joint;
      } else if (joint >= 4) {
        // Joints 1 to 3 place the wrist's centre from joint 1 alone, which did not step; the
        // wrist's joints need the arm's three and miss, at the step or after it.
        EXPECT_GT(std::max(std::abs(at_step - step_to[joint - 1]), std::abs(after - step_to[joint - 1])), 1e-3)
            << "joint " << joint;
      }
    }
  }
}

TEST_F(JointTest, JogMovesFourCountsAPeriod) {
  make(4);
  step(proto::RT_HOLD);
  const double start = jmail_.servo_setpoint();
  smail_.set_jog_joint(4);
  smail_.set_jog_direction(-1);
  smail_.set_jog_counts(4);  // the supervisor says how far each period
  for (int n = 0; n < 10; ++n) step(proto::RT_MANU);
  EXPECT_NEAR(jmail_.servo_setpoint() - start, -10 * 4 * resolution_, 1e-12);
  smail_.set_jog_joint(5);  // someone else's jog
  step(proto::RT_MANU);
  EXPECT_NEAR(jmail_.servo_setpoint() - start, -10 * 4 * resolution_, 1e-12);
}

TEST_F(JointTest, HoldServoesTowardsTheTargetAndReportsFollowingError) {
  make(2);
  step(proto::RT_HOLD);
  // The arm is pushed 0.05 rad below the target: the servo pushes back.
  setCount(2, static_cast<std::int64_t>(-0.05 / resolution_));
  step(proto::RT_HOLD);
  EXPECT_GT(torque_.torque(), 0.0);
  EXPECT_NEAR(jmail_.servo_error(), 0.05, 1e-4);
  EXPECT_EQ(jmail_.faults() & proto::JF_FOLLOWING, 0u);
  setCount(2, static_cast<std::int64_t>(-0.2 / resolution_));
  step(proto::RT_HOLD);
  EXPECT_NE(jmail_.faults() & proto::JF_FOLLOWING, 0u);
  EXPECT_EQ(jmail_.faults() & proto::JF_SATURATION, 0u);  // not yet: saturation needs time
}

// The supervisor checks every setpoint it sends; a joint that still cannot solve its angle (its
// own PIK, from the others' previous angles) says so instead of servoing to a guess. Here the
// set point's wrist centre lies inside the shoulder's offset, out of every joint's reach.
TEST_F(JointTest, ASetpointItCannotSolveIsAnIkFault) {
  make(1);
  step(proto::RT_HOLD);
  Transform t = forwardKinematics(model(), JointVec::Zero());
  t.translation().x() = 0.0;
  t.translation().y() = 0.0;
  encode(t, *smail_.mutable_t6());
  encode(OpwIk(model()).configOf(JointVec::Zero()), *smail_.mutable_config());
  smail_.set_new_setpoint(true);
  smail_.set_update_periods(1);
  step(proto::RT_SETP);
  EXPECT_NE(jmail_.ik_status(), 0);
  EXPECT_NE(jmail_.faults() & proto::JF_IK, 0u);
}

TEST_F(JointTest, SaturationTimeIsAFault) {
  make(2);
  step(proto::RT_HOLD);
  setCount(2, static_cast<std::int64_t>(-0.2 / resolution_));  // far enough to saturate
  int periods = 0;
  while ((jmail_.faults() & proto::JF_SATURATION) == 0 && periods < 1000) {
    step(proto::RT_HOLD);
    ++periods;
    EXPECT_LE(std::abs(torque_.torque()), model().joints[1].tau_max);
  }
  EXPECT_NEAR(periods * 1e-3, config_.saturation_time_limit, 2e-3);
}

}  // namespace
}  // namespace rfms
