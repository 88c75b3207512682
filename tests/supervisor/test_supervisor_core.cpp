// The supervisor core on its own, fed with hand-made mail: its state machine, watchdog, fault
// handling, request validation and the S_MAIL it composes.
#include <gtest/gtest.h>

#include <cmath>

#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "supervisor/supervisor.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

class SupervisorTest : public ::testing::Test {
 protected:
  SupervisorTest() {
    for (int i = 0; i < kJoints; ++i) {
      jmail_[i].set_joint(static_cast<std::uint32_t>(i + 1));
      jmail_[i].set_angle(q_[i]);
      jmail_[i].set_setpoint(q_[i]);
      jmail_[i].set_servo_setpoint(q_[i]);
    }
  }
  // One period with mail from every node that is not silenced. The arm's power follows the last
  // S_MAIL's, as the joints' requests carry it, unless the test cuts it.
  void step() {
    SupervisorInbox in;
    in.period = k_;
    sensors_.mutable_header()->set_period(k_);
    sensors_.set_powered(out_.smail.power() && missing_commands_ == 0 && arm_unpowered_for_ == 0);
    if (arm_unpowered_for_ > 0) --arm_unpowered_for_;
    sensors_.set_missing_commands(missing_commands_);
    if (!arm_silent_) in.arm = &sensors_;
    for (int i = 0; i < kJoints; ++i) {
      jmail_[i].mutable_header()->set_period(k_ == 0 ? 0 : k_ - 1);
      if (k_ > 0 && i != silent_joint_) in.joints[static_cast<std::size_t>(i)] = &jmail_[i];
    }
    parcel_.mutable_header()->set_period(k_ == 0 ? 0 : k_ - 1);
    if (k_ > 0) in.parcel = &parcel_;
    sup_.step(in, out_);
    for (int n = 0; n < out_.event_count; ++n) events_.push_back(out_.events[static_cast<std::size_t>(n)]);
    ++k_;
  }
  void calibrateAll(bool value) {
    for (auto& j : jmail_) j.set_calibrated(value);
  }
  void toHold() {
    step();
    ASSERT_TRUE(sup_.handle(test::controlRequest(proto::CC_CALIBRATE)).accepted());
    step();
    ASSERT_EQ(sup_.core().rtstate(), proto::RT_CALIB);
    calibrateAll(true);
    step();
    step();
    ASSERT_EQ(sup_.core().rtstate(), proto::RT_HOLD);
  }
  void defineHome(const Transform& t, const ArmConfig& config) {
    ASSERT_TRUE(sup_.handle(test::request(test::transformDef("t", t))).accepted());
    ASSERT_TRUE(sup_.handle(test::request(test::positionDef("p", config, {"T6"}, {"t"}))).accepted());
    ASSERT_TRUE(sup_.handle(test::request(test::motionDef("m", false, 1.0, 0.2))).accepted());
  }

  const RobotModel& model_ = test::puma260();
  SupervisorConfig config_{};
  Supervisor sup_{model_, config_};
  JointVec q_ = (JointVec() << 0.1, -0.3, 0.4, 0.2, -0.6, 0.3).finished();
  std::array<proto::JMail, kJoints> jmail_;
  proto::ArmSensors sensors_;
  proto::Parcel parcel_;
  SupervisorOutbox out_;
  std::vector<SupervisorEvent> events_;
  std::uint64_t k_ = 0;
  int silent_joint_ = -1;
  bool arm_silent_ = false;
  std::uint32_t missing_commands_ = 0;  // the arm's report: whose torque commands it went without
  int arm_unpowered_for_ = 0;           // periods the arm's power lags behind the request
};

TEST_F(SupervisorTest, PowersUpIdleCalibratesThenHolds) {
  step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_IDLE);
  EXPECT_FALSE(out_.smail.power());
  toHold();
  EXPECT_TRUE(out_.smail.power());
  EXPECT_EQ(out_.smail.rtstate(), proto::RT_HOLD);
}

