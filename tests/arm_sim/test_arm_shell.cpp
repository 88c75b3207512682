// The arm's shell in a lockstep cluster, driven by the test in the supervisor's and the joints'
// places over a real shared-memory segment: what the arm does when a period's mail does not all
// come. One S_MAIL a joint could not read (found damaged and dropped) costs that joint one
// period's command, which the arm replaces by its last, as an amplifier does; the arm's watchdog
// still takes the power off a joint that stays silent; and an S_MAIL the arm itself could not
// read does not hold it when the joints' answers show it was sent.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>

#include "arm_sim/shell/arm_shell.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

using Clock = MailPort::Clock;

class ArmShellLockstep : public ::testing::Test {
 protected:
  ArmShellLockstep()
      : settings_(test::inProcessCluster(proto::MT_SHARED_MEMORY, "arm-shell")),
        ports_(settings_),
        core_(test::puma260(), armConfigFor(test::puma260(), settings_.config.controller())),
        shell_(core_, settings_, ports_.port(proto::NODE_ARM), *spdlog::default_logger()),
        arm_([this] { ended_ = shell_.run(); }) {}

  // The supervisor's stop ends the arm's run whatever the test got to.
  ~ArmShellLockstep() override {
    proto::Envelope e;
    e.mutable_stop()->set_reason("the test is over");
    supervisor().publish(Box::kControl, e, 0);
    arm_.join();
  }

  MailPort& supervisor() { return ports_.port(proto::NODE_SUPERVISOR); }

  void sendSMail(std::uint64_t k) {
    proto::Envelope e;
    e.mutable_smail()->mutable_header()->set_period(k);
    supervisor().publish(Box::kSMail, e, k);
  }

  void sendTorque(int joint, std::uint64_t k) {
    proto::Envelope e;
    proto::TorqueCommand& t = *e.mutable_torque();
    t.mutable_header()->set_period(k);
    t.set_joint(static_cast<std::uint32_t>(joint));
    t.set_torque(0.01 * joint);
    t.set_power(true);
    ports_.port(static_cast<proto::Node>(proto::NODE_JOINT1 + joint - 1)).publish(torqueBox(joint), e, k);
  }

  // The first mail of box `b` that `wanted` takes, or none within ten seconds (the arm is waiting on).
  template <class Wanted>
  const proto::Envelope* mailOf(Box b, Wanted wanted) {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      supervisor().wait(bit(b), 0, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
      while (supervisor().next(b, slot_))
        if (wanted(slot_.mail())) return &slot_.mail();
    }
    return nullptr;
  }

  // The arm's sensors of period k.
  std::optional<proto::ArmSensors> sensorsOf(std::uint64_t k) {
    const proto::Envelope* e =
        mailOf(Box::kSensors, [k](const proto::Envelope& m) { return m.sensors().header().period() == k; });
    return e != nullptr ? std::optional(e->sensors()) : std::nullopt;
  }

  // The arm's report of the commands that drove period k.
  std::optional<proto::AppliedTorques> appliedOf(std::uint64_t k) {
    const proto::Envelope* e =
        mailOf(Box::kArmReport, [k](const proto::Envelope& m) { return m.applied().header().period() == k; });
    return e != nullptr ? std::optional(e->applied()) : std::nullopt;
  }

  // Period k as a whole cluster would run it: the sensors, the S_MAIL, each joint's answer.
  void fullPeriod(std::uint64_t k) {
    ASSERT_TRUE(sensorsOf(k)) << "period " << k;
    sendSMail(k);
    for (int j = 1; j <= kJoints; ++j) sendTorque(j, k);
  }

  ClusterSettings settings_;
  test::PortCluster ports_;
  ArmCore core_;
  ArmShell shell_;
  LoopEnd ended_ = LoopEnd::kSignal;
  std::thread arm_;
  MailSlot slot_;
};

TEST_F(ArmShellLockstep, AJointsOneMissingCommandIsReplacedByItsLastAndThePowerStaysOn) {
  for (std::uint64_t k = 0; k < 5; ++k) ASSERT_NO_FATAL_FAILURE(fullPeriod(k));
  // Period 5: joint 2 lost its S_MAIL and cannot answer; the supervisor waits, then goes on.
  ASSERT_TRUE(sensorsOf(5));
  sendSMail(5);
  for (int j = 1; j <= kJoints; ++j)
    if (j != 2) sendTorque(j, 5);
  sendSMail(6);
  const std::optional<proto::ArmSensors> after = sensorsOf(6);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->powered());
  EXPECT_EQ(after->missing_commands(), 0u);
  const std::optional<proto::AppliedTorques> applied = appliedOf(5);
  ASSERT_TRUE(applied);
  ASSERT_EQ(applied->applied_period_size(), kJoints);
  EXPECT_EQ(applied->applied_period(1), 4);  // joint 2's command of period 4 drove period 5
  EXPECT_EQ(applied->applied_period(0), 5);
  // Joint 2 answers again from period 6 on, and the arm waits for it again.
  for (int j = 1; j <= kJoints; ++j) sendTorque(j, 6);
  const std::optional<proto::ArmSensors> next = sensorsOf(7);
  ASSERT_TRUE(next);
  EXPECT_TRUE(next->powered());
}

TEST_F(ArmShellLockstep, AJointSilentForTheWatchdogsPeriodsLosesThePowerNamingIt) {
  const std::uint32_t watchdog = settings_.config.controller().watchdog_periods();
  for (std::uint64_t k = 0; k < 5; ++k) ASSERT_NO_FATAL_FAILURE(fullPeriod(k));
  // From period 5 joint 2 is silent. Its last command (of period 4) drives periods 5 .. 4 +
  // watchdog - 1; the step of period 4 + watchdog goes without power.
  for (std::uint64_t k = 5;; ++k) {
    const std::optional<proto::ArmSensors> s = sensorsOf(k);
    ASSERT_TRUE(s) << "period " << k;
    if (k <= 4 + watchdog) {
      EXPECT_TRUE(s->powered()) << "period " << k;
    } else {
      EXPECT_FALSE(s->powered()) << "period " << k;
      EXPECT_EQ(s->missing_commands(), 0b10u);
      break;
    }
    sendSMail(k);
    for (int j = 1; j <= kJoints; ++j)
      if (j != 2) sendTorque(j, k);
    if (k == 5) sendSMail(6);  // the supervisor gives joint 2 up once; the arm no longer waits for it
  }
}

TEST_F(ArmShellLockstep, AnSMailTheArmCouldNotReadDoesNotHoldItWhenTheJointsAnswered) {
  for (std::uint64_t k = 0; k < 3; ++k) ASSERT_NO_FATAL_FAILURE(fullPeriod(k));
  ASSERT_TRUE(sensorsOf(3));
  // S_MAIL 3 never reaches the arm; the joints' commands of period 3 show that it was sent.
  for (int j = 1; j <= kJoints; ++j) sendTorque(j, 3);
  const std::optional<proto::ArmSensors> s = sensorsOf(4);
  ASSERT_TRUE(s) << "the arm waited for an S_MAIL it had been answered to";
  EXPECT_TRUE(s->powered());
  EXPECT_EQ(s->missing_commands(), 0u);
}

}  // namespace
}  // namespace rfms
