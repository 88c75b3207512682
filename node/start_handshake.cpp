#include "node/start_handshake.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "common/mail_names.hpp"
#include "node/node_shell.hpp"
#include "node/transport.hpp"

namespace rfms {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

StartResult awaitStart(proto::Node node, const ClusterSettings& s, zmq::socket_t& supervisor_sub,
                       zmq::socket_t& supervisor_push, zmq::socket_t* arm_sub, zmq::socket_t* arm_pub,
                       Transport& transport, spdlog::logger& log) {
  proto::Envelope hello, in;
  *hello.mutable_hello() = helloFor(node, s);
  std::string buffer;
  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  while (!stopRequested()) {
    if (std::chrono::steady_clock::now() - last >= std::chrono::milliseconds(20)) {
      if (const std::string why = transport.refusal(); !why.empty()) {
        log.error("{}", why);
        return StartResult::kRefused;
      }
      last = std::chrono::steady_clock::now();
      if (arm_pub != nullptr) send(*arm_pub, kTopicControl, hello, buffer);
      send(supervisor_push, kTopicControl, hello, buffer);
    }
    while (receive(supervisor_sub, in, 0)) {
      if (in.has_hello()) hello.mutable_hello()->set_hears_supervisor(true);
      if (in.has_start()) return StartResult::kStarted;
      if (in.has_stop()) return StartResult::kStopped;
      if (in.has_refuse() && in.refuse().node() == node) {
        log.error("refused by the supervisor: {}", in.refuse().reason());
        return StartResult::kRefused;
      }
    }
    // Once the arm is heard, its mail is left for the node's loop: the arm may take the start and
    // publish its sensors of period 0 before this node reads the start, and a joint that drained
    // them here could not answer period 0 (the supervisor would wait out lockstep_timeout_ms).
    if (arm_sub != nullptr && !hello.hello().hears_arm()) {
      while (receive(*arm_sub, in, 0))
        if (in.has_hello()) hello.mutable_hello()->set_hears_arm(true);
    }
    pollAny({&supervisor_sub}, 5);
  }
  return StartResult::kStopped;
}

bool waitForNodes(const ClusterSettings& s, zmq::socket_t& pub, zmq::socket_t& pull, zmq::socket_t& arm,
                  Transport& transport, spdlog::logger& log) {
  proto::Envelope hello, in, refuse;
  *hello.mutable_hello() = helloFor(proto::NODE_SUPERVISOR, s);
  std::array<bool, kNodeSlots> ready{};
  bool hears_arm = false;
  std::string buffer;
  const auto deadline = Clock::now() + std::chrono::milliseconds(s.config.startup_timeout_ms());
  auto last = Clock::now() - std::chrono::seconds(1);
  log.info("waiting for 8 nodes on {} ({} ms)", s.config.supervisor_pull(), s.config.startup_timeout_ms());
  while (!stopRequested()) {
    const bool all = hears_arm && std::all_of(kAnsweringNodes.begin(), kAnsweringNodes.end(),
                                              [&](proto::Node n) { return ready[static_cast<std::size_t>(n)]; });
    if (all) break;
    if (Clock::now() > deadline) {
      std::string missing;
      for (proto::Node n : kAnsweringNodes)
        if (!ready[static_cast<std::size_t>(n)]) missing += std::string(missing.empty() ? "" : ", ") + nodeName(n);
      if (!hears_arm) missing += std::string(missing.empty() ? "" : ", ") + "the arm's publisher";
      log.error("not ready after {} ms: {}", s.config.startup_timeout_ms(), missing);
      proto::Envelope stop;
      stop.mutable_stop()->set_reason("the cluster did not start");
      send(pub, kTopicControl, stop, buffer);
      return false;
    }
    if (Clock::now() - last >= std::chrono::milliseconds(20)) {
      if (const std::string why = transport.refusal(); !why.empty()) {
        log.error("{}", why);
        return false;
      }
      last = Clock::now();
      send(pub, kTopicControl, hello, buffer);
    }
    while (receive(arm, in, 0))
      if (in.has_hello()) hears_arm = true;
    while (receive(pull, in, 0)) {
      if (!in.has_hello()) continue;
      const proto::Hello& h = in.hello();
      const auto n = static_cast<std::size_t>(h.node());
      if (n >= ready.size() || ready[n]) continue;
      const std::string why = disagreement(hello.hello(), h);
      if (!why.empty()) {
        log.error("refused {}: {}", nodeName(h.node()), why);
        refuse.mutable_refuse()->set_node(h.node());
        refuse.mutable_refuse()->set_reason(why);
        send(pub, kTopicControl, refuse, buffer);
        continue;
      }
      const bool is_joint = h.node() >= proto::NODE_JOINT1 && h.node() <= proto::NODE_JOINT6;
      if (h.hears_supervisor() && (!is_joint || h.hears_arm())) {
        ready[n] = true;
        log.info("{} ready", nodeName(h.node()));
      }
    }
    pollAny({&pull, &arm}, 5);
  }
  if (stopRequested()) return false;
  proto::Envelope start;
  start.mutable_start();
  send(pub, kTopicControl, start, buffer);
  log.info("ready: all nodes; {} at {} ms", clockName(s.config.clock()), s.config.controller().dt_ms());
  return true;
}

}  // namespace rfms
