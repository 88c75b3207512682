// The mailbox table (runtime/mail_box.hpp): one writer a box, a doorbell bit for every box a node
// reads, and room in every box for the largest mail the controller sends in it.
#include <gtest/gtest.h>

#include <bit>
#include <set>

#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "common/text_file.hpp"
#include "harness/harness.hpp"
#include "harness/task_runner.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_box.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/start_handshake.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

TEST(MailBox, EachBoxHasOneWriterThatDoesNotReadItAndEveryNodeItsBitsInOneDoorbell) {
  std::set<char> topics;
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    EXPECT_NE(readersOf(b), 0u) << boxName(b);
    EXPECT_EQ(readersOf(b) & (1u << writerOf(b)), 0u) << boxName(b);
    EXPECT_TRUE(topics.insert(topicOf(b)).second) << boxName(b);
    EXPECT_EQ(boxOfTopic(topicOf(b)), b);
    EXPECT_EQ(capacityOf(b) % 64, 0u) << "every slot starts on a cache line";
    EXPECT_LE(capacityOf(b), kMaxMailBytes);
  }
  for (proto::Node n : kClusterNodes) EXPECT_LE(std::popcount(boxesReadBy(n)), 16) << nodeName(n);
  EXPECT_EQ(helloBox(proto::NODE_ARM), Box::kSensors);
  EXPECT_EQ(writerOf(helloBox(proto::NODE_JOINT4)), proto::NODE_JOINT4);
}

template <class M>
std::size_t wrapped(Box b, const M& m) {
  proto::Envelope e;
  if constexpr (std::is_same_v<M, proto::SMail>) *e.mutable_smail() = m;
  if constexpr (std::is_same_v<M, proto::MMail>) *e.mutable_mmail() = m;
  if constexpr (std::is_same_v<M, proto::JMail>) *e.mutable_jmail() = m;
  if constexpr (std::is_same_v<M, proto::Parcel>) *e.mutable_parcel() = m;
  if constexpr (std::is_same_v<M, proto::ArmSensors>) *e.mutable_sensors() = m;
  if constexpr (std::is_same_v<M, proto::TorqueCommand>) *e.mutable_torque() = m;
  const std::size_t n = e.ByteSizeLong();
  EXPECT_LE(n, capacityOf(b)) << boxName(b);
  return n;
}

// Every mail of a run under force control (contact, the sensor, the force laws' wrench in S_MAIL),
// with its header's numbers at their largest, fits its box with room to spare.
TEST(MailBox, EveryMailOfARunUnderForceControlFitsItsBox) {
  const RobotModel model = loadRobotModel(std::string(RFMS_SOURCE_DIR) + "/deploy/robots/puma260.textproto");
  Harness h(model, proto::ControllerSettings{},
            loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/table.textproto"));
  std::array<std::size_t, kBoxCount> largest{};
  auto note = [&](Box b, std::size_t n) {
    largest[static_cast<std::size_t>(b)] = std::max(largest[static_cast<std::size_t>(b)], n);
  };
  auto worst = [](auto m) {
    m.mutable_header()->set_period(~std::uint64_t{0});
    m.mutable_header()->set_sequence(~std::uint64_t{0});
    m.mutable_header()->set_send_time_ns(-1);
    return m;
  };
  h.on_period = [&](const PeriodMail& m) {
    note(Box::kSMail, wrapped(Box::kSMail, worst(*m.smail)));
    note(Box::kMMail, wrapped(Box::kMMail, worst(*m.mmail)));
    note(Box::kParcel, wrapped(Box::kParcel, worst(*m.parcel)));
    note(Box::kSensors, wrapped(Box::kSensors, worst(*m.sensors)));
    for (int j = 1; j <= kJoints; ++j) {
      note(jmailBox(j), wrapped(jmailBox(j), worst(*m.jmail[static_cast<std::size_t>(j - 1)])));
      note(torqueBox(j), wrapped(torqueBox(j), worst(*m.torque[static_cast<std::size_t>(j - 1)])));
    }
  };
  const std::string task = readTextFile(std::string(RFMS_SOURCE_DIR) + "/examples/slide.task");
  EXPECT_TRUE(runTask(h, parseTaskFile(task, "slide.task"), RunOptions{}).succeeded());
  for (int i = 0; i < kBoxCount; ++i) {
    if (largest[static_cast<std::size_t>(i)] == 0) continue;
    EXPECT_LE(largest[static_cast<std::size_t>(i)] * 2, capacityOf(static_cast<Box>(i)))
        << boxName(static_cast<Box>(i));
  }
}

// The arm's report holds every command its torque rings can hold (their depth each), and a hello
// with every controller setting the shipped cluster file gives fits each node's hello box.
TEST(MailBox, TheArmsFullestReportAndEveryHelloFit) {
  proto::Envelope report;
  proto::AppliedTorques& a = *report.mutable_applied();
  a.mutable_header()->set_period(~std::uint64_t{0});
  for (int j = 1; j <= kJoints; ++j) {
    a.add_applied_period(-1);
    for (int n = 0; n < depthOf(torqueBox(j)); ++n) {
      proto::TorqueCommand& c = *a.add_received();
      c.mutable_header()->set_period(~std::uint64_t{0});
      c.mutable_header()->set_sequence(~std::uint64_t{0});
      c.mutable_header()->set_send_time_ns(-1);
      c.set_joint(static_cast<std::uint32_t>(j));
      c.set_torque(-1.5e300);
      c.set_power(true);
    }
  }
  EXPECT_LE(report.ByteSizeLong(), capacityOf(Box::kArmReport));
  const ClusterSettings s =
      loadClusterConfig(std::string(RFMS_SOURCE_DIR) + "/deploy/clusters/local.textproto", test::scratchDir().string());
  for (proto::Node n : kAnsweringNodes) {
    proto::Envelope hello;
    *hello.mutable_hello() = helloFor(n, s);
    hello.mutable_hello()->set_hears_arm(true);
    hello.mutable_hello()->set_hears_supervisor(true);
    EXPECT_LE(hello.ByteSizeLong() * 2, capacityOf(helloBox(n))) << nodeName(n);
  }
}

}  // namespace
}  // namespace rfms
