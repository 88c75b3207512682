#include <gtest/gtest.h>

#include "common/mail_codec.hpp"
#include "supervisor/mail_composer.hpp"

namespace rfms {
namespace {

struct Facts {
  JointVec setpoints = JointVec::Constant(0.1), acc = JointVec::Constant(0.2), error = JointVec::Constant(0.3);
  JointVec angles = JointVec::Constant(0.4), velocities = JointVec::Constant(0.5);
  MailFacts f;
  Facts() {
    f.setpoints = &setpoints;
    f.desired_acceleration = &acc;
    f.servo_error = &error;
    f.angles = &angles;
    f.velocities = &velocities;
  }
};

TEST(MailComposer, BothMailsCarryThePeriodAndOneSequenceNumber) {
  Facts facts;
  facts.f.period = 41;
  facts.f.sequence = 7;
  facts.f.state = proto::RT_SETP;
  facts.f.angles_period = 40;
  proto::SMail s;
  proto::MMail m;
  composeMail(facts.f, s, m);
  EXPECT_EQ(s.header().period(), 41u);
  EXPECT_EQ(m.header().period(), 41u);
  EXPECT_EQ(s.header().sequence(), 7u);
  EXPECT_EQ(m.header().sequence(), 7u);
  EXPECT_EQ(s.rtstate(), proto::RT_SETP);
  EXPECT_EQ(m.angles_period(), 40u);
  EXPECT_TRUE(decodeJoints(m.angles()).isApprox(facts.angles));
  EXPECT_TRUE(decodeJoints(s.desired_acceleration()).isApprox(facts.acc));
}

// RFMS's math server answers one joint a period, in turn: M_MAIL names it.
TEST(MailComposer, TheMathServerIsAskedForEachJointsParcelInTurn) {
  Facts facts;
  proto::SMail s;
  proto::MMail m;
  for (std::uint64_t k = 0; k < 12; ++k) {
    facts.f.period = k;
    composeMail(facts.f, s, m);
    EXPECT_EQ(m.parcel_joint(), static_cast<std::uint32_t>(k % 6 + 1)) << k;
  }
}

TEST(MailComposer, AParcelIsRoutedOnlyInThePeriodItCame) {
  Facts facts;
  proto::Parcel p;
  p.set_joint(3);
  p.set_gravity_torque(1.5);
  facts.f.parcel = &p;
  proto::SMail s;
  proto::MMail m;
  composeMail(facts.f, s, m);
  EXPECT_EQ(s.parcel().joint(), 3u);
  EXPECT_EQ(s.parcel().gravity_torque(), 1.5);
  facts.f.parcel = nullptr;
  composeMail(facts.f, s, m);
  EXPECT_EQ(s.parcel().joint(), 0u) << "no joint takes a parcel that did not come this period";
}

TEST(MailComposer, AJogIsNamedOnlyInThePeriodsItMoves) {
  Facts facts;
  facts.f.jog_joint = 4;
  facts.f.jog_direction = -1;
  facts.f.jog_counts = 0;
  proto::SMail s;
  proto::MMail m;
  composeMail(facts.f, s, m);
  EXPECT_EQ(s.jog_joint(), 0);
  EXPECT_EQ(s.jog_direction(), 0);
  facts.f.jog_counts = 12;
  composeMail(facts.f, s, m);
  EXPECT_EQ(s.jog_joint(), 4);
  EXPECT_EQ(s.jog_direction(), -1);
  EXPECT_EQ(s.jog_counts(), 12);
}

}  // namespace
}  // namespace rfms
