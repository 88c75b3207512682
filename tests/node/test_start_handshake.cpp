// The start handshake on in-process sockets, with the supervisor's and the arm's side played by
// the test.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "node/start_handshake.hpp"
#include "node/transport.hpp"

namespace rfms {
namespace {

// The arm may take the start and publish its sensors of period 0 before a joint has read the
// start: the joint must still find them afterwards (it used to drain them in the handshake, and
// could not answer period 0).
TEST(StartHandshake, AJointKeepsTheArmsFirstSensorMailThatCameBeforeTheStart) {
  ClusterSettings s;
  s.robot_digest = "test";
  s.config.set_clock(proto::CM_LOCKSTEP);
  Transport transport;
  zmq::socket_t supervisor_pub = transport.bindPublisher("inproc://handshake.supervisor.pub");
  zmq::socket_t supervisor_pull = transport.bindPull("inproc://handshake.supervisor.pull");
  zmq::socket_t arm_pub = transport.bindPublisher("inproc://handshake.arm.pub");
  zmq::socket_t joint_sub =
      transport.connectSubscriber("inproc://handshake.supervisor.pub", {kTopicSMail, kTopicControl});
  zmq::socket_t joint_push = transport.connectPush("inproc://handshake.supervisor.pull");
  zmq::socket_t joint_arm = transport.connectSubscriber("inproc://handshake.arm.pub", {kTopicArm, kTopicControl});

  auto joint = std::async(std::launch::async, [&] {
    return awaitStart(proto::NODE_JOINT2, s, joint_sub, joint_push, &joint_arm, nullptr, transport, *spdlog::default_logger());
  });
  proto::Envelope hello, in;
  hello.mutable_hello()->set_node(proto::NODE_ARM);
  std::string buffer;
  // Hellos both ways until the joint says it hears the arm (each every 10 ms, up to 10 s).
  bool hears_arm = false;
  for (int i = 0; i < 1000 && !hears_arm; ++i) {
    send(arm_pub, kTopicControl, hello, buffer);
    send(supervisor_pub, kTopicControl, hello, buffer);
    while (receive(supervisor_pull, in, 0)) hears_arm = hears_arm || (in.has_hello() && in.hello().hears_arm());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(hears_arm);
  // The arm's first sensor mail, then, a while later (the joint's loop goes round meanwhile), the start.
  proto::Envelope sensors;
  sensors.mutable_sensors()->mutable_header()->set_period(0);
  send(arm_pub, kTopicArm, sensors, buffer);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proto::Envelope start;
  start.mutable_start();
  send(supervisor_pub, kTopicControl, start, buffer);
  ASSERT_EQ(joint.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(joint.get(), StartResult::kStarted);

  bool found = false;
  while (!found && receive(joint_arm, in, 100)) found = in.has_sensors() && in.sensors().header().period() == 0;
  EXPECT_TRUE(found) << "the arm's sensors of period 0 were consumed by the handshake";
}

}  // namespace
}  // namespace rfms
