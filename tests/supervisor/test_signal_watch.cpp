#include <gtest/gtest.h>

#include <cmath>

#include "supervisor/remote_desk.hpp"
#include "supervisor/signal_watch.hpp"
#include "supervisor/supervisor.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

proto::Watch watchOf(std::initializer_list<const char*> signals, double rate_hz) {
  proto::Watch w;
  for (const char* s : signals) w.add_signals(s);
  w.set_rate_hz(rate_hz);
  return w;
}

// Period k's mail, with values that tell the period and the mailbox apart.
struct Mail {
  proto::ArmSensors sensors;
  proto::JMail joint2;
  proto::Parcel parcel;
  SupervisorInbox in;
  SupervisorOutbox out;
  Mail(std::uint64_t k, bool with_parcel) {
    sensors.add_encoder(static_cast<std::int64_t>(k) + 1000);
    joint2.set_angle(0.001 * static_cast<double>(k));
    parcel.set_joint(3);
    out.smail.set_rtstate(proto::RT_SETP);
    out.smail.mutable_t6()->mutable_m()->Resize(12, 0.0);
    out.smail.mutable_t6()->set_m(3, 0.25);
    in.arm = &sensors;
    in.joints[1] = &joint2;
    in.parcel = with_parcel ? &parcel : nullptr;
  }
};

TEST(SignalWatch, SamplesEveryNthPeriodFromEachSignalsMailAndDrainsOldestFirst) {
  std::string why;
  auto w = SignalWatch::make(
      watchOf({"jmail.2.angle", "smail.rtstate", "sensors.encoder[0]", "parcel.joint", "smail.t6.m[3]"}, 250.0), 1e-3,
      why);
  ASSERT_TRUE(w) << why;
  EXPECT_EQ(w->every(), 4);
  EXPECT_DOUBLE_EQ(w->rateHz(), 250.0);
  for (std::uint64_t k = 0; k <= 40; ++k) {
    Mail m(k, k != 8);
    w->sample(k, m.in, m.out);
  }
  proto::ArmStatus s;
  w->drain(s);
  ASSERT_EQ(s.watched_size(), 5);
  EXPECT_EQ(s.watched(4), "smail.t6.m[3]");
  ASSERT_EQ(s.samples_size(), 11);
  for (int i = 0; i < 11; ++i) {
    const proto::SignalSample& x = s.samples(i);
    const auto k = static_cast<double>(4 * i);
    EXPECT_EQ(x.period(), static_cast<std::uint64_t>(4 * i));
    ASSERT_EQ(x.values_size(), 5);
    EXPECT_DOUBLE_EQ(x.values(0), 0.001 * k);
    EXPECT_EQ(x.values(1), proto::RT_SETP);
    EXPECT_DOUBLE_EQ(x.values(2), k + 1000);
    if (i == 2) {
      EXPECT_TRUE(std::isnan(x.values(3)));  // no parcel that period
    } else {
      EXPECT_EQ(x.values(3), 3.0);
    }
    EXPECT_EQ(x.values(4), 0.25);
  }
  proto::ArmStatus again;
  w->drain(again);
  EXPECT_EQ(again.samples_size(), 0);  // drained
  EXPECT_EQ(again.samples_dropped(), 0u);
}

TEST(SignalWatch, HoldsABoundedNumberOfSamplesDroppingTheOldestAndAnswersInBoundedParts) {
  std::string why;
  auto w = SignalWatch::make(watchOf({"jmail.2.angle", "sensors.encoder[0]", "smail.rtstate", "parcel.joint",
                                      "jmail.2.angle", "jmail.2.angle", "jmail.2.angle", "jmail.2.angle"},
                                     1000.0),
                             1e-3, why);
  ASSERT_TRUE(w) << why;
  const std::uint64_t n = 3 * SignalWatch::kCapacity;
  for (std::uint64_t k = 0; k < n; ++k) {
    Mail m(k, true);
    w->sample(k, m.in, m.out);
  }
  EXPECT_EQ(w->held(), SignalWatch::kCapacity);
  EXPECT_EQ(w->dropped(), n - SignalWatch::kCapacity);
  std::uint64_t next = n - SignalWatch::kCapacity;  // the newest are kept
  std::size_t answers = 0;
  for (;;) {
    proto::ArmStatus s;
    w->drain(s);
    if (s.samples_size() == 0) break;
    ++answers;
    EXPECT_LE(static_cast<std::size_t>(s.samples_size()) * 8, SignalWatch::kMaxValuesPerAnswer);
    EXPECT_LT(s.ByteSizeLong(), 60000u);  // inside one datagram with room for the frame
    for (const auto& x : s.samples()) EXPECT_EQ(x.period(), next++);
  }
  EXPECT_EQ(next, n);
  EXPECT_EQ(answers, 2u);  // 1024 samples of 8 values, 512 an answer
}

