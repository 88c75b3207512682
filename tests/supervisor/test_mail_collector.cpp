// The supervisor's collection of a lockstep period's mail over real mail ports: how long it waits
// for what is missing. The arm's sensors late alone are waited for lockstep_timeout_ms; late
// together with a joint's J_MAIL (the joint holds the arm, which waits for every torque), the
// collector waits as long as the watchdog gives any silent node, so that a stalled joint slows the
// run instead of costing the arm its power. Only what arrives is asserted, never how long the
// wait took, so that a busy machine cannot fail the test: the late mail comes well inside the long
// wait and well after the short one.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "supervisor/shell/mail_collector.hpp"
#include "tests/support/port_cluster.hpp"

namespace rfms {
namespace {

constexpr int kTimeoutMs = 200;  // x 10 watchdog periods: a joint holding the arm gets 2 s
constexpr auto kLate = std::chrono::milliseconds(700);

ClusterSettings collectorCluster(const std::string& name) {
  ClusterSettings s = test::inProcessCluster(proto::MT_SHARED_MEMORY, name);
  s.config.set_lockstep_timeout_ms(kTimeoutMs);
  s.config.mutable_controller()->set_watchdog_periods(10);
  s.config.mutable_controller()->set_dt_ms(1.0);
  return s;
}

void sendSensors(MailPort& arm, std::uint64_t k) {
  proto::Envelope e;
  e.mutable_sensors()->mutable_header()->set_period(k);
  arm.publish(Box::kSensors, e, k);
}

void sendJMail(MailPort& joint, int j, std::uint64_t k) {
  proto::Envelope e;
  e.mutable_jmail()->set_joint(static_cast<std::uint32_t>(j));
  e.mutable_jmail()->mutable_header()->set_period(k);
  joint.publish(jmailBox(j), e, k);
}

void sendParcel(MailPort& math, std::uint64_t k) {
  proto::Envelope e;
  e.mutable_parcel()->mutable_header()->set_period(k);
  math.publish(Box::kParcel, e, k);
}

MailPort& jointPort(test::PortCluster& ports, int j) {
  return ports.port(static_cast<proto::Node>(proto::NODE_JOINT1 + j - 1));
}

// Period 0 (the arm's sensors only), then period 1's mail but for what `late` leaves out.
struct Collected {
  bool arm = false, joint3 = false;
};

Collected collectWithLate(const std::string& name, bool joint3_late) {
  const ClusterSettings s = collectorCluster(name);
  test::PortCluster ports(s);
  ClusterStats stats;
  LogTap tap(nullptr, s.config.clock());
  MailCollector collector(s, ports.port(proto::NODE_SUPERVISOR), stats, tap);
  SupervisorInbox in;
  sendSensors(ports.port(proto::NODE_ARM), 0);
  collector.collect(0, MailCollector::Clock::now(), in);
  EXPECT_NE(in.arm, nullptr);

  for (int j = 1; j <= kJoints; ++j)
    if (!(joint3_late && j == 3)) sendJMail(jointPort(ports, j), j, 0);
  sendParcel(ports.port(proto::NODE_MATH), 0);
  std::thread late([&] {
    std::this_thread::sleep_for(kLate);
    if (joint3_late) sendJMail(jointPort(ports, 3), 3, 0);
    sendSensors(ports.port(proto::NODE_ARM), 1);
  });
  collector.collect(1, MailCollector::Clock::now(), in);
  late.join();
  return {in.arm != nullptr, in.joints[2] != nullptr};
}

TEST(MailCollector, WaitsForAJointThatHoldsTheArmAsLongAsTheWatchdogWould) {
  const Collected c = collectWithLate("collector-joint", true);
  EXPECT_TRUE(c.joint3) << "joint 3's J_MAIL came after the timeout, well inside N timeouts";
  EXPECT_TRUE(c.arm) << "the sensors it held came with it";
}

TEST(MailCollector, GoesOnWithoutLateSensorsAfterOneTimeoutWhenNoJointHoldsTheArm) {
  const Collected c = collectWithLate("collector-arm", false);
  EXPECT_TRUE(c.joint3);
  EXPECT_FALSE(c.arm) << "the sensors came " << kLate.count() << " ms late, past the " << kTimeoutMs << " ms timeout";
}

}  // namespace
}  // namespace rfms
