// The node loop (runtime/node_loop.hpp) on its own, with a counting core and a shell that answers
// each M_MAIL, over a real shared-memory segment: the period's order (gather, step, publish,
// record, stepped), the counts asked for, the shell's own end, and how the supervisor ends a
// follower's run (its stop mail, its silence; a fault notice does not).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "runtime/node_loop.hpp"
#include "tests/support/port_cluster.hpp"

namespace rfms {
namespace {

// A core that adds its inbox's period to a running sum.
struct CountingCore {
  struct Inbox {
    std::uint64_t period;
  };
  struct Outbox {
    std::uint64_t sum = 0;
  };
  void step(const Inbox& in, Outbox& out) noexcept { out.sum += in.period; }
};

// Answers each M_MAIL with a PARCEL whose sequence is the core's sum; writes what it was asked to
// do into `trace`.
class CountingShell : public NodeLoop<CountingCore, CountingShell> {
 public:
  CountingShell(CountingCore& core, MailPort& port, std::chrono::milliseconds orphan_timeout)
      : NodeLoop(core, port, orphan_timeout) {}

  std::vector<std::string> trace;
  std::uint64_t finish_after = 0;  // stepped() says stop after this period (0: never)
  bool finish_in_gather = false;
  int ended_calls = 0;
  LoopEnd ended_how = LoopEnd::kSignal;

 private:
  friend class NodeLoop<CountingCore, CountingShell>;
  Gathered gather() {
    if (finish_in_gather) return Gathered::kFinished;
    port_.wait(bit(Box::kMMail), bit(Box::kControl), MailPort::Clock::now() + std::chrono::milliseconds(20));
    if (!listen(control_)) return Gathered::kEnded;
    if (!port_.next(Box::kMMail, mail_)) return Gathered::kNotYet;
    heard();
    trace.push_back("gather " + std::to_string(period()));
    return Gathered::kReady;
  }
  std::uint64_t period() const { return mail_.mail().mmail().header().period(); }
  CountingCore::Inbox inbox() const { return {period()}; }
  CountingCore::Outbox& outbox() { return out_; }
  void publish(const CountingCore::Inbox& in, std::uint64_t k) {
    trace.push_back("publish " + std::to_string(in.period) + " sum " + std::to_string(out_.sum));
    proto::Envelope e;
    e.mutable_parcel()->mutable_header()->set_period(k);
    e.mutable_parcel()->mutable_header()->set_sequence(out_.sum);
    port_.publish(Box::kParcel, e, k);
  }
  void record(const CountingCore::Inbox&, std::uint64_t k) { trace.push_back("record " + std::to_string(k)); }
  bool stepped(std::uint64_t k) {
    trace.push_back("stepped " + std::to_string(k));
    return finish_after == 0 || k < finish_after;
  }
  void ended(LoopEnd how) {
    ++ended_calls;
    ended_how = how;
  }

  MailSlot control_, mail_;
  CountingCore::Outbox out_;
};

class NodeLoopTest : public ::testing::Test {
 protected:
  NodeLoopTest() : settings_(test::inProcessCluster(proto::MT_SHARED_MEMORY, "node-loop")), ports_(settings_) {}

  MailPort& supervisor() { return ports_.port(proto::NODE_SUPERVISOR); }
  MailPort& math() { return ports_.port(proto::NODE_MATH); }

  void sendMMail(std::uint64_t k) {
    proto::Envelope e;
    e.mutable_mmail()->mutable_header()->set_period(k);
    supervisor().publish(Box::kMMail, e, k);
  }
  void sendControl(const proto::Envelope& e) { supervisor().publish(Box::kControl, e, 0); }

  ClusterSettings settings_;
  test::PortCluster ports_;
  CountingCore core_;
};

TEST_F(NodeLoopTest, EachPeriodGathersStepsPublishesRecordsThenSteppedInThatOrder) {
  CountingShell shell(core_, math(), std::chrono::seconds(60));
  for (std::uint64_t k = 1; k <= 3; ++k) sendMMail(k);
  EXPECT_EQ(shell.run(3), LoopEnd::kPeriods);
  const std::vector<std::string> want = {"gather 1", "publish 1 sum 1", "record 1", "stepped 1",
                                         "gather 2", "publish 2 sum 3", "record 2", "stepped 2",
                                         "gather 3", "publish 3 sum 6", "record 3", "stepped 3"};
  EXPECT_EQ(shell.trace, want);
  EXPECT_EQ(shell.lastPeriod(), 3u);
  EXPECT_EQ(shell.periodsRun(), 3u);
  EXPECT_EQ(shell.ended_calls, 0) << "a count asked for is no stop";
  // A second run goes on where the first stopped.
  sendMMail(4);
  EXPECT_EQ(shell.run(1), LoopEnd::kPeriods);
  EXPECT_EQ(shell.periodsRun(), 4u);
  EXPECT_EQ(shell.trace.back(), "stepped 4");
}

TEST_F(NodeLoopTest, TheShellEndsTheRunAfterAPeriodOrBeforeOne) {
  CountingShell shell(core_, math(), std::chrono::seconds(60));
  shell.finish_after = 2;
  for (std::uint64_t k = 1; k <= 3; ++k) sendMMail(k);
  EXPECT_EQ(shell.run(), LoopEnd::kFinished);
  EXPECT_EQ(shell.lastPeriod(), 2u);
  EXPECT_EQ(shell.trace.back(), "stepped 2");
  shell.finish_in_gather = true;
  const std::size_t before = shell.trace.size();
  EXPECT_EQ(shell.run(), LoopEnd::kFinished);
  EXPECT_EQ(shell.trace.size(), before) << "no step after gather() said finished";
  EXPECT_EQ(shell.ended_calls, 0) << "the shell's own end needs no coming to rest";
}

TEST_F(NodeLoopTest, TheSupervisorsStopEndsTheRunWithItsReasonAndTheShellIsToldOnce) {
  CountingShell shell(core_, math(), std::chrono::seconds(60));
  sendMMail(1);
  proto::Envelope stop;
  stop.mutable_stop()->set_reason("the task is done");
  sendControl(stop);
  EXPECT_EQ(shell.run(), LoopEnd::kStopMail);
  EXPECT_EQ(shell.stopReason(), "the task is done");
  EXPECT_EQ(shell.ended_calls, 1);
  EXPECT_EQ(shell.ended_how, LoopEnd::kStopMail);
  EXPECT_EQ(shell.periodsRun(), 0u) << "the control box is read before the period's mail";
}

TEST_F(NodeLoopTest, AFaultNoticeIsNoStop) {
  CountingShell shell(core_, math(), std::chrono::seconds(60));
  proto::Envelope notice;
  notice.mutable_fault()->set_period(7);
  notice.mutable_fault()->set_reason(proto::ER_FORCE_LIMIT);
  sendControl(notice);
  sendMMail(1);
  EXPECT_EQ(shell.run(1), LoopEnd::kPeriods);
  EXPECT_EQ(shell.ended_calls, 0);
}

TEST_F(NodeLoopTest, TheSupervisorsSilenceForTheOrphanTimeoutEndsTheRun) {
  CountingShell shell(core_, math(), std::chrono::milliseconds(200));
  // Nothing comes: the loop looks every 20 ms and ends once 200 ms have passed in silence.
  EXPECT_EQ(shell.run(), LoopEnd::kSupervisorGone);
  EXPECT_EQ(shell.ended_calls, 1);
  EXPECT_EQ(shell.ended_how, LoopEnd::kSupervisorGone);
  EXPECT_EQ(shell.periodsRun(), 0u);
}

}  // namespace
}  // namespace rfms
