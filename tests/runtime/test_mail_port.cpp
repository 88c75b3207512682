// The mail port (runtime/mail_port.hpp) over each transport, as the shells use it: waits for all of a
// set of boxes and for any of another, mail in order or the newest, and what it refuses. Each
// node's port is used by a thread of its own, as each node is a process of its own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/error.hpp"
#include "runtime/doorbell.hpp"
#include "runtime/mail_limits.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_segment.hpp"
#include "runtime/shared_memory_port.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

using Clock = MailPort::Clock;
// Far longer than any wake takes on a loaded machine: a wait that lasts this long lost its wake.
constexpr auto kLongWait = std::chrono::seconds(10);

proto::Envelope jmail(int joint, std::uint64_t period) {
  proto::Envelope e;
  e.mutable_jmail()->set_joint(static_cast<std::uint32_t>(joint));
  e.mutable_jmail()->mutable_header()->set_period(period);
  return e;
}

class MailPortTest : public ::testing::TestWithParam<proto::MailTransport> {};

// The arm's wait: all six torques, whichever comes last. A writer that writes between the
// reader's look at its boxes and its sleep must still wake it (a lost wake shows as a wait that
// lasts until its deadline).
TEST_P(MailPortTest, AWaitForAllOfSeveralBoxesEndsWithTheLastMailEveryTime) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "all-of"));
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  constexpr int kRounds = 3000;
  std::atomic<int> consumed{0};
  std::vector<std::thread> joints;
  for (int j = 1; j <= 3; ++j)
    joints.emplace_back([&, j] {
      MailPort& port = ports.port(static_cast<proto::Node>(proto::NODE_JOINT1 + j - 1));
      for (int k = 1; k <= kRounds; ++k) {
        while (consumed.load() < k - 1) std::this_thread::yield();
        port.publish(jmailBox(j), jmail(j, static_cast<std::uint64_t>(k)), static_cast<std::uint64_t>(k));
      }
    });
  MailSlot in;
  for (int k = 1; k <= kRounds; ++k) {
    const auto deadline = Clock::now() + kLongWait;
    ASSERT_TRUE(supervisor.wait(bit(jmailBox(1)) | bit(jmailBox(2)) | bit(jmailBox(3)), 0, deadline));
    if (Clock::now() >= deadline) {
      consumed = kRounds;  // let the writers end
      for (auto& t : joints) t.join();
      FAIL() << "round " << k << ": the last mail did not wake the reader";
    }
    for (int j = 1; j <= 3; ++j) {
      ASSERT_TRUE(supervisor.next(jmailBox(j), in)) << "round " << k << ", joint " << j;
      EXPECT_EQ(in.mail().jmail().header().period(), static_cast<std::uint64_t>(k));
    }
    consumed = k;
  }
  for (auto& t : joints) t.join();
}

// A joint's wait, round after round, its S_MAIL written at any moment of the joint's going to sleep:
// a mail that lands between the joint's look at its box and its sleep must wake it all the same.
TEST_P(MailPortTest, AWaitForOneBoxEndsWithItsMailWhenEverItIsWritten) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "one-box"));
  MailPort& joint = ports.port(proto::NODE_JOINT2);
  constexpr int kRounds = 60000;
  std::atomic<int> consumed{0};
  std::thread supervisor([&] {
    MailPort& port = ports.port(proto::NODE_SUPERVISOR);
    proto::Envelope smail;
    for (int k = 1; k <= kRounds; ++k) {
      while (consumed.load() < k - 1) std::this_thread::yield();
      // A spread of moments from at once to a few microseconds on: into the reader's look and sleep.
      const auto until = Clock::now() + std::chrono::nanoseconds((k * 7919) % 3000);
      while (Clock::now() < until) {
      }
      smail.mutable_smail()->mutable_header()->set_period(static_cast<std::uint64_t>(k));
      port.publish(Box::kSMail, smail, static_cast<std::uint64_t>(k));
    }
  });
  MailSlot in;
  for (int k = 1; k <= kRounds; ++k) {
    const auto deadline = Clock::now() + kLongWait;
    joint.wait(bit(Box::kSMail), bit(Box::kControl), deadline);
    if (Clock::now() >= deadline) {
      consumed = kRounds;
      supervisor.join();
      FAIL() << "round " << k << ": the mail did not wake the reader";
    }
    ASSERT_TRUE(joint.next(Box::kSMail, in)) << "round " << k;
    consumed = k;
  }
  supervisor.join();
}

