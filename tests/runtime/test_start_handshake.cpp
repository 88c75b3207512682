// The start handshake over each mail transport, with the supervisor's and the arm's side played by
// the test through their own ports.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "runtime/start_handshake.hpp"
#include "tests/support/port_cluster.hpp"

namespace rfms {
namespace {

class StartHandshake : public ::testing::TestWithParam<proto::MailTransport> {};

// The arm may take the start and publish its sensors of period 0 before a joint has read the
// start: the joint must still find them afterwards (it used to drain them in the handshake, and
// could not answer period 0).
TEST_P(StartHandshake, AJointKeepsTheArmsFirstSensorMailThatCameBeforeTheStart) {
  const ClusterSettings s = test::inProcessCluster(GetParam(), "handshake");
  test::PortCluster ports(s);
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  MailPort& arm = ports.port(proto::NODE_ARM);

  auto joint = std::async(std::launch::async, [&] {
    return awaitStart(proto::NODE_JOINT2, s, ports.port(proto::NODE_JOINT2), *spdlog::default_logger());
  });
  proto::Envelope hello;
  hello.mutable_hello()->set_node(proto::NODE_ARM);
  MailSlot in;
  // Hellos both ways until the joint says it hears the arm and the supervisor (each every 10 ms,
  // up to 10 s).
  bool hears_both = false;
  for (int i = 0; i < 1000 && !hears_both; ++i) {
    arm.publish(Box::kSensors, hello, 0);
    supervisor.publish(Box::kControl, hello, 0);
    supervisor.wait(0, bit(jmailBox(2)), MailPort::Clock::now() + std::chrono::milliseconds(10));
    while (supervisor.next(jmailBox(2), in))
      hears_both = hears_both ||
                   (in.mail().has_hello() && in.mail().hello().hears_arm() && in.mail().hello().hears_supervisor());
  }
  ASSERT_TRUE(hears_both);
  // The arm's first sensor mail, then, a while later (the joint's loop goes round meanwhile), the start.
  proto::Envelope sensors;
  sensors.mutable_sensors()->mutable_header()->set_period(0);
  arm.publish(Box::kSensors, sensors, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proto::Envelope start;
  start.mutable_start();
  supervisor.publish(Box::kControl, start, 0);
  ASSERT_EQ(joint.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(joint.get(), StartResult::kStarted);

  MailPort& port = ports.port(proto::NODE_JOINT2);
  ASSERT_TRUE(port.wait(bit(Box::kSensors), 0, MailPort::Clock::now() + std::chrono::seconds(10)));
  ASSERT_TRUE(port.latest(Box::kSensors, in));
  EXPECT_TRUE(in.mail().has_sensors() && in.mail().sensors().header().period() == 0)
      << "the arm's sensors of period 0 were consumed by the handshake";
}

// A node whose configuration disagrees is refused by name, and told why.
TEST_P(StartHandshake, TheSupervisorRefusesANodeWhoseSettingsDiffer) {
  ClusterSettings s = test::inProcessCluster(GetParam(), "handshake-refuse");
  s.config.set_startup_timeout_ms(500);
  test::PortCluster ports(s);
  ClusterSettings other = s;
  other.config.mutable_controller()->set_dt_ms(2);
  auto math = std::async(std::launch::async, [&] {
    return awaitStart(proto::NODE_MATH, other, ports.port(proto::NODE_MATH), *spdlog::default_logger());
  });
  EXPECT_FALSE(waitForNodes(s, ports.port(proto::NODE_SUPERVISOR), *spdlog::default_logger()));
  ASSERT_EQ(math.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(math.get(), StartResult::kRefused);
}

INSTANTIATE_TEST_SUITE_P(Transports, StartHandshake, ::testing::Values(proto::MT_SHARED_MEMORY, proto::MT_ZEROMQ),
                         [](const auto& i) { return std::string(test::transportName(i.param)); });

}  // namespace
}  // namespace rfms
