// What every node process shares: its logger, its stop signals, its command line, its hello and
// its real-time settings. The start handshake is runtime/start_handshake.hpp.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <zmq.hpp>

#include "runtime/cluster_config.hpp"
#include "runtime/transport.hpp"

namespace CLI {
class App;
}

namespace rfms {

// A logger writing "[time] [node] level: message" to stderr from a thread of its own (call
// spdlog::shutdown() before leaving main, so that what is queued is written).
std::shared_ptr<spdlog::logger> makeNodeLogger(const std::string& node);

// SIGINT and SIGTERM set a flag the loops poll; a second one exits at once.
void installStopSignals();
bool stopRequested();

// --config FILE (required) and --run-dir DIR (default: the current directory), shared by all nodes.
struct NodeOptions {
  std::string config;
  std::string run_dir = ".";
};
void addNodeOptions(CLI::App& app, NodeOptions& options);

proto::Hello helloFor(proto::Node node, const ClusterSettings& s);

// Applies the configuration's real-time settings (FIFO priority, locked memory) to this process;
// where the system refuses, logs one warning naming what was refused and carries on. The
// supervisor, the clock, runs one step above the nodes it waits for (priority_offset 1).
void applyRealtimeSettings(const ClusterSettings& s, spdlog::logger& log, int priority_offset = 0);

}  // namespace rfms
