// The supervisor's real shell loop (ClusterLoop: mail collector, run-log tap, figures, sending)
// over in-process ZeroMQ, answered by the real joint, math and arm cores on a second thread, for
// thousands of periods of a move with the run log on: its thread must not allocate. ZeroMQ's own
// copy of each message it sends is libzmq's allocation and is left out of the count.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include "arm_sim/arm_core.hpp"
#include "common/kinematics.hpp"
#include "joint_node/joint_core.hpp"
#include "math_node/math_core.hpp"
#include "node/node_shell.hpp"
#include "node/start_handshake.hpp"
#include "node/transport.hpp"
#include "runlog/run_logger.hpp"
#include "supervisor/shell/cluster_loop.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

ClusterSettings inprocCluster() {
  ClusterSettings s;
  proto::ClusterConfig& c = s.config;
  c.set_clock(proto::CM_LOCKSTEP);
  c.set_lockstep_timeout_ms(5000);  // a loaded machine must not turn into missed mail
  c.set_startup_timeout_ms(10000);
  c.set_supervisor_pub("inproc://supervisor.pub");
  c.set_supervisor_pull("inproc://supervisor.pull");
  c.set_arm_pub("inproc://arm.pub");
  c.set_arm_pull("inproc://arm.pull");
  c.mutable_controller()->set_watchdog_periods(1000);
  s.robot_digest = "test";
  return s;
}

// The other eight nodes in one thread: they announce themselves, then answer each S_MAIL and
// M_MAIL as the harness wires the cores, until told to stop.
class Peers {
 public:
  Peers(const ClusterSettings& s, Transport& t, const RobotModel& model)
      : s_(s),
        arm_pub_(t.bindPublisher(s.config.arm_pub())),
        sub_(t.connectSubscriber(s.config.supervisor_pub(), {kTopicSMail, kTopicMMail, kTopicControl})),
        push_(t.connectPush(s.config.supervisor_pull())),
        math_(model, mathConfigFor(model, s.config.controller())),
        arm_(model, armConfigFor(model, s.config.controller())) {
    for (int j = 0; j < kJoints; ++j)
      joints_[static_cast<std::size_t>(j)] =
          std::make_unique<JointCore>(model, jointConfigFor(model, s.config.controller(), j + 1));
  }

  void run(const std::atomic<bool>& stop) {
    if (!announce(stop)) return;
    proto::Envelope sensors, jmail, parcel;
    std::array<proto::TorqueCommand, kJoints> torque;
    std::string buffer;
    MailSlot in;
    while (!stop) {
      arm_.sense(*sensors.mutable_sensors());
      send(arm_pub_, kTopicArm, sensors, buffer);
      bool have_smail = false, have_mmail = false;
      while (!(have_smail && have_mmail) && !stop) {
        if (!receive(sub_, in, 20)) continue;
        const proto::Envelope& e = in.mail();
        if (e.has_mmail()) {
          math_.step(e.mmail(), *parcel.mutable_parcel());
          send(push_, kTopicControl, parcel, buffer);
          have_mmail = true;
        } else if (e.has_smail()) {
          std::array<const proto::TorqueCommand*, kJoints> commands{};
          for (std::size_t j = 0; j < kJoints; ++j) {
            joints_[j]->step(e.smail(), sensors.sensors(), *jmail.mutable_jmail(), torque[j]);
            send(push_, kTopicControl, jmail, buffer);
            commands[j] = &torque[j];
          }
          arm_.step(commands);
          have_smail = true;
        }
      }
    }
  }

