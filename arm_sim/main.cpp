// rfms-arm: the emulated arm as a cluster node. It publishes its sensor mail for period k, then
// integrates [k, k+1] with the six joints' torque commands. Lockstep: it waits (up to half the
// configured timeout) for all six commands of period k; a missing one counts as no power.
// Realtime: it ticks on the wall clock with the latest commands. After each period it reports the
// commands it received and applied, for the supervisor's run log.
#include <algorithm>
#include <chrono>
#include <thread>

#include "arm_sim/arm_core.hpp"
#include "node/mail_wait.hpp"
#include "node/node_main.hpp"
#include "node/start_handshake.hpp"

namespace {

using namespace rfms;

class ArmShell {
 public:
  ArmShell(NodeContext& c, zmq::socket_t& pub, zmq::socket_t& pull, zmq::socket_t& sub)
      : c_(c),
        arm_(c.model, armConfigFor(c.model, c.controller())),
        pub_(pub),
        pull_(pull),
        sub_(sub),
        lockstep_(waitsForMail(c.settings.config.clock())),
        // Half the supervisor's wait: when a joint is missing, the arm must still publish in time
        // for the supervisor, or the supervisor would blame the arm for the joint's silence.
        timeout_(std::chrono::milliseconds(std::max(1, static_cast<int>(c.settings.config.lockstep_timeout_ms()) / 2))),
        period_(std::chrono::duration_cast<SteadyClock::duration>(
            std::chrono::duration<double>(sampleSeconds(c.controller())))) {}

  // Period after period until a stop comes; the exit code.
  int run() {
    const auto t0 = SteadyClock::now();
    while (!stopRequested()) {
      const std::uint64_t k = arm_.period();
      arm_.sense(*out_.mutable_sensors());
      send(pub_, kTopicArm, out_, buffer_);
      if (lockstep_) {
        if (!awaitSupervisor(k)) return 0;
        collectLockstep(k);
      } else {
        collectLatest();
        std::this_thread::sleep_until(t0 + static_cast<SteadyClock::rep>(k + 1) * period_);
      }
      if (!drainSupervisor()) return 0;
      integrate(k);
    }
    c_.log.info("stopped by signal after {} periods ({} torque commands missed); {}", arm_.period(), missing_,
                restText());
    return 0;
  }

 private:
  std::string restText() const {
    return std::string("the power is ") + (arm_.powered() ? "on" : "off") + ", fastest joint " +
           fmt::format("{:.3g}", arm_.qd().cwiseAbs().maxCoeff()) + " rad/s";
  }

  // A mail from the supervisor: false when it is a stop.
  bool fromSupervisor() {
    const proto::Envelope& e = in_.mail();
    if (e.has_smail())
      supervisor_period_ = std::max(supervisor_period_, static_cast<std::int64_t>(e.smail().header().period()));
    if (!e.has_stop()) return true;
    c_.log.info("stop: {}; after {} periods {}", e.stop().reason(), arm_.period(), restText());
    return false;
  }

  // Lockstep: period k of the arm follows period k of the supervisor, so that the arm never runs
  // ahead, even with every joint gone. False when a stop came.
  bool awaitSupervisor(std::uint64_t k) {
    while (supervisor_period_ < static_cast<std::int64_t>(k) && !stopRequested())
      if (receive(sub_, in_, 100) && !fromSupervisor()) return false;
    return true;
  }

  bool drainSupervisor() {
    while (receive(sub_, in_, 0))
      if (!fromSupervisor()) return false;
    return true;
  }

  void take(int j) {
    const auto i = static_cast<std::size_t>(j);
    proto::TorqueCommand& received = *applied().add_received();
    received.CopyFrom(in_.mail().torque());
    latest_[i].CopyFrom(received);
    commands_[i] = &latest_[i];
  }

