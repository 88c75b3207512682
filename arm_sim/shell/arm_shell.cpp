#include "arm_sim/shell/arm_shell.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <thread>

#include "common/mail_codec.hpp"
#include "node/node_shell.hpp"

namespace rfms {

ArmShell::ArmShell(ArmCore& arm, const ClusterSettings& s, MailPort& port, spdlog::logger& log)
    : arm_(arm),
      port_(port),
      log_(log),
      rules_(s.config.clock()),
      watchdog_(s.config.controller().watchdog_periods()),
      // Half the supervisor's wait: when a joint is missing, the arm must still publish in time
      // for the supervisor, or the supervisor would blame the arm for the joint's silence.
      timeout_(std::chrono::milliseconds(std::max(1, static_cast<int>(s.config.lockstep_timeout_ms()) / 2))),
      period_(std::chrono::duration_cast<MailPort::Clock::duration>(
          std::chrono::duration<double>(sampleSeconds(s.config.controller())))),
      silence_(std::chrono::milliseconds(s.config.orphan_timeout_ms())) {}

ArmShell::Ended ArmShell::run(std::uint64_t periods) {
  if (!started_) t0_ = MailPort::Clock::now(), started_ = true;
  for (std::uint64_t done = 0; !stopRequested();) {
    const std::uint64_t k = arm_.period();
    arm_.sense(*out_.mutable_sensors());
    port_.publish(Box::kSensors, out_, k);
    if (rules_.waitsForMail()) {
      if (!collectLockstep(k)) return ended_;
    } else {
      // The period passes on the arm's own clock; then each joint's newest command drives the next.
      port_.passUntil(t0_ + static_cast<MailPort::Clock::rep>(k + 1) * period_);
      collectLatest();
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

// As an amplifier whose controller stopped or fell silent: no torque and no power, and the brakes
// stop the arm. The arm keeps its own clock for this (lockstep time stands still without the
// supervisor); at most ten seconds, far more than the brakes need.
void ArmShell::bringToRest() {
  const std::array<const proto::TorqueCommand*, kJoints> none{};
  const auto from = MailPort::Clock::now();
  const auto end = from + std::chrono::seconds(10);
  for (auto tick = from; MailPort::Clock::now() < end && !stopRequested();) {
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

// The supervisor's mail since the last look: its stop, and how far its S_MAILs have come. False
// when the run ends here: a stop came, or the supervisor has been silent for the orphan timeout.
bool ArmShell::drainSupervisor() {
  while (port_.next(Box::kControl, in_)) {
    silence_.heard();
    if (in_.mail().has_stop()) {
      endOnStop();
      return false;
    }
  }
  if (port_.latest(Box::kSMail, in_) && in_.mail().has_smail()) {
    silence_.heard();
    supervisor_period_ = std::max(supervisor_period_, static_cast<std::int64_t>(in_.mail().smail().header().period()));
  }
  if (silence_.gone()) {
    goSafe();
    return false;
  }
  return true;
}

// The supervisor's stop: the arm comes to rest, and says so.
void ArmShell::endOnStop() {
  const std::uint64_t k = arm_.period();
  const bool was_resting = !arm_.powered() && arm_.qd().isZero();
  bringToRest();
  log_.info("stop: {}; after {} periods {}{}", in_.mail().stop().reason(), k,
            was_resting ? "" : "power off, brakes on; ", restText());
  ended_ = Ended::kStopMail;
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

// Lockstep: the six commands of period k, and the supervisor's S_MAIL of k, so that the arm never
// runs ahead of it, even with every joint gone. A joint silent for the watchdog's N periods after
// it was heard is not waited for any more (its torque is missing, so the power is off): waiting
// would only slow the stop. False when the run ends here.
//
// The joints answer the S_MAIL of k, so the wait for them is timed from it. It is read when the
// last command comes rather than when it arrives, which would wake this thread once more a
// period; without the commands, a look every quarter of the wait (a tenth of a second at most)
// finds it. A missing joint thus holds the arm at most three quarters of the supervisor's own
// wait, and the sensors still come in time.
bool ArmShell::collectLockstep(std::uint64_t k) {
  commands_.fill(nullptr);
  BoxSet expected = 0;
  for (int j = 1; j <= kJoints; ++j) {
    const auto i = static_cast<std::size_t>(j - 1);
    if (!heard_[i] || silent_[i] < watchdog_) expected |= bit(torqueBox(j));
  }
  const auto look = std::min<MailPort::Clock::duration>(timeout_ / 2, std::chrono::milliseconds(100));
  BoxSet have = 0;
  std::optional<MailPort::Clock::time_point> deadline;
  while (!stopRequested()) {
    if (!drainSupervisor()) return false;
    const bool asked = supervisor_period_ >= static_cast<std::int64_t>(k);
    if (!deadline && asked) deadline = MailPort::Clock::now() + timeout_;
    for (int j = 1; j <= kJoints; ++j) {
      const Box b = torqueBox(j);
      while ((have & bit(b)) == 0 && port_.next(b, in_)) {
        const proto::Envelope& e = in_.mail();
        if (!e.has_torque() || e.torque().joint() != static_cast<std::uint32_t>(j) ||
            !rules_.isInput(e.torque().header().period(), k))
          continue;
        take(j - 1);
        heard_[static_cast<std::size_t>(j - 1)] = true;
        have |= bit(b);
      }
    }
    const BoxSet missing = expected & ~have;
    const auto now = MailPort::Clock::now();
    if (deadline && (missing == 0 || now >= *deadline)) break;
    const auto until = deadline ? std::min(*deadline, now + look) : now + look;
    port_.wait((asked ? 0 : bit(Box::kSMail)) | missing, bit(Box::kControl), until);
  }
  if (stopRequested()) return false;
  missing_ += kJoints - std::popcount(have);
  for (std::size_t j = 0; j < kJoints; ++j) silent_[j] = commands_[j] != nullptr ? 0 : silent_[j] + 1;
  return true;
}

// Realtime: the latest command of each joint.
void ArmShell::collectLatest() {
  for (int j = 1; j <= kJoints; ++j)
    while (port_.next(torqueBox(j), in_))
      if (in_.mail().has_torque() && in_.mail().torque().joint() == static_cast<std::uint32_t>(j)) take(j - 1);
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
  port_.publish(Box::kArmReport, report_, k);
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
