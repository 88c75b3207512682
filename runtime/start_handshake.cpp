#include "runtime/start_handshake.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "common/mail_names.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kHelloEvery = std::chrono::milliseconds(20);
}  // namespace

Box helloBox(proto::Node node) {
  switch (node) {
    case proto::NODE_ARM: return Box::kSensors;
    case proto::NODE_MATH: return Box::kParcel;
    default: return jmailBox(node - proto::NODE_JOINT1 + 1);
  }
}

StartResult awaitStart(proto::Node node, const ClusterSettings& s, MailPort& port, spdlog::logger& log,
                       std::string* refusal) {
  proto::Envelope hello;
  *hello.mutable_hello() = helloFor(node, s);
  MailSlot in;
  const bool joint = node >= proto::NODE_JOINT1 && node <= proto::NODE_JOINT6;
  auto last = Clock::now() - std::chrono::seconds(1);
  while (!stopRequested()) {
    if (Clock::now() - last >= kHelloEvery) {
      if (const std::string why = port.refusal(); !why.empty()) {
        log.error("{}", why);
        if (refusal != nullptr) *refusal = why;
        return StartResult::kRefused;
      }
      last = Clock::now();
      port.publish(helloBox(node), hello, 0);
    }
    while (port.next(Box::kControl, in)) {
      const proto::Envelope& e = in.mail();
      if (e.has_hello()) hello.mutable_hello()->set_hears_supervisor(true);
      if (e.has_start()) return StartResult::kStarted;
      if (e.has_stop()) return StartResult::kStopped;
      if (e.has_refuse() && e.refuse().node() == node) {
        log.error("refused by the supervisor: {}", e.refuse().reason());
        if (refusal != nullptr) *refusal = e.refuse().reason();
        return StartResult::kRefused;
      }
    }
    // Once the arm is heard, its mail is left for the node's loop: the arm may take the start and
    // publish its sensors of period 0 before this node reads the start, and a joint that read
    // them here could not answer period 0.
    const bool listen_to_arm = joint && !hello.hello().hears_arm();
    if (listen_to_arm)
      while (port.next(Box::kSensors, in))
        if (in.mail().has_hello()) hello.mutable_hello()->set_hears_arm(true);
    port.wait(0, bit(Box::kControl) | (listen_to_arm ? bit(Box::kSensors) : 0), last + kHelloEvery);
  }
  return StartResult::kStopped;
}

bool waitForNodes(const ClusterSettings& s, MailPort& port, spdlog::logger& log) {
  proto::Envelope hello, refuse;
  *hello.mutable_hello() = helloFor(proto::NODE_SUPERVISOR, s);
  MailSlot in;
  std::array<bool, kNodeSlots> ready{};
  bool hears_arm = false;
  const auto deadline = Clock::now() + std::chrono::milliseconds(s.config.startup_timeout_ms());
  auto last = Clock::now() - std::chrono::seconds(1);
  BoxSet hellos = bit(Box::kSensors) | bit(Box::kParcel) | kAllJMail;
  log.info("waiting for 8 nodes ({} ms; mail over {})", s.config.startup_timeout_ms(), port.describe());
  auto take = [&](const proto::Hello& h) {
    const auto n = static_cast<std::size_t>(h.node());
    if (n >= ready.size() || ready[n]) return;
    const std::string why = disagreement(hello.hello(), h);
    if (!why.empty()) {
      log.error("refused {}: {}", nodeName(h.node()), why);
      refuse.mutable_refuse()->set_node(h.node());
      refuse.mutable_refuse()->set_reason(why);
      port.publish(Box::kControl, refuse, 0);
      return;
    }
    const bool is_joint = h.node() >= proto::NODE_JOINT1 && h.node() <= proto::NODE_JOINT6;
    if (h.hears_supervisor() && (!is_joint || h.hears_arm())) {
      ready[n] = true;
      log.info("{} ready", nodeName(h.node()));
    }
  };
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
      port.publish(Box::kControl, stop, 0);
      return false;
    }
    if (Clock::now() - last >= kHelloEvery) {
      if (const std::string why = port.refusal(); !why.empty()) {
        log.error("{}", why);
        return false;
      }
      last = Clock::now();
      port.publish(Box::kControl, hello, 0);
    }
    for (int i = 0; i < kBoxCount; ++i) {
      const Box b = static_cast<Box>(i);
      if ((hellos & bit(b)) == 0) continue;
      while (port.next(b, in)) {
        if (!in.mail().has_hello()) continue;
        if (b == Box::kSensors) hears_arm = true;
        take(in.mail().hello());
      }
    }
    port.wait(0, hellos, last + kHelloEvery);
  }
  if (stopRequested()) return false;
  proto::Envelope start;
  start.mutable_start();
  port.publish(Box::kControl, start, 0);
  log.info("ready: all nodes; {} at {} ms", clockName(s.config.clock()), s.config.controller().dt_ms());
  return true;
}

}  // namespace rfms
