#include <gtest/gtest.h>

#include "supervisor/rtstate_machine.hpp"

namespace rfms {
namespace {

constexpr int kWatchdog = 5;

void hearAll(RtStateMachine& m, std::uint64_t k) {
  for (proto::Node n : {proto::NODE_ARM, proto::NODE_JOINT1, proto::NODE_JOINT2, proto::NODE_JOINT3, proto::NODE_JOINT4,
                        proto::NODE_JOINT5, proto::NODE_JOINT6, proto::NODE_MATH})
    m.heard(n, k);
}

TEST(RtStateMachine, ARequestIsTakenOnceAndOnlyAResetLeavesEmgcy) {
  RtStateMachine m(kWatchdog);
  proto::RtState to = proto::RT_IDLE;
  EXPECT_FALSE(m.takeRequest(to)) << "nothing asked";
  m.request(proto::RT_CALIB);
  ASSERT_TRUE(m.takeRequest(to));
  EXPECT_EQ(to, proto::RT_CALIB);
  EXPECT_FALSE(m.takeRequest(to)) << "taken once";

  EXPECT_TRUE(m.enter(proto::RT_HOLD, 10));
  EXPECT_FALSE(m.enter(proto::RT_HOLD, 11)) << "already there";
  ASSERT_TRUE(m.latch({proto::ER_OPERATOR, proto::NODE_SUPERVISOR}));
  m.enter(proto::RT_EMGCY, 12);
  EXPECT_FALSE(m.latch({proto::ER_NODE_SILENT, proto::NODE_MATH})) << "the first cause stays";
  EXPECT_EQ(m.reason(), proto::ER_OPERATOR);
  m.request(proto::RT_HOLD);
  EXPECT_FALSE(m.takeRequest(to)) << "HOLD from EMGCY";
  m.request(proto::RT_IDLE);
  ASSERT_TRUE(m.takeRequest(to));
  m.enter(to, 13);
  EXPECT_EQ(m.reason(), proto::ER_NONE) << "a reset forgets the emergency";
  EXPECT_EQ(m.node(), proto::NODE_NONE);
}

TEST(RtStateMachine, AnEmergencyDropsTheRequestPendingWithIt) {
  RtStateMachine m(kWatchdog);
  m.request(proto::RT_SETP);
  ASSERT_TRUE(m.latch({proto::ER_JOINT_LIMIT, proto::NODE_JOINT2}));
  proto::RtState to;
  EXPECT_FALSE(m.takeRequest(to));
}

TEST(RtStateMachine, TheWatchdogNamesTheFirstNodeSilentForMoreThanItsPeriods) {
  RtStateMachine m(kWatchdog);
  hearAll(m, 100);
  EXPECT_FALSE(m.silentNode(100 + kWatchdog)) << "silent for exactly the watchdog's periods";
  m.heard(proto::NODE_ARM, 106);
  const RtStateMachine::Verdict v = m.silentNode(106);
  EXPECT_EQ(v.reason, proto::ER_NODE_SILENT);
  EXPECT_EQ(v.node, proto::NODE_JOINT1) << "the arm was heard; joint 1 is the first silent";
}

TEST(RtStateMachine, LostPowerNamesTheJointTheArmMissedAndASilentOneAsSilent) {
  RtStateMachine m(kWatchdog);
  m.enter(proto::RT_HOLD, 0);  // the power goes on at period 0
  proto::ArmSensors arm;
  arm.set_powered(false);
  arm.set_missing_commands(0b010100);  // joints 3 and 5
  hearAll(m, 5);
  EXPECT_FALSE(m.powerLost(5, &arm)) << "the power request is still on its way";
  hearAll(m, 20);
  RtStateMachine::Verdict v = m.powerLost(20, &arm);
  EXPECT_EQ(v.reason, proto::ER_POWER_LOST);
  EXPECT_EQ(v.node, proto::NODE_JOINT3) << "the lowest joint the arm names";
  m.heard(proto::NODE_JOINT3, 20);
  v = m.powerLost(21, &arm);  // joint 3's J_MAIL of this period is missing too
  EXPECT_EQ(v.reason, proto::ER_NODE_SILENT);
  arm.set_missing_commands(0);
  EXPECT_EQ(m.powerLost(21, &arm).node, proto::NODE_ARM) << "no joint named: the arm";
  arm.set_powered(true);
  EXPECT_FALSE(m.powerLost(21, &arm));
  EXPECT_FALSE(m.powerLost(21, nullptr)) << "no sensor mail, no evidence";
}

TEST(RtStateMachine, JointFaultsInRfmsOrderOfPrecedence) {
  EXPECT_FALSE(RtStateMachine::jointFault(1, 0));
  const RtStateMachine::Verdict v =
      RtStateMachine::jointFault(4, proto::JF_CALIBRATION | proto::JF_FOLLOWING | proto::JF_SATURATION);
  EXPECT_EQ(v.reason, proto::ER_FOLLOWING_ERROR);
  EXPECT_EQ(v.node, proto::NODE_JOINT4);
  EXPECT_EQ(RtStateMachine::jointFault(6, proto::JF_RANGE | proto::JF_IK).reason, proto::ER_JOINT_LIMIT);
  EXPECT_EQ(RtStateMachine::jointFault(2, proto::JF_IK).reason, proto::ER_IK_FAILURE);
}

// A force move's emergency keeps the axis it was found along, for the status to name, until reset.
TEST(RtStateMachine, AForceFaultsAxisIsKeptUntilReset) {
  RtStateMachine m(kWatchdog);
  EXPECT_EQ(m.axis(), -1);
  RtStateMachine::Verdict runaway{proto::ER_FORCE_RUNAWAY, proto::NODE_SUPERVISOR};
  runaway.axis = 2;
  runaway.axis_in_tool = true;
  ASSERT_TRUE(m.latch(runaway));
  m.enter(proto::RT_EMGCY, 10);
  EXPECT_EQ(m.axis(), 2);
  EXPECT_TRUE(m.axisInTool());
  m.enter(proto::RT_IDLE, 20);
  EXPECT_EQ(m.axis(), -1);
  EXPECT_FALSE(m.axisInTool());
}

TEST(RtStateMachine, TheOperatorsStopIsTakenOnce) {
  RtStateMachine m(kWatchdog);
  EXPECT_FALSE(m.takeEmergencyStop());
  m.requestEmergencyStop();
  const RtStateMachine::Verdict v = m.takeEmergencyStop();
  EXPECT_EQ(v.reason, proto::ER_OPERATOR);
  EXPECT_EQ(v.node, proto::NODE_SUPERVISOR);
  EXPECT_FALSE(m.takeEmergencyStop());
}

}  // namespace
}  // namespace rfms