TEST_F(SupervisorTest, SMailCarriesSinesAndCosineSignsOfTheSetpoints) {
  jmail_[2].set_setpoint(2.5);  // cos < 0
  step();
  step();
  ASSERT_EQ(out_.smail.setpoint_sin_size(), kJoints);
  EXPECT_DOUBLE_EQ(out_.smail.setpoint_sin(2), std::sin(2.5));
  EXPECT_EQ(out_.smail.setpoint_cos_signs(), 1u << 2);
  EXPECT_EQ(out_.mmail.parcel_joint(), static_cast<std::uint32_t>((k_ - 1) % 6) + 1);
}

TEST_F(SupervisorTest, WrongStateRequestsAreRefusedWithTheState) {
  step();
  const proto::TaskReply r = sup_.handle(test::moveRequest("p", "m"));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_WRONG_STATE) << r.reason();
  EXPECT_NE(r.reason().find("wrong state IDLE"), std::string::npos) << r.reason();
  EXPECT_EQ(sup_.handle(test::controlRequest(proto::CC_RESET)).code(), proto::RC_WRONG_STATE);
  EXPECT_EQ(sup_.handle(test::controlRequest(proto::CC_JOG, 7, 1)).code(), proto::RC_INVALID);
  EXPECT_EQ(sup_.handle(test::controlRequest(proto::CC_CALIBRATE)).code(), proto::RC_NONE);
}

// The background checks a request against the period's view with what it has handed the period
// since, and the period applies nothing until its next step begins.
TEST_F(SupervisorTest, TheBackgroundChecksAgainstWhatThePeriodHasNotTakenYet) {
  toHold();
  defineHome(forwardKinematics(model_, q_), OpwIk(model_).configOf(q_));
  SupervisorBackground& background = sup_.background();
  const auto handle = [&](const proto::TaskRequest& r) {
    const proto::TaskReply reply = background.handle(r);
    background.commit();
    return reply;
  };
  const proto::TaskReply first = handle(test::moveRequest("p", "m"));
  ASSERT_TRUE(first.accepted()) << first.reason();
  // Not applied yet: the period still holds, with nothing queued.
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_HOLD);
  EXPECT_EQ(sup_.core().trajectory().queued(), 0);
  // But the background counts the move in: the arm is going to SETP, and the move uses p.
  const proto::TaskReply hold = handle(test::controlRequest(proto::CC_HOLD));
  EXPECT_EQ(hold.code(), proto::RC_WRONG_STATE);
  EXPECT_NE(hold.reason().find("now SETP"), std::string::npos) << hold.reason();
  proto::TaskRequest forget;
  forget.mutable_forget()->set_kind(proto::Forget::FK_POSITION);
  forget.mutable_forget()->set_name("p");
  EXPECT_EQ(handle(forget).code(), proto::RC_NAME_IN_USE);
  const proto::TaskReply second = handle(test::moveRequest("p", "m"));
  ASSERT_TRUE(second.accepted()) << second.reason();
  EXPECT_EQ(second.move_id(), first.move_id() + 1);
  step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_SETP);
  EXPECT_EQ(sup_.core().trajectory().queued() + (sup_.core().trajectory().currentMove() != 0 ? 1 : 0), 2);
}

// A position or motion a queued or running move uses is kept until that move has ended.
TEST_F(SupervisorTest, ANameAMoveUsesIsForgottenOnlyOnceTheMoveHasEnded) {
  toHold();
  defineHome(forwardKinematics(model_, q_), OpwIk(model_).configOf(q_));
  ASSERT_TRUE(sup_.handle(test::moveRequest("p", "m")).accepted());
  proto::TaskRequest forget;
  forget.mutable_forget()->set_kind(proto::Forget::FK_POSITION);
  forget.mutable_forget()->set_name("p");
  const proto::TaskReply busy = sup_.handle(forget);
  EXPECT_FALSE(busy.accepted());
  EXPECT_EQ(busy.code(), proto::RC_NAME_IN_USE) << busy.reason();
  forget.mutable_forget()->set_kind(proto::Forget::FK_MOTION);
  forget.mutable_forget()->set_name("m");
  EXPECT_FALSE(sup_.handle(forget).accepted());
  for (int n = 0; n < 3000 && !(sup_.core().trajectory().atRest() && sup_.core().trajectory().queued() == 0); ++n)
    step();
  ASSERT_TRUE(sup_.core().trajectory().atRest());
  EXPECT_TRUE(sup_.handle(forget).accepted());
  forget.mutable_forget()->set_kind(proto::Forget::FK_POSITION);
  forget.mutable_forget()->set_name("p");
  EXPECT_TRUE(sup_.handle(forget).accepted());
  EXPECT_LT(sup_.world().findPosition("p"), 0);
}