// A joint's wait: its S_MAIL, or any control mail (a stop) before it.
TEST_P(MailPortTest, AWaitForAnyOfABoxEndsWithItsFirstMail) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "any-of"));
  MailPort& joint = ports.port(proto::NODE_JOINT4);
  std::thread supervisor([&] {
    proto::Envelope stop;
    stop.mutable_stop()->set_reason("test");
    ports.port(proto::NODE_SUPERVISOR).publish(Box::kControl, stop, 0);
  });
  const auto deadline = Clock::now() + kLongWait;
  EXPECT_TRUE(joint.wait(bit(Box::kSMail), bit(Box::kControl), deadline));
  EXPECT_LT(Clock::now(), deadline);
  supervisor.join();
  MailSlot in;
  ASSERT_TRUE(joint.next(Box::kControl, in));
  EXPECT_EQ(in.mail().stop().reason(), "test");
  EXPECT_FALSE(joint.next(Box::kSMail, in));
}

TEST_P(MailPortTest, AWaitThatNothingEndsEndsAtItsDeadline) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "deadline"));
  const auto deadline = Clock::now() + std::chrono::milliseconds(30);
  EXPECT_FALSE(ports.port(proto::NODE_MATH).wait(bit(Box::kMMail), bit(Box::kControl), deadline));
  EXPECT_GE(Clock::now(), deadline);
}

TEST_P(MailPortTest, ANodeReadsEveryMailInOrderOrTheNewestAndKnowsWhenItCame) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "order"));
  MailPort& joint = ports.port(proto::NODE_JOINT2);
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  const auto before = Clock::now();
  for (std::uint64_t k = 1; k <= 3; ++k) joint.publish(jmailBox(2), jmail(2, k), k);
  ASSERT_TRUE(supervisor.wait(bit(jmailBox(2)), 0, Clock::now() + kLongWait));
  MailSlot in;
  ASSERT_TRUE(supervisor.next(jmailBox(2), in));
  EXPECT_EQ(in.mail().jmail().header().period(), 1u);
  EXPECT_GE(supervisor.cameAt(jmailBox(2)), before);
  EXPECT_LE(supervisor.cameAt(jmailBox(2)), Clock::now());
  ASSERT_TRUE(supervisor.latest(jmailBox(2), in));
  EXPECT_EQ(in.mail().jmail().header().period(), 3u);
  EXPECT_FALSE(supervisor.next(jmailBox(2), in));
}

