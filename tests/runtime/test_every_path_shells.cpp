// The randomised every-path task (tests/support/random_task.hpp) through every node's real shell
// loop, each node on a thread of its own as each is a process of its own in the cluster, over each
// mail transport, with the default scene's table and sixteen remote clients watching signals
// through the supervisor's task endpoint. From the first period after the mail reached its sizes
// to the emergency stop that ends the task, each period thread — the supervisor's, six joints',
// the math server's and the arm's — makes no allocation, takes no lock, and makes no system call
// but the transport's wait and wake and the clock's: counted per thread by a seccomp listener
// (tests/support/syscall_watch.hpp), as `strace -f -c` counts per process. ZeroMQ's copy of each
// message it sends is libzmq's allocation, under libzmq's mutex: both are left out of the count.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "arm_sim/shell/arm_shell.hpp"
#include "common/scene.hpp"
#include "common/task_file.hpp"
#include "harness/watch_load.hpp"
#include "joint_node/shell/joint_shell.hpp"
#include "math_node/shell/math_shell.hpp"
#include "runlog/fault_recorder.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/start_handshake.hpp"
#include "supervisor/shell/cluster_loop.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/excluded_code.hpp"
#include "tests/support/lock_counter.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/random_task.hpp"
#include "tests/support/syscall_watch.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// What a period thread may ask the kernel for (`zeromq`: and what libzmq asks for on its behalf:
// getpid, its check for a fork at every receive, and mprotect, the heap growing for its own copies
// of the messages): waiting for mail or for the background (futex,
// poll; sched_yield is std::atomic::wait's, which yields a few times before it sleeps on its
// futex), waking another thread (futex, an eventfd), reading the clock and sleeping to a tick.
bool waitWakeOrClock(const std::string& call, bool zeromq) {
  if (zeromq && (call == "getpid" || call == "mprotect")) return true;
  for (const char* allowed : {"futex", "sched_yield", "poll", "ppoll", "epoll_wait", "epoll_pwait", "read eventfd",
                              "write eventfd", "clock_gettime", "clock_nanosleep", "nanosleep"})
    if (call == allowed) return true;
  return false;
}

// One period thread's tally over the measured periods.
struct Tally {
  std::string node;
  int slot = -1;
  long allocations = 0, locks = 0;
  bool measured = false;
};

// Sixteen remote clients each watch sixteen signals (harness/watch_load.hpp's heaviest load).
void sendWatches(zmq::socket_t& client) {
  for (std::uint64_t session = 1; session <= RemoteDesk::kMaxWatches; ++session) {
    proto::Envelope e;
    *e.mutable_task_request() = watchEverythingRequest(session, 1000.0);
    const std::string bytes = e.SerializeAsString();
    client.send(zmq::buffer(bytes), zmq::send_flags::none);
  }
}

// Runs `chunk` (a shell's run for 20 periods) until the shell ends otherwise, and counts while its
// periods lie in [from, to): allocations, locks and (through `watch`) system calls.
void runMeasured(Tally& t, test::SyscallWatch& watch, const std::atomic<std::uint64_t>& from,
                 const std::atomic<std::uint64_t>& to, const std::function<bool()>& chunk,
                 const std::function<std::uint64_t()>& period) {
  long allocations0 = 0, locks0 = 0;
  bool on = false;
  auto stop = [&] {
    if (t.slot >= 0) watch.counting(t.slot, false);
    t.allocations = test::allocationsOnThisThread() - allocations0;
    t.locks = test::locksOnThisThread() - locks0;
    on = false;
  };
  while (chunk()) {
    const std::uint64_t k = period();
    if (!on && !t.measured && k >= from.load() && k < to.load()) {
      on = t.measured = true;
      allocations0 = test::allocationsOnThisThread();
      locks0 = test::locksOnThisThread();
      if (t.slot >= 0) watch.counting(t.slot, true);
    } else if (on && k >= to.load()) {
      stop();
    }
  }
  if (on) stop();
}

class EveryPathShells : public ::testing::TestWithParam<proto::MailTransport> {};