  // Lockstep: the six commands of period k. A joint silent for the watchdog's N periods after it
  // was heard is not waited for any more (its torque is missing, so the power is off): waiting
  // would only slow the stop.
  void collectLockstep(std::uint64_t k) {
    commands_.fill(nullptr);
    int have = 0, expected = 0;
    for (std::size_t j = 0; j < kJoints; ++j)
      expected += !heard_[j] || silent_[j] < c_.controller().watchdog_periods();
    const auto deadline = SteadyClock::now() + timeout_;
    while (have < expected && !stopRequested()) {
      if (!receive(pull_, in_, 0)) {
        if (!waitForMail({&pull_}, deadline)) break;
        continue;
      }
      const proto::Envelope& e = in_.mail();
      if (!e.has_torque() || e.torque().header().period() != k) continue;
      const int j = static_cast<int>(e.torque().joint()) - 1;
      if (j < 0 || j >= kJoints || commands_[static_cast<std::size_t>(j)] != nullptr) continue;
      take(j);
      heard_[static_cast<std::size_t>(j)] = true;
      ++have;
    }
    missing_ += kJoints - have;
    for (std::size_t j = 0; j < kJoints; ++j) silent_[j] = commands_[j] != nullptr ? 0 : silent_[j] + 1;
  }

  // Realtime: the latest command of each joint.
  void collectLatest() {
    while (receive(pull_, in_, 0)) {
      const proto::Envelope& e = in_.mail();
      const int j = static_cast<int>(e.torque().joint()) - 1;
      if (e.has_torque() && j >= 0 && j < kJoints) take(j);
    }
  }

  // Integrates [k, k+1], then tells the supervisor's run log which command drove each joint.
  void integrate(std::uint64_t k) {
    proto::AppliedTorques& a = applied();
    a.mutable_header()->set_period(k);
    a.mutable_header()->set_sequence(k);
    a.clear_applied_period();
    for (const proto::TorqueCommand* command : commands_)
      a.add_applied_period(command != nullptr ? static_cast<std::int64_t>(command->header().period()) : -1);
    arm_.step(commands_);
    send(pub_, kTopicTorques, report_, buffer_);
    a.clear_received();
  }

  proto::AppliedTorques& applied() { return *report_.mutable_applied(); }

  NodeContext& c_;
  ArmCore arm_;
  zmq::socket_t &pub_, &pull_, &sub_;
  const bool lockstep_;
  const SteadyClock::duration timeout_, period_;
  proto::Envelope out_, report_;
  MailSlot in_;  // parsed without allocating (node/mail_slot.hpp)
  std::array<proto::TorqueCommand, kJoints> latest_;
  std::array<const proto::TorqueCommand*, kJoints> commands_{};
  std::string buffer_;
  long missing_ = 0;
  std::array<std::uint32_t, kJoints> silent_{};  // consecutive periods without a command
  std::array<bool, kJoints> heard_{};            // a command has come from this joint
  std::int64_t supervisor_period_ = -1;          // the latest S_MAIL's period
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-arm: the emulated arm (plant) of the RFMS cluster"};
  return runNode(argc, argv, app, [] { return std::string("arm"); }, 0, [](NodeContext& c) {
    const ClusterSettings& s = c.settings;
    Transport transport;
    zmq::socket_t pub = transport.bindPublisher(s.config.arm_pub());
    zmq::socket_t pull = transport.bindPull(s.config.arm_pull());
    zmq::socket_t sub = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicSMail, kTopicControl});
    zmq::socket_t push = transport.connectPush(s.config.supervisor_pull());
    c.log.info("waiting for the supervisor ({})", s.config.supervisor_pub());
    const StartResult start = awaitStart(proto::NODE_ARM, s, sub, push, nullptr, &pub, c.log);
    if (start == StartResult::kRefused) return 2;
    if (start == StartResult::kStopped) return 0;
    c.log.info("ready: {} at {} ms, {}", c.model.name, c.controller().dt_ms(), clockName(s.config.clock()));
    return ArmShell(c, pub, pull, sub).run();
  });
}
