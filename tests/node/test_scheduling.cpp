// Which scheduling policy a node takes from its cluster file. A lockstep node without a real-time
// priority runs under the batch policy, and so do the threads it starts afterwards, ZeroMQ's I/O
// thread among them: that thread carries every message, so a policy it did not inherit would
// leave most of the period's switches as they were.
#include <gtest/gtest.h>
#include <sched.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "node/cluster_config.hpp"
#include "node/node_shell.hpp"

namespace rfms {
namespace {

struct Policies {
  int node = -1;    // the thread that applied the settings
  int zmq_io = -1;  // ZeroMQ's I/O thread, started after them
  bool found_io = false;
};

// Applies the settings in a thread of its own (a policy is a thread's, and the test's own must
// stay as it is), then starts a ZeroMQ context there and looks up its I/O thread's policy.
Policies apply(proto::ClockMode clock) {
  ClusterSettings s;
  s.config.set_clock(clock);
  s.config.set_rt_priority(0);
  s.config.set_lock_memory(false);
  spdlog::logger log("scheduling-test", std::make_shared<spdlog::sinks::null_sink_mt>());
  Policies p;
  std::thread([&] {
    applySchedulingSettings(s, log);
    p.node = sched_getscheduler(0);
    zmq::context_t context(1);
    zmq::socket_t socket(context, zmq::socket_type::pull);  // the I/O thread starts with the first socket
    const pid_t me = static_cast<pid_t>(syscall(SYS_gettid));
    // The I/O thread names itself once it runs: looked for up to 5 s.
    for (int attempt = 0; attempt < 5000 && !p.found_io; ++attempt) {
      for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        const pid_t tid = std::stoi(task.path().filename().string());
        std::string comm;
        std::getline(std::ifstream(task.path() / "comm"), comm);
        if (tid == me || comm.rfind("ZMQbg/IO", 0) != 0) continue;
        p.zmq_io = sched_getscheduler(tid);
        p.found_io = true;
      }
      if (!p.found_io) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }).join();
  return p;
}

TEST(Scheduling, ALockstepNodeAndTheThreadsItStartsRunUnderTheBatchPolicy) {
  const Policies p = apply(proto::CM_LOCKSTEP);
  EXPECT_EQ(p.node, SCHED_BATCH);
  ASSERT_TRUE(p.found_io) << "no ZeroMQ I/O thread found in /proc/self/task";
  EXPECT_EQ(p.zmq_io, SCHED_BATCH);
}

// Paced runs keep the wall clock's pace, and realtime runs their deadlines: a thread that wakes
// for its tick must not wait for another's time slice to end.
TEST(Scheduling, PacedAndRealtimeNodesKeepTheNormalPolicy) {
  for (const proto::ClockMode clock : {proto::CM_PACED, proto::CM_REALTIME}) {
    const Policies p = apply(clock);
    EXPECT_EQ(p.node, SCHED_OTHER) << proto::ClockMode_Name(clock);
    ASSERT_TRUE(p.found_io);
    EXPECT_EQ(p.zmq_io, SCHED_OTHER) << proto::ClockMode_Name(clock);
  }
}

}  // namespace
}  // namespace rfms