TEST(SignalWatch, AWatchThatCannotBeHadIsRefusedWithTheReason) {
  const auto refusal = [](const proto::Watch& w) {
    std::string why;
    EXPECT_FALSE(SignalWatch::make(w, 1e-3, why));
    return why;
  };
  EXPECT_NE(refusal(watchOf({}, 10)).find("1 .. 16 signals"), std::string::npos);
  proto::Watch many = watchOf({}, 10);
  for (int i = 0; i < 17; ++i) many.add_signals("smail.rtstate");
  EXPECT_NE(refusal(many).find("got 17"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"smail.rtstate"}, 0.0)).find("0 .. 1000 Hz"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"smail.rtstate"}, 1001.0)).find("0 .. 1000 Hz"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"smail.rtstate"}, std::nan(""))).find("Hz"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"mail.x"}, 10)).find("no mailbox 'mail'"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"jmail.7.angle"}, 10)).find("joint 1..6"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"jmail.3.angel"}, 10)).find("has no field 'angel'"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"torque.2.torque"}, 10)).find("does not see the joints' torque"), std::string::npos);
  EXPECT_NE(refusal(watchOf({"smail.t6.m[99999999999999]"}, 10)).find("name[index]"), std::string::npos);
  proto::Watch long_name = watchOf({}, 10);
  long_name.add_signals("smail." + std::string(1000, 'x'));
  EXPECT_NE(refusal(long_name).find("at most 128 characters"), std::string::npos);
}

proto::TaskRequest watchRequest(std::uint64_t session, std::uint64_t number, proto::ClientRole role,
                                std::initializer_list<const char*> signals) {
  proto::TaskRequest r;
  r.set_session(session);
  r.set_number(number);
  r.set_role(role);
  *r.mutable_watch() = watchOf(signals, 100.0);
  return r;
}

TEST(RemoteDesk, AnyClientMayWatchAtMostSixteenAtOnceAndAWatchNobodyDrainsEnds) {
  const RobotModel& model = test::puma260();
  Supervisor core(model, SupervisorConfig{});
  RemoteDesk desk(model, SupervisorConfig{});
  // An observer may watch.
  EXPECT_TRUE(desk.accept(watchRequest(1, 1, proto::CR_OBSERVER, {"smail.rtstate"}), core.background(), 1).accepted());
  for (std::uint64_t s = 2; s <= RemoteDesk::kMaxWatches; ++s)
    EXPECT_TRUE(
        desk.accept(watchRequest(s, 1, proto::CR_OPERATOR, {"jmail.1.angle"}), core.background(), 1).accepted());
  const proto::TaskReply full =
      desk.accept(watchRequest(99, 1, proto::CR_OPERATOR, {"smail.rtstate"}), core.background(), 1);
  EXPECT_FALSE(full.accepted());
  EXPECT_EQ(full.code(), proto::RC_TRY_AGAIN) << full.reason();
  // A watcher may replace its own watch, and the samples come with its status answers only.
  EXPECT_TRUE(
      desk.accept(watchRequest(1, 2, proto::CR_OBSERVER, {"smail.rtstate", "mmail.parcel_joint"}), core.background(), 1)
          .accepted());
  for (std::uint64_t k = 1; k <= 100; ++k) {
    Mail m(k, true);
    desk.observe(k, m.in, m.out);
  }
  proto::ArmStatus mine, theirs, nobodys;
  desk.watchStatus(1, 100, mine);
  EXPECT_EQ(mine.watched_size(), 2);
  EXPECT_EQ(mine.samples_size(), 10);  // every 10th period at 100 Hz
  desk.watchStatus(500, 100, nobodys);
  EXPECT_EQ(nobodys.samples_size(), 0);
  EXPECT_EQ(nobodys.watched_size(), 0);
  // Ten seconds undrained: every watch but the one just drained ends, and the slots are free.
  desk.watchStatus(1, 9000, mine);
  desk.watchStatus(2, 10'200, theirs);
  EXPECT_EQ(theirs.watched_size(), 0);
  EXPECT_EQ(desk.watches(), 1u);
  // An empty watch ends one's own; a task script has the run log instead.
  EXPECT_TRUE(desk.accept(watchRequest(1, 3, proto::CR_OBSERVER, {}), core.background(), 10'201).accepted());
  EXPECT_EQ(desk.watches(), 0u);
  EXPECT_FALSE(
      desk.accept(watchRequest(0, 0, proto::CR_NONE, {"smail.rtstate"}), core.background(), 10'202).accepted());
}

}  // namespace
}  // namespace rfms
