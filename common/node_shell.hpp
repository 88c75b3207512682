// What every node process shares: its logger, its stop signals, its command line, and the
// start handshake with the supervisor.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <zmq.hpp>

#include "common/cluster_config.hpp"
#include "common/transport.hpp"

namespace CLI {
class App;
}

namespace rfms {

// A logger writing "[time] [node] level: message" to stderr.
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

enum class StartResult { kStarted, kRefused, kStopped };

// A node other than the supervisor announces itself every 20 ms until the supervisor starts the
// cluster (or refuses this node, or a stop comes). `arm_sub` is the node's subscription to the
// arm's publisher when it has one; `arm_pub` is the arm's own publisher (for the arm's hello).
StartResult awaitStart(proto::Node node, const ClusterSettings& s, zmq::socket_t& supervisor_sub,
                       zmq::socket_t& supervisor_push, zmq::socket_t* arm_sub, zmq::socket_t* arm_pub,
                       spdlog::logger& log);

}  // namespace rfms