TEST_P(MailPortTest, AMailLargerThanItsBoxIsNotSentAndIsCounted) {
  test::PortCluster ports(test::inProcessCluster(GetParam(), "too-large"));
  MailPort& joint = ports.port(proto::NODE_JOINT1);
  proto::Envelope big;
  big.mutable_stop()->set_reason(std::string(capacityOf(jmailBox(1)) + 1, 'x'));
  EXPECT_EQ(joint.publish(jmailBox(1), big, 0), 0u);
  EXPECT_EQ(joint.faults().too_large, 1u);
  EXPECT_GT(joint.publish(jmailBox(1), jmail(1, 0), 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Transports, MailPortTest, ::testing::Values(proto::MT_SHARED_MEMORY, proto::MT_ZEROMQ),
                         [](const auto& i) { return std::string(test::transportName(i.param)); });

// In shared memory a box's ring is anyone's to scribble on who can open the segment: mail that
// does not parse, or whose period goes back, is passed over and counted, and what follows is read.
TEST(SharedMemoryPort, MailThatDoesNotParseOrGoesBackInTimeIsCountedAndPassedOver) {
  test::PortCluster ports(test::inProcessCluster(proto::MT_SHARED_MEMORY, "hostile"));
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  MailPort& joint = ports.port(proto::NODE_JOINT5);
  joint.publish(jmailBox(5), jmail(5, 10), 10);
  // From here on another writer, as a process that opened the segment would be.
  const MailSegment intruder = MailSegment::open(MailSegment::pathFor(ports.runDir().string()));
  RingWriter raw(intruder.ring(jmailBox(5)), depthOf(jmailBox(5)), capacityOf(jmailBox(5)));
  raw.write("\xff\xff\xff\xff garbage", 13, 11, 0);
  const std::string earlier = jmail(5, 3).SerializeAsString();  // whole, but of an earlier period than the last
  raw.write(earlier.data(), static_cast<std::uint32_t>(earlier.size()), 3, 0);
  const std::string whole = jmail(5, 12).SerializeAsString();
  raw.write(whole.data(), static_cast<std::uint32_t>(whole.size()), 12, 0);
  MailSlot in;
  std::vector<std::uint64_t> periods;
  while (supervisor.next(jmailBox(5), in)) periods.push_back(in.mail().jmail().header().period());
  EXPECT_EQ(periods, (std::vector<std::uint64_t>{10, 12}));
  EXPECT_EQ(supervisor.faults().malformed, 1u);
  EXPECT_EQ(supervisor.faults().disordered, 1u);
}

// Issue 58: two writers of one box (a node started twice, or restarted while the old one lives)
// make the same sequence marks; the second is refused at the start, naming the box.
TEST(SharedMemoryPort, ASecondWriterOfABoxIsRefusedWhileTheFirstLives) {
  const ClusterSettings s = test::inProcessCluster(proto::MT_SHARED_MEMORY, "twice");
  test::PortCluster ports(s);
  Transport transport;
  try {
    openMailPort(s, proto::NODE_JOINT5, ports.runDir().string(), transport, *spdlog::default_logger());
    ADD_FAILURE() << "a second joint 5 was let in";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("another process already writes J_MAIL of joint 5"), std::string::npos)
        << e.what();
  }
}

// The doorbell word is anyone's to write: a wait while another process scribbles on it as fast as
// it can still ends at its deadline, having turned at most a few times plus once per 50 µs step.
TEST(SharedMemoryPort, AWaitOnADoorbellScribbledOnKeepsItsDeadlineInBoundedTurns) {
  test::PortCluster ports(test::inProcessCluster(proto::MT_SHARED_MEMORY, "doorbell"));
  auto& supervisor = dynamic_cast<SharedMemoryPort&>(ports.port(proto::NODE_SUPERVISOR));
  std::atomic<bool> stop{false};
  std::thread scribbler([&] {
    // Another process's store and wake, as fast as it goes: every sleep on the word ends at once.
    while (!stop.load(std::memory_order_relaxed)) {
      supervisor.doorbellWord().store(doorbell::anyOf(0), std::memory_order_relaxed);
      doorbell::ring(supervisor.doorbellWord(), 0);
    }
  });
  const std::uint64_t before = supervisor.waitTurns();
  constexpr auto kWait = std::chrono::milliseconds(100);
  EXPECT_FALSE(supervisor.wait(bit(jmailBox(1)), 0, MailPort::Clock::now() + kWait));
  stop = true;
  scribbler.join();
  const std::uint64_t turns = supervisor.waitTurns() - before;
  EXPECT_LE(turns, 8 + 2 + static_cast<std::uint64_t>(kWait / std::chrono::microseconds(50)));
  std::printf("turns of a 100 ms wait under a scribbled doorbell: %llu\n", static_cast<unsigned long long>(turns));
}

// A whole mail, checked and parsed, that says what the robot cannot do — a setpoint of 1e62 rad,
// a NaN torque — is dropped and counted as impossible, naming why; the mail after it is read.
TEST(SharedMemoryPort, AMailBeyondWhatTheRobotCanDoIsDroppedAndCounted) {
  test::PortCluster ports(test::inProcessCluster(proto::MT_SHARED_MEMORY, "impossible"));
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  MailPort& joint = ports.port(proto::NODE_JOINT3);
  const MailLimits limits(test::puma260());
  supervisor.setLimits(&limits);
  proto::Envelope wild = jmail(3, 1);
  wild.mutable_jmail()->set_setpoint(1.5e62);
  joint.publish(jmailBox(3), wild, 1);
  joint.publish(jmailBox(3), jmail(3, 2), 2);
  MailSlot in;
  ASSERT_TRUE(supervisor.next(jmailBox(3), in));
  EXPECT_EQ(in.mail().jmail().header().period(), 2u);
  EXPECT_EQ(supervisor.faults(jmailBox(3)).impossible, 1u);
  EXPECT_STREQ(supervisor.firstImpossible(jmailBox(3)), "a setpoint beyond the joint's range");
}

// Issue 54: a slot's period set to 2^62 made every later mail "disordered" for good. A few mails
// in a row going back prove the period they go back from wrong: the reader follows the writer again.
TEST(SharedMemoryPort, APeriodFromTheFarFutureCostsAFewMailsNotTheRun) {
  test::PortCluster ports(test::inProcessCluster(proto::MT_SHARED_MEMORY, "future"));
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  const std::string far = jmail(2, 0).SerializeAsString();
  const MailSegment intruder = MailSegment::open(MailSegment::pathFor(ports.runDir().string()));
  RingWriter raw(intruder.ring(jmailBox(2)), depthOf(jmailBox(2)), capacityOf(jmailBox(2)));
  raw.write(far.data(), static_cast<std::uint32_t>(far.size()), std::uint64_t{1} << 62, 0);
  MailSlot in;
  ASSERT_TRUE(supervisor.next(jmailBox(2), in));  // whole and checked: its period is its writer's word
  // The joint's writing goes on after it (a writer taking the ring over, as a restarted node does).
  RingWriter joint(intruder.ring(jmailBox(2)), depthOf(jmailBox(2)), capacityOf(jmailBox(2)));
  std::vector<std::uint64_t> periods;
  for (std::uint64_t k = 1; k <= 6; ++k) {
    const std::string mail = jmail(2, k).SerializeAsString();
    joint.write(mail.data(), static_cast<std::uint32_t>(mail.size()), k, 0);
    while (supervisor.next(jmailBox(2), in)) periods.push_back(in.mail().jmail().header().period());
  }
  EXPECT_EQ(periods, (std::vector<std::uint64_t>{3, 4, 5, 6}));
  EXPECT_EQ(supervisor.faults(jmailBox(2)).disordered, 2u);
}

// A node placed on another host talks ZeroMQ; its neighbours in shared memory receive its mail
// through their relay, and send it theirs over ZeroMQ as well as into the segment.
TEST(SharedMemoryPort, ANodeOnAnotherHostIsReachedOverZeroMQ) {
  ClusterSettings s = test::inProcessCluster(proto::MT_SHARED_MEMORY, "placed");
  proto::Placement* p = s.config.add_placement();
  p->set_node("joint3");
  p->set_via("netns:elsewhere");
  test::PortCluster ports(s);
  EXPECT_EQ(ports.port(proto::NODE_JOINT3).describe(), "ZeroMQ");
  EXPECT_NE(ports.port(proto::NODE_SUPERVISOR).describe().find("ZeroMQ with other hosts"), std::string::npos);
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  MailPort& far = ports.port(proto::NODE_JOINT3);
  MailPort& near = ports.port(proto::NODE_JOINT1);
  proto::Envelope smail;
  smail.mutable_smail()->mutable_header()->set_period(7);
  MailSlot in;
  // Over ZeroMQ a subscription takes a moment: S_MAIL again until the far joint hears one.
  const auto deadline = Clock::now() + kLongWait;
  while (!far.wait(bit(Box::kSMail), 0, Clock::now() + std::chrono::milliseconds(20)) && Clock::now() < deadline)
    supervisor.publish(Box::kSMail, smail, 7);
  ASSERT_TRUE(far.next(Box::kSMail, in));
  EXPECT_EQ(in.mail().smail().header().period(), 7u);
  ASSERT_TRUE(near.latest(Box::kSMail, in));
  far.publish(jmailBox(3), jmail(3, 7), 7);
  near.publish(jmailBox(1), jmail(1, 7), 7);
  ASSERT_TRUE(supervisor.wait(bit(jmailBox(1)) | bit(jmailBox(3)), 0, Clock::now() + kLongWait));
  ASSERT_TRUE(supervisor.next(jmailBox(3), in));
  EXPECT_EQ(in.mail().jmail().joint(), 3u);
  ASSERT_TRUE(supervisor.next(jmailBox(1), in));
  EXPECT_EQ(in.mail().jmail().joint(), 1u);
}

}  // namespace
}  // namespace rfms