 private:
  // Every node's hello until the supervisor starts the cluster (node/start_handshake.hpp).
  bool announce(const std::atomic<bool>& stop) {
    std::string buffer;
    proto::Envelope hello, in;
    bool heard = false;
    while (!stop) {
      for (proto::Node n : kAnsweringNodes) {
        *hello.mutable_hello() = helloFor(n, s_);
        hello.mutable_hello()->set_hears_supervisor(heard);
        hello.mutable_hello()->set_hears_arm(true);
        send(n == proto::NODE_ARM ? arm_pub_ : push_, kTopicControl, hello, buffer);
        if (n == proto::NODE_ARM) send(push_, kTopicControl, hello, buffer);
      }
      while (receive(sub_, in, 0)) {
        if (in.has_hello()) heard = true;
        if (in.has_start()) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  const ClusterSettings& s_;
  zmq::socket_t arm_pub_, sub_, push_;
  MathCore math_;
  std::array<std::unique_ptr<JointCore>, kJoints> joints_;
  ArmCore arm_;
};

TEST(ShellAllocation, TheSupervisorsPeriodLoopAllocatesNothingWithTheRunLogOn) {
  ASSERT_TRUE(test::excludeAllocationsFrom("libzmq"));
  const RobotModel& model = test::puma260();
  const ClusterSettings s = inprocCluster();
  Transport transport;
  zmq::socket_t pub = transport.bindPublisher(s.config.supervisor_pub());
  zmq::socket_t pull = transport.bindPull(s.config.supervisor_pull());
  Peers peers(s, transport, model);
  zmq::socket_t arm = transport.connectSubscriber(s.config.arm_pub(), {kTopicArm, kTopicTorques, kTopicControl});
  std::atomic<bool> stop{false};
  std::thread peer_thread([&] { peers.run(stop); });
  auto log = spdlog::default_logger();

  char dir[] = "/tmp/rfms-shell-alloc-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  {
    ASSERT_TRUE(waitForNodes(s, pub, pull, arm, *log));
    RunLogHeader header;
    header.source = "test";
    RunLogger run_log(std::string(dir) + "/run.mcap", header, RunLogger::WhenFull::kWait);
    LogTap tap(&run_log, s.config.clock());
    ClusterStats stats;
    SupervisorCore core(model, supervisorConfigFor(s.config.controller()));
    ClusterLoop loop(s, core, pub, pull, arm, stats, tap, *log);
    // Calibrate, then a joint move long enough to measure inside it.
    ASSERT_TRUE(core.handle(test::controlRequest(proto::CC_CALIBRATE)).accepted());
    for (std::uint64_t limit = 1000; core.rtstate() != proto::RT_HOLD && limit <= 60000; limit += 1000) {
      loop.setPeriodLimit(limit);
      loop.run(nullptr, nullptr);
    }
    ASSERT_EQ(core.rtstate(), proto::RT_HOLD);
    JointVec target = core.observedAngles();
    target[0] += 0.3;
    target[2] -= 0.2;
    ASSERT_TRUE(core.handle(test::request(test::transformDef("t", forwardKinematics(model, target)))).accepted());
    ASSERT_TRUE(core.handle(test::request(test::positionDef("p", PumaIk(model).configOf(target), {"T6"}, {"t"})))
                    .accepted());
    ASSERT_TRUE(core.handle(test::request(test::motionDef("m", false, 8.0, 0.5, 0))).accepted());
    ASSERT_TRUE(core.handle(test::moveRequest("p", "m")).accepted());
    loop.setPeriodLimit(loop.periods() + 500);  // the move starts (an event, logged as text)
    loop.run(nullptr, nullptr);
    ASSERT_EQ(core.rtstate(), proto::RT_SETP);

    const long before = test::allocationsOnThisThread();
    const std::uint64_t from = loop.periods();
    loop.setPeriodLimit(from + 3000);
    loop.run(nullptr, nullptr);
    EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
    EXPECT_EQ(loop.periods(), from + 3000);
    EXPECT_EQ(core.rtstate(), proto::RT_SETP);
    for (proto::Node n : kAnsweringNodes) EXPECT_EQ(stats.misses(n), 0u) << nodeName(n);
    stop = true;
    peer_thread.join();
    run_log.finish();
    EXPECT_EQ(run_log.dropped(), 0u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rfms