TEST_F(SupervisorTest, SilentJointIsAnEmergencyNamingIt) {
  toHold();
  silent_joint_ = 2;
  for (int n = 0; n < config_.watchdog_periods + 1; ++n) step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_EMGCY);
  EXPECT_EQ(sup_.core().emergencyReason(), proto::ER_NODE_SILENT);
  EXPECT_EQ(sup_.core().emergencyNode(), proto::NODE_JOINT3);
  EXPECT_FALSE(out_.smail.power());
  // Latched: other requests do not leave it; reset does.
  EXPECT_FALSE(sup_.handle(test::controlRequest(proto::CC_HOLD)).accepted());
  silent_joint_ = -1;
  ASSERT_TRUE(sup_.handle(test::controlRequest(proto::CC_RESET)).accepted());
  step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_IDLE);
  EXPECT_EQ(sup_.core().emergencyReason(), proto::ER_NONE);
}

TEST_F(SupervisorTest, SilentArmAndMathAreNamedToo) {
  toHold();
  arm_silent_ = true;
  for (int n = 0; n < config_.watchdog_periods + 1; ++n) step();
  EXPECT_EQ(sup_.core().emergencyNode(), proto::NODE_ARM);
}

// A torque command that misses the arm takes its power off for that period. The controller must
// not go on as if nothing happened: a joint that also missed its J_MAIL is silent (paused, say),
// named at once; one whose J_MAIL came is named for the lost power.
TEST_F(SupervisorTest, PowerLostUnderAPoweredStateIsAnEmergencyNamingTheJoint) {
  toHold();
  for (int n = 0; n < 10; ++n) step();
  ASSERT_EQ(sup_.core().rtstate(), proto::RT_HOLD);
  missing_commands_ = 1u << 4;
  step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_EMGCY);
  EXPECT_EQ(sup_.core().emergencyReason(), proto::ER_POWER_LOST);
  EXPECT_EQ(sup_.core().emergencyNode(), proto::NODE_JOINT5);
  EXPECT_FALSE(out_.smail.power());
}

TEST_F(SupervisorTest, APausedJointIsSilentAtOnceNotAfterTheWatchdog) {
  toHold();
  for (int n = 0; n < 10; ++n) step();
  silent_joint_ = 1;
  missing_commands_ = 1u << 1;
  step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_EMGCY);
  EXPECT_EQ(sup_.core().emergencyReason(), proto::ER_NODE_SILENT);
  EXPECT_EQ(sup_.core().emergencyNode(), proto::NODE_JOINT2);
}

TEST_F(SupervisorTest, ThePowerMayTakeAFewPeriodsToComeOn) {
  step();
  ASSERT_TRUE(sup_.handle(test::controlRequest(proto::CC_CALIBRATE)).accepted());
  // The arm still unpowered for the first periods after the power request: no emergency.
  arm_unpowered_for_ = 5;
  for (int n = 0; n < 5; ++n) step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_CALIB);
}

// A run log that stops writing changes nothing unless the run requires one; then a moving arm comes
// to rest and holds, and no move or jog is taken any more, with the reason.
TEST_F(SupervisorTest, ALogThatStopsWritingHaltsARunThatRequiresOne) {
  toHold();
  sup_.logStopped("disk full");
  EXPECT_TRUE(sup_.handle(test::controlRequest(proto::CC_JOG, 2, 1)).accepted()) << "not required: unchanged";

  SupervisorConfig required = config_;
  required.log_required = true;
  Supervisor sup(model_, required);
  const ArmConfig config = OpwIk(model_).configOf(q_);
  ASSERT_TRUE(sup.handle(test::request(test::transformDef("t", forwardKinematics(model_, q_)))).accepted());
  ASSERT_TRUE(sup.handle(test::request(test::positionDef("p", config, {"T6"}, {"t"}))).accepted());
  sup.logStopped("disk full");
  const proto::TaskReply move = sup.handle(test::moveRequest("p", "m"));
  EXPECT_FALSE(move.accepted());
  EXPECT_EQ(move.code(), proto::RC_LOG_STOPPED) << move.reason();
  EXPECT_NE(move.reason().find("(disk full)"), std::string::npos) << move.reason();
  EXPECT_EQ(sup.handle(test::controlRequest(proto::CC_JOG, 2, 1)).code(), proto::RC_LOG_STOPPED);
}

