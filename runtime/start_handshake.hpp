// The start handshake. Every node announces itself (its robot model, controller settings and
// clock) until the supervisor has heard all eight, has refused any whose configuration differs,
// and the joints hear the arm; then the supervisor sends Start. Over ZeroMQ this is what keeps
// period 0's mail from being lost to a subscription not yet made; over shared memory it is the
// agreement on the configuration. A peer that refuses this node's key (runtime/curve_guard.hpp) ends
// the wait at once, with the reason.
#pragma once

#include <spdlog/spdlog.h>

#include "runtime/cluster_config.hpp"
#include "runtime/mail_port.hpp"

namespace rfms {

enum class StartResult { kStarted, kRefused, kStopped };

// The box a node's hello goes in: the one it writes to the supervisor (the arm's sensors, which
// the joints read too).
Box helloBox(proto::Node node);

// A node other than the supervisor announces itself every 20 ms until the supervisor starts the
// cluster (or refuses this node, or a stop comes). `refusal`, if given, receives why it was refused.
StartResult awaitStart(proto::Node node, const ClusterSettings& s, MailPort& port, spdlog::logger& log,
                       std::string* refusal = nullptr);

// Announces the supervisor and waits until the arm, the math server and the six joints are ready
// and agree with its configuration; refuses those that disagree. False (with one clear log line)
// when the startup timeout passes or a stop signal comes.
bool waitForNodes(const ClusterSettings& s, MailPort& port, spdlog::logger& log);

}  // namespace rfms
