// The start handshake. Every node announces itself (its robot model, controller settings and
// clock) until the supervisor has heard all eight, has refused any whose configuration differs,
// and the joints hear the arm; then the supervisor sends Start, so that no mail of period 0 is
// lost to ZeroMQ's subscription delay. A peer that refuses this node's key (node/curve_guard.hpp)
// ends the wait at once, with the reason.
#pragma once

#include <spdlog/spdlog.h>

#include <zmq.hpp>

#include "node/cluster_config.hpp"
#include "node/transport.hpp"

namespace rfms {

enum class StartResult { kStarted, kRefused, kStopped };

// A node other than the supervisor announces itself every 20 ms until the supervisor starts the
// cluster (or refuses this node, or a stop comes). `arm_sub` is the node's subscription to the
// arm's publisher when it has one; `arm_pub` is the arm's own publisher (for the arm's hello).
StartResult awaitStart(proto::Node node, const ClusterSettings& s, zmq::socket_t& supervisor_sub,
                       zmq::socket_t& supervisor_push, zmq::socket_t* arm_sub, zmq::socket_t* arm_pub,
                       Transport& transport, spdlog::logger& log);

// Announces the supervisor and waits until the arm, the math server and the six joints are ready
// and agree with its configuration; refuses those that disagree. False (with one clear log line)
// when the startup timeout passes or a stop signal comes.
bool waitForNodes(const ClusterSettings& s, zmq::socket_t& pub, zmq::socket_t& pull, zmq::socket_t& arm,
                  Transport& transport, spdlog::logger& log);

}  // namespace rfms
