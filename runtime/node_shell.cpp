#include "runtime/node_shell.hpp"

#include <spdlog/async.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <CLI/CLI.hpp>

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "common/thread_role.hpp"

namespace rfms {

namespace {
std::atomic<int> g_stop_signals{0};

extern "C" void onStopSignal(int) {
  if (g_stop_signals.fetch_add(1) >= 1) std::_Exit(130);  // asked twice: leave now
}
}  // namespace

std::shared_ptr<spdlog::logger> makeNodeLogger(const std::string& node) {
  // Lines are written by spdlog's own thread: the period's thread only queues a formatted line and
  // never waits on a terminal or a file; a flood overwrites the oldest queued lines instead of
  // blocking the period.
  spdlog::init_thread_pool(8192, 1, [] { belowThePeriod("rfms-log-lines", 10); });
  auto log = spdlog::create_async_nb<spdlog::sinks::stderr_color_sink_mt>(node);
  log->set_pattern("[%H:%M:%S.%e] [%n] %^%l%$: %v");
  return log;
}

void installStopSignals() {
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
}

bool stopRequested() { return g_stop_signals.load() > 0; }

void addNodeOptions(CLI::App& app, NodeOptions& options) {
  app.add_option("--config", options.config, "cluster configuration file (proto/cluster.proto)")->required();
  app.add_option("--run-dir", options.run_dir, "run directory, for ipc endpoints written {run}")->capture_default_str();
}

void applyRealtimeSettings(const ClusterSettings& s, spdlog::logger& log, int priority_offset) {
  if (s.config.rt_priority() > 0) {
    sched_param p{};
    p.sched_priority = std::clamp(static_cast<int>(s.config.rt_priority()) + priority_offset, 1, 99);
    if (sched_setscheduler(0, SCHED_FIFO, &p) != 0)
      log.warn("real-time priority {} not permitted ({}); running at normal priority", p.sched_priority,
               std::strerror(errno));
  }
  if (s.config.lock_memory() && mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
    log.warn("cannot lock memory ({}); page faults may delay periods", std::strerror(errno));
}

proto::Hello helloFor(proto::Node node, const ClusterSettings& s) {
  proto::Hello h;
  h.set_node(node);
  h.set_robot_digest(s.robot_digest);
  h.set_scene_digest(s.scene_digest);
  h.set_clock(s.config.clock());
  *h.mutable_controller() = s.config.controller();
  return h;
}

}  // namespace rfms
