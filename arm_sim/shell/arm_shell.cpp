#include "arm_sim/shell/arm_shell.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "common/mail_codec.hpp"
#include "node/node_shell.hpp"
#include "node/transport.hpp"

namespace rfms {

ArmShell::ArmShell(ArmCore& arm, const ClusterSettings& s, zmq::socket_t& pub, zmq::socket_t& pull, zmq::socket_t& sub,
                   spdlog::logger& log)
    : arm_(arm),
      pub_(pub),
      pull_(pull),
      sub_(sub),
      log_(log),
      lockstep_(waitsForMail(s.config.clock())),
      watchdog_(s.config.controller().watchdog_periods()),
      // Half the supervisor's wait: when a joint is missing, the arm must still publish in time
      // for the supervisor, or the supervisor would blame the arm for the joint's silence.
      timeout_(std::chrono::milliseconds(std::max(1, static_cast<int>(s.config.lockstep_timeout_ms()) / 2))),
      period_(std::chrono::duration_cast<SteadyClock::duration>(
          std::chrono::duration<double>(sampleSeconds(s.config.controller())))),
      silence_(std::chrono::milliseconds(s.config.orphan_timeout_ms())) {}

ArmShell::Ended ArmShell::run(std::uint64_t periods) {
  if (!started_) t0_ = SteadyClock::now(), started_ = true;
  for (std::uint64_t done = 0; !stopRequested();) {
    const std::uint64_t k = arm_.period();
    arm_.sense(*out_.mutable_sensors());
    send(pub_, kTopicArm, out_, buffer_);
    if (lockstep_) {
      if (!collectLockstep(k) || !awaitSupervisor(k)) return ended_;
    } else {
      collectLatest();
      std::this_thread::sleep_until(t0_ + static_cast<SteadyClock::rep>(k + 1) * period_);
    }
    if (!drainSupervisor()) return ended_;
    integrate(k);
    if (periods > 0 && ++done == periods) return Ended::kPeriods;
  }
  return Ended::kSignal;
}

std::string ArmShell::restText() const {
  return std::string("the power is ") + (arm_.powered() ? "on" : "off") + ", fastest joint " +
         fmt::format("{:.3g}", arm_.qd().cwiseAbs().maxCoeff()) + " rad/s";
}

// A mail from the supervisor: false when it is a stop.
bool ArmShell::fromSupervisor() {
  silence_.heard();
  const proto::Envelope& e = in_.mail();
  if (e.has_smail())
    supervisor_period_ = std::max(supervisor_period_, static_cast<std::int64_t>(e.smail().header().period()));
  if (!e.has_stop()) return true;
  const std::uint64_t k = arm_.period();
  const bool was_resting = !arm_.powered() && arm_.qd().isZero();
  bringToRest();
  log_.info("stop: {}; after {} periods {}{}", e.stop().reason(), k, was_resting ? "" : "power off, brakes on; ",
            restText());
  ended_ = Ended::kStopMail;
  return false;
}

// As an amplifier whose controller stopped or fell silent: no torque and no power, and the brakes
// stop the arm. The arm keeps its own clock for this (lockstep time stands still without the
// supervisor); at most ten seconds, far more than the brakes need.
void ArmShell::bringToRest() {
  const std::array<const proto::TorqueCommand*, kJoints> none{};
  const auto from = SteadyClock::now();
  const auto end = from + std::chrono::seconds(10);
  for (auto tick = from; SteadyClock::now() < end && !stopRequested();) {
    arm_.step(none);
    if (arm_.qd().isZero()) break;
    std::this_thread::sleep_until(tick += period_);
  }
}

void ArmShell::goSafe() {
  ended_ = Ended::kSupervisorGone;
  bringToRest();
  log_.error("the supervisor has been silent for {} s (orphan_timeout_ms): power off, brakes on; {}; exiting",
             silence_.boundSeconds(), restText());
}

// Lockstep: period k of the arm follows period k of the supervisor, so that the arm never runs
// ahead, even with every joint gone. False when a stop came.
bool ArmShell::awaitSupervisor(std::uint64_t k) {
  while (supervisor_period_ < static_cast<std::int64_t>(k) && !stopRequested()) {
    if (receive(sub_, in_, 100)) {
      if (!fromSupervisor()) return false;
    } else if (silence_.gone()) {
      goSafe();
      return false;
    }
  }
  ended_ = Ended::kSignal;
  return !stopRequested();
}

bool ArmShell::drainSupervisor() {
  while (receive(sub_, in_, 0))
    if (!fromSupervisor()) return false;
  if (silence_.gone()) {
    goSafe();
    return false;
  }
  return true;
}

void ArmShell::take(int j) {
  const auto i = static_cast<std::size_t>(j);
  // The report's entries are overwritten in place, period after period: no allocation once it
  // has held six (protobuf's Clear and CopyFrom would free and allocate their headers).
  proto::AppliedTorques& a = applied();
  proto::TorqueCommand& received = received_ < a.received_size() ? *a.mutable_received(received_) : *a.add_received();
  ++received_;
  copyTorque(in_.mail().torque(), received);
  copyTorque(received, latest_[i]);
  commands_[i] = &latest_[i];
}

// Lockstep: the six commands of period k. A joint silent for the watchdog's N periods after it was
// heard is not waited for any more (its torque is missing, so the power is off): waiting would
// only slow the stop. False when a stop came.
//
// The joints answer the S_MAIL of k, so the wait for them is timed from it. It is read when the
// first command comes rather than when it arrives, which would wake this thread once more a
// period; without commands, a look every `timeout_ / 2` finds it. A missing joint thus holds the
// arm at most three quarters of the supervisor's own wait, and the sensors still come in time.
bool ArmShell::collectLockstep(std::uint64_t k) {
  commands_.fill(nullptr);
  int have = 0, expected = 0;
  for (std::size_t j = 0; j < kJoints; ++j) expected += !heard_[j] || silent_[j] < watchdog_;
  std::optional<SteadyClock::time_point> deadline;
  while (have < expected && !stopRequested()) {
    if (!receive(pull_, in_, 0)) {
      if (!deadline) {
        if (!drainSupervisor()) return false;
        if (supervisor_period_ >= static_cast<std::int64_t>(k)) deadline = SteadyClock::now() + timeout_;
      }
      if (!waitForMail({&pull_}, deadline.value_or(SteadyClock::now() + timeout_ / 2))) break;
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
  return true;
}

// Realtime: the latest command of each joint.
void ArmShell::collectLatest() {
  while (receive(pull_, in_, 0)) {
    const proto::Envelope& e = in_.mail();
    const int j = static_cast<int>(e.torque().joint()) - 1;
    if (e.has_torque() && j >= 0 && j < kJoints) take(j);
  }
}

// Integrates [k, k+1], then tells the supervisor's run log which command drove each joint.
void ArmShell::integrate(std::uint64_t k) {
  proto::AppliedTorques& a = applied();
  a.mutable_header()->set_period(k);
  a.mutable_header()->set_sequence(k);
  a.clear_applied_period();
  for (const proto::TorqueCommand* command : commands_)
    a.add_applied_period(command != nullptr ? static_cast<std::int64_t>(command->header().period()) : -1);
  if (a.received_size() > received_) a.mutable_received()->DeleteSubrange(received_, a.received_size() - received_);
  arm_.step(commands_);
  send(pub_, kTopicTorques, report_, buffer_);
  received_ = 0;
  if (const std::uint32_t stale = arm_.staleCommands(); stale != stale_) {
    reportWatchdog(stale);
    stale_ = stale;
  }
}

// Once when it changes (not every period): which joints' commands the arm's watchdog refuses.
void ArmShell::reportWatchdog(std::uint32_t stale) const {
  if (stale == 0) {
    log_.info("watchdog: every joint's torque command is new again");
    return;
  }
  std::string joints;
  for (int j = 0; j < kJoints; ++j)
    if ((stale >> j & 1u) != 0) joints += (joints.empty() ? "" : ",") + std::to_string(j + 1);
  log_.warn("watchdog: no new torque command from joint {} for {} periods: power off, brakes on; {}", joints, watchdog_,
            restText());
}

}  // namespace rfms