TEST_F(SupervisorTest, JointFaultsBecomeEmergencies) {
  const std::pair<proto::JointFault, proto::EmergencyReason> faults[] = {
      {proto::JF_FOLLOWING, proto::ER_FOLLOWING_ERROR},
      {proto::JF_RANGE, proto::ER_JOINT_LIMIT},
      {proto::JF_SATURATION, proto::ER_SATURATION},
      {proto::JF_IK, proto::ER_IK_FAILURE},
      {proto::JF_CALIBRATION, proto::ER_CALIBRATION}};
  for (const auto& [fault, reason] : faults) {
    calibrateAll(false);
    toHold();
    jmail_[4].set_faults(fault);
    step();
    EXPECT_EQ(sup_.core().rtstate(), proto::RT_EMGCY) << proto::JointFault_Name(fault);
    EXPECT_EQ(sup_.core().emergencyReason(), reason) << proto::JointFault_Name(fault);
    EXPECT_EQ(sup_.core().emergencyNode(), proto::NODE_JOINT5);
    jmail_[4].set_faults(0);
    ASSERT_TRUE(sup_.handle(test::controlRequest(proto::CC_RESET)).accepted());
    step();
    ASSERT_EQ(sup_.core().rtstate(), proto::RT_IDLE);
  }
}

TEST_F(SupervisorTest, UnreachableAndSingularTargetsAreRefusedAndTheQueueIsUnchanged) {
  toHold();
  const ArmConfig config = OpwIk(model_).configOf(q_);
  defineHome(forwardKinematics(model_, q_), config);
  ASSERT_TRUE(sup_.handle(test::request(test::transformDef("far", trans(1.0, 0, 0.2)))).accepted());
  ASSERT_TRUE(sup_.handle(test::request(test::positionDef("farp", config, {"T6"}, {"far"}))).accepted());
  JointVec singular = q_;
  singular[4] = 0.0;
  ASSERT_TRUE(sup_.handle(test::request(test::transformDef("sing", forwardKinematics(model_, singular)))).accepted());
  ASSERT_TRUE(sup_.handle(test::request(test::positionDef("singp", config, {"T6"}, {"sing"}))).accepted());

  ASSERT_TRUE(sup_.handle(test::moveRequest("p", "m")).accepted());
  const int queued = sup_.core().trajectory().queued();
  proto::TaskReply r = sup_.handle(test::moveRequest("farp", "m"));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_UNREACHABLE) << r.reason();
  r = sup_.handle(test::moveRequest("singp", "m"));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_UNREACHABLE) << r.reason();
  EXPECT_NE(r.reason().find("singularity"), std::string::npos) << r.reason();
  r = sup_.handle(test::moveRequest("nowhere", "m"));
  EXPECT_EQ(r.code(), proto::RC_UNKNOWN_NAME) << r.reason();
  EXPECT_EQ(sup_.core().trajectory().queued(), queued);
}

TEST_F(SupervisorTest, AcceptedMoveStartsSetpointModeAndReportsItsEvents) {
  toHold();
  JointVec target = q_;
  target[0] += 0.2;
  defineHome(forwardKinematics(model_, target), OpwIk(model_).configOf(target));
  const proto::TaskReply r = sup_.handle(test::moveRequest("p", "m"));
  ASSERT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.move_id(), 1u);
  for (int n = 0; n < 1500; ++n) step();
  EXPECT_EQ(sup_.core().rtstate(), proto::RT_SETP);
  bool started = false, completed = false;
  for (const auto& e : events_) {
    started |= e.kind == SupervisorEvent::kMoveStarted && e.move_id == 1;
    completed |= e.kind == SupervisorEvent::kMoveCompleted && e.move_id == 1;
  }
  EXPECT_TRUE(started);
  EXPECT_TRUE(completed);
  EXPECT_LT((sup_.core().trajectory().q() - target).cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace
}  // namespace rfms