TEST_P(EveryPathShells, NoPeriodThreadAllocatesLocksOrCallsTheKernelButToWaitWakeOrReadTheClock) {
  ASSERT_TRUE(test::excludeCallsFrom("libzmq"));
  const Scene scene = loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/table.textproto");
  const RobotModel model = withTool(test::puma260(), scene.tool);
  const ClusterSettings s =
      test::inProcessCluster(GetParam(), std::string("every-path-") + test::transportName(GetParam()));
  const proto::ControllerSettings& settings = s.config.controller();
  spdlog::logger& log = *spdlog::default_logger();
  const test::RandomTask task = test::randomTask(7, 10);  // each kind of episode once
  test::SyscallWatch watch;                               // outlives every thread it watches
  test::PortCluster ports(s);
  const ClockRules rules(s.config.clock());
  const auto orphan = std::chrono::milliseconds(s.config.orphan_timeout_ms());
  zmq::context_t zmq_context;

  std::atomic<std::uint64_t> from{~0ull}, to{~0ull};
  std::vector<Tally> tallies(kClusterNodes.size());
  std::vector<std::string> refused_filters;
  std::mutex refused_mutex;  // the threads' setup only, before anything is measured
  auto watchMe = [&](Tally& t, const char* name) {
    std::string why;
    t.node = name;
    t.slot = watch.watchThisThread(name, &why);
    if (t.slot < 0) {
      std::lock_guard lock(refused_mutex);
      refused_filters.push_back(std::string(name) + ": " + why);
    }
  };

  std::vector<std::thread> nodes;
  for (std::size_t n = 0; n < kAnsweringNodes.size(); ++n) {
    const proto::Node node = kAnsweringNodes[n];
    Tally* tally = &tallies[n + 1];
    nodes.emplace_back([&, node, tally] {
      Tally& t = *tally;
      watchMe(t, nodeName(node));
      MailPort& port = ports.port(node);
      if (awaitStart(node, s, port, log) != StartResult::kStarted) return;
      FaultRecorder recorder(ports.runDir().string(), nodeName(node), RunLogHeader{}, log);
      if (node == proto::NODE_ARM) {
        ArmCore core(model, armConfigFor(model, settings, scene));
        ArmShell shell(core, s, port, log);
        shell.setFaultRecorder(&recorder);
        runMeasured(
            t, watch, from, to, [&] { return shell.run(20) == LoopEnd::kPeriods; }, [&] { return core.period() - 1; });
      } else if (node == proto::NODE_MATH) {
        MathCore core(model, mathConfigFor(model, settings, scene.tool.frame));
        MathShell shell(core, orphan, port);
        shell.setFaultRecorder(&recorder);
        runMeasured(
            t, watch, from, to, [&] { return shell.run(20) == LoopEnd::kPeriods; }, [&] { return shell.lastPeriod(); });
      } else {
        const int joint = node - proto::NODE_JOINT1 + 1;
        JointCore core(model, jointConfigFor(model, settings, joint));
        JointShell shell(core, joint, rules, orphan, port);
        shell.setFaultRecorder(&recorder);
        runMeasured(
            t, watch, from, to, [&] { return shell.run(20) == LoopEnd::kPeriods; }, [&] { return shell.lastPeriod(); });
      }
    });
  }

  // The supervisor on a thread of its own too: the filter stays with a thread until it ends.
  ScriptLog script_log;
  bool ready = false;
  int watch_replies = 0;
  std::thread supervisor([&] {
    Tally& t = tallies[0];
    watchMe(t, "supervisor");
    MailPort& port = ports.port(proto::NODE_SUPERVISOR);
    ready = waitForNodes(s, port, log);
    RunLogHeader header;
    header.source = "test";
    RunLogger run_log((ports.runDir() / "run.mcap").string(), header, RunLogger::WhenFull::kWait);
    LogTap tap(&run_log, s.config.clock());
    FaultRecorder recorder(ports.runDir().string(), "supervisor", header, log);
    tap.setFaultRecorder(&recorder);
    ClusterStats stats;
    Supervisor sup(model, supervisorConfigFor(settings, scene));
    ClusterLoop loop(s, sup, port, stats, tap, log);
    RemoteDesk desk(model, supervisorConfigFor(settings, scene));
    zmq::socket_t endpoint(zmq_context, zmq::socket_type::router), client(zmq_context, zmq::socket_type::dealer);
    endpoint.bind("inproc://every-path-tasks");
    client.connect("inproc://every-path-tasks");
    RemotePort remote(endpoint, desk, tap, log);
    loop.setRemotePort(&remote);
    if (ready) {
      sendWatches(client);
      loop.setPeriodLimit(300);  // the mail's fields reach their sizes; the watches are taken
      loop.run(nullptr, nullptr);
      loop.setPeriodLimit(0);
      ScriptOptions options;
      options.settle_periods = 300;
      TaskScript script(parseTaskFile(task.text, "random"), options);
      script.record = [&](const proto::TaskRequest& r, const proto::TaskReply& a) {
        return tap.record(r, a, false, sup.background().world());
      };
      // The nodes' stretch ends within the periods the script settles for after the emergency.
      script.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply&) {
        if (r.control().command() == proto::CC_EMERGENCY_STOP) to = k + options.settle_periods / 2;
      };
      from = loop.periods();
      const long allocations0 = test::allocationsOnThisThread(), locks0 = test::locksOnThisThread();
      if (t.slot >= 0) watch.counting(t.slot, true);
      loop.run(&script, nullptr);
      if (t.slot >= 0) watch.counting(t.slot, false);
      t.allocations = test::allocationsOnThisThread() - allocations0;
      t.locks = test::locksOnThisThread() - locks0;
      t.measured = true;
      script_log = script.log();
      for (zmq::message_t reply; client.recv(reply, zmq::recv_flags::dontwait);) {
        proto::Envelope e;
        watch_replies += e.ParseFromArray(reply.data(), static_cast<int>(reply.size())) && e.task_reply().accepted();
      }
    }
    loop.stopCluster("test over");
    run_log.finish();
  });
  supervisor.join();
  for (std::thread& t : nodes) t.join();
  ASSERT_TRUE(ready);
  ASSERT_TRUE(refused_filters.empty()) << refused_filters.front();

  // The task went where it was drawn to go.
  int guarded = 0, forced = 0;
  for (const MoveRecord& m : script_log.moves) guarded += m.guarded, forced += m.force.has_value();
  auto entered = [&](proto::RtState st) {
    return std::find(script_log.states.begin(), script_log.states.end(), st) != script_log.states.end();
  };
  std::printf(
      "%s: periods %llu .. %llu (the supervisor's to the end of the task), %d requests (%zu refused), %zu moves (%d "
      "guarded, %d under force), "
      "%d watches\n",
      test::transportName(GetParam()), static_cast<unsigned long long>(from.load()),
      static_cast<unsigned long long>(to.load()), task.requests, script_log.refused.size(), script_log.moves.size(),
      guarded, forced, watch_replies);
  EXPECT_TRUE(script_log.calibrated);
  EXPECT_TRUE(script_log.emergency);
  EXPECT_GE(guarded, 1);
  EXPECT_GE(forced, 2);
  EXPECT_TRUE(entered(proto::RT_MANU) && entered(proto::RT_STOP)) << "jogged and stopped";
  EXPECT_EQ(watch_replies, static_cast<int>(RemoteDesk::kMaxWatches));

  for (const Tally& t : tallies) {
    std::string calls;
    bool only_allowed = true;
    for (const auto& [call, count] : watch.calls(t.slot)) {
      calls += " " + call + " " + std::to_string(count);
      only_allowed = only_allowed && waitWakeOrClock(call, GetParam() == proto::MT_ZEROMQ);
    }
    std::printf("  %-10s allocations %ld, locks %ld, system calls:%s\n", t.node.c_str(), t.allocations, t.locks,
                calls.c_str());
    EXPECT_TRUE(t.measured) << t.node;
    EXPECT_EQ(t.allocations, 0) << t.node;
    EXPECT_EQ(t.locks, 0) << t.node;
    EXPECT_TRUE(only_allowed) << t.node << ":" << calls;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, EveryPathShells, ::testing::Values(proto::MT_SHARED_MEMORY, proto::MT_ZEROMQ),
                         [](const auto& i) { return std::string(test::transportName(i.param)); });

}  // namespace
}  // namespace rfms
