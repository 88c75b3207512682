// Every node's real shell loop — the supervisor's ClusterLoop (mail collector, run-log tap with the
// log on, fault recorders on, figures), six JointShells, the MathShell and the ArmShell — over each mail transport
// (shared memory, in-process ZeroMQ), each on a thread of its own as each is a process of its own
// in the cluster, through calibration and into a joint move: for 3000 periods of the move, with a
// request every 0.1 s moving its target, no node's period thread allocates. ZeroMQ's own copy of each message it sends
// is libzmq's allocation and is left out of the count.
#include <gtest/gtest.h>
#include <array>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "arm_sim/shell/arm_shell.hpp"
#include "common/kinematics.hpp"
#include "joint_node/shell/joint_shell.hpp"
#include "math_node/shell/math_shell.hpp"
#include "runlog/fault_recorder.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/start_handshake.hpp"
#include "supervisor/shell/cluster_loop.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/excluded_code.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// A node's allocations after each chunk of periods: (the last period it served, the count).
struct Trace {
  std::string node;
  std::vector<std::pair<std::uint64_t, long>> points;
};

// The allocations `trace` shows between the first point at or after `from` and the last at or
// before `to`, and how many points lie there.
std::pair<long, int> allocationsWithin(const Trace& trace, std::uint64_t from, std::uint64_t to) {
  const std::pair<std::uint64_t, long>*first = nullptr, *last = nullptr;
  int points = 0;
  for (const auto& p : trace.points) {
    if (p.first < from || p.first > to) continue;
    if (first == nullptr) first = &p;
    last = &p;
    ++points;
  }
  return {first != nullptr ? last->second - first->second : -1, points};
}

// Runs `chunk` (a shell's run for 50 periods) until it ends otherwise, noting the allocations
// after each. The points are reserved beforehand, so noting them allocates nothing.
void trace(Trace& t, const std::function<bool()>& chunk, const std::function<std::uint64_t()>& period) {
  t.points.reserve(100000);
  while (chunk()) t.points.emplace_back(period(), test::allocationsOnThisThread());
}

class ShellAllocation : public ::testing::TestWithParam<proto::MailTransport> {};

TEST_P(ShellAllocation, NoNodesPeriodThreadAllocatesWithTheRunLogOn) {
  ASSERT_TRUE(test::excludeCallsFrom("libzmq"));
  const RobotModel& model = test::puma260();
  const ClusterSettings s = test::inProcessCluster(GetParam(), "shell-alloc");
  const proto::ControllerSettings& settings = s.config.controller();
  spdlog::logger& log = *spdlog::default_logger();
  test::PortCluster ports(s);
  const ClockRules rules(s.config.clock());
  const auto orphan = std::chrono::milliseconds(s.config.orphan_timeout_ms());

  std::vector<Trace> traces(kAnsweringNodes.size());
  std::vector<std::thread> nodes;
  for (std::size_t n = 0; n < kAnsweringNodes.size(); ++n) {
    const proto::Node node = kAnsweringNodes[n];
    traces[n].node = nodeName(node);
    nodes.emplace_back([&, n, node] {
      MailPort& port = ports.port(node);
      if (awaitStart(node, s, port, log) != StartResult::kStarted) return;
      FaultRecorder recorder(ports.runDir().string(), nodeName(node), RunLogHeader{}, log);
      if (node == proto::NODE_ARM) {
        ArmCore core(model, armConfigFor(model, settings));
        ArmShell shell(core, s, port, log);
        shell.setFaultRecorder(&recorder);
        trace(
            traces[n], [&] { return shell.run(50) == LoopEnd::kPeriods; }, [&] { return core.period() - 1; });
      } else if (node == proto::NODE_MATH) {
        MathCore core(model, mathConfigFor(model, settings, Transform::Identity()));
        MathShell shell(core, orphan, port);
        shell.setFaultRecorder(&recorder);
        trace(
            traces[n], [&] { return shell.run(50) == LoopEnd::kPeriods; }, [&] { return shell.lastPeriod(); });
      } else {
        const int joint = node - proto::NODE_JOINT1 + 1;
        JointCore core(model, jointConfigFor(model, settings, joint));
        JointShell shell(core, joint, rules, orphan, port);
        shell.setFaultRecorder(&recorder);
        trace(
            traces[n], [&] { return shell.run(50) == LoopEnd::kPeriods; }, [&] { return shell.lastPeriod(); });
      }
    });
  }

  std::uint64_t from = 0;
  long supervisor = -1;
  {
    MailPort& port = ports.port(proto::NODE_SUPERVISOR);
    const bool ready = waitForNodes(s, port, log);
    RunLogHeader header;
    header.source = "test";
    RunLogger run_log((ports.runDir() / "run.mcap").string(), header, RunLogger::WhenFull::kWait);
    LogTap tap(&run_log, s.config.clock());
    FaultRecorder recorder(ports.runDir().string(), "supervisor", header, log);
    tap.setFaultRecorder(&recorder);
    ClusterStats stats;
    Supervisor sup(model, supervisorConfigFor(settings));
    const SupervisorCore& core = sup.core();
    ClusterLoop loop(s, sup, port, stats, tap, log);
    if (ready) {
      // Calibrate, then a joint move long enough to measure inside it.
      EXPECT_TRUE(sup.handle(test::controlRequest(proto::CC_CALIBRATE)).accepted());
      for (std::uint64_t limit = 1000; core.rtstate() != proto::RT_HOLD && limit <= 60000; limit += 1000) {
        loop.setPeriodLimit(limit);
        loop.run(nullptr, nullptr);
      }
      EXPECT_EQ(core.rtstate(), proto::RT_HOLD);
      JointVec target = core.observedAngles();
      target[0] += 0.3;
      target[2] -= 0.2;
      EXPECT_TRUE(sup.handle(test::request(test::transformDef("t", forwardKinematics(model, target)))).accepted());
      EXPECT_TRUE(
          sup.handle(test::request(test::positionDef("p", OpwIk(model).configOf(target), {"T6"}, {"t"}))).accepted());
      EXPECT_TRUE(sup.handle(test::request(test::motionDef("m", false, 8.0, 0.5, 0))).accepted());
      EXPECT_TRUE(sup.handle(test::moveRequest("p", "m")).accepted());
      loop.setPeriodLimit(loop.periods() + 500);  // the move starts (an event, logged as text)
      loop.run(nullptr, nullptr);
      EXPECT_EQ(core.rtstate(), proto::RT_SETP);

      // Every node must answer every period of the measured window, or the window would measure
      // less than a period's work. (Before it, a busy machine may have stalled a node past the
      // lockstep timeout: that is the collector's business, not this test's.)
      std::array<std::uint64_t, kNodeSlots> misses_before{};
      for (proto::Node n : kAnsweringNodes) misses_before[static_cast<std::size_t>(n)] = stats.misses(n);
      // Meanwhile a client moves the move's target every 0.1 s: the supervisor's background takes
      // those requests on its own thread, and the period applies them without allocating.
      std::vector<TaskStatement> updates;
      Transform moved = forwardKinematics(model, target);
      for (int n = 1; n <= 20; ++n) {
        moved.translation().z() += 1e-4;
        updates.push_back(TaskStatement{TaskStatement::kAt, {}, 0.1 * n, 2 * n});
        updates.push_back(
            TaskStatement{TaskStatement::kRequest, test::request(test::transformDef("t", moved)), 0.0, 2 * n + 1});
      }
      ScriptOptions options;
      options.power_up_periods = 0;
      options.calibrate = false;
      options.settle_periods = 100000;  // the period limit ends the run
      TaskScript client(updates, options);
      client.record = [&](const proto::TaskRequest& r, const proto::TaskReply& a) {
        return tap.record(r, a, false, sup.background().world());
      };
      const long before = test::allocationsOnThisThread();
      from = loop.periods();
      loop.setPeriodLimit(from + 3000);
      loop.run(&client, nullptr);
      supervisor = test::allocationsOnThisThread() - before;
      EXPECT_EQ(core.rtstate(), proto::RT_SETP);
      EXPECT_TRUE(client.log().refused.empty());
      const int t = sup.world().findTransform("t");
      ASSERT_GE(t, 0);
      EXPECT_TRUE(core.world().transform(t).isApprox(moved)) << "the last update was applied";
      for (proto::Node n : kAnsweringNodes)
        EXPECT_EQ(stats.misses(n), misses_before[static_cast<std::size_t>(n)]) << nodeName(n) << " missed a period";
      loop.setPeriodLimit(loop.periods() + 100);  // so that every node has finished its last chunk
      loop.run(nullptr, nullptr);
    }
    loop.stopCluster("test over");
    for (std::thread& t : nodes) t.join();
    run_log.finish();
    EXPECT_EQ(run_log.dropped(), 0u);
    ASSERT_TRUE(ready);
  }

  EXPECT_EQ(supervisor, 0) << "supervisor";
  for (const Trace& t : traces) {
    const auto [allocations, points] = allocationsWithin(t, from, from + 3000);
    EXPECT_GE(points, 50) << t.node;  // 3000 periods in chunks of 50: the window is covered
    EXPECT_EQ(allocations, 0) << t.node;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, ShellAllocation, ::testing::Values(proto::MT_SHARED_MEMORY, proto::MT_ZEROMQ),
                         [](const auto& i) { return std::string(test::transportName(i.param)); });

}  // namespace
}  // namespace rfms
