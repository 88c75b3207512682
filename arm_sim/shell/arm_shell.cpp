#include "arm_sim/shell/arm_shell.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <thread>

#include "common/mail_codec.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

ArmShell::ArmShell(ArmCore& arm, const ClusterSettings& s, MailPort& port, spdlog::logger& log)
    : NodeLoop(arm, port, std::chrono::milliseconds(s.config.orphan_timeout_ms())),
      arm_(arm),
      log_(log),
      rules_(s.config.clock()),
      watchdog_(s.config.controller().watchdog_periods()),
      period_(std::chrono::duration_cast<MailPort::Clock::duration>(
          std::chrono::duration<double>(sampleSeconds(s.config.controller())))) {}

// The arm's period begins with what it senses; then come the commands that drive it through the
// period: in lockstep the six of this period, in realtime each joint's newest once the period has
// passed on the arm's own clock.
Gathered ArmShell::gather() {
  if (signalled()) return Gathered::kEnded;
  if (!started_) {
    t0_ = MailPort::Clock::now(), started_ = true;
    arm_.sense(out_.sensors);  // the power-up period's; each step senses the next
  }
  const std::uint64_t k = arm_.period();
  publishMail(port_, Box::kSensors, sensors_, &proto::Envelope::mutable_sensors, out_.sensors, k);
  if (rules_.waitsForMail()) {
    if (!collectLockstep(k)) return Gathered::kEnded;
  } else {
    port_.passUntil(t0_ + static_cast<MailPort::Clock::rep>(k + 1) * period_);
    collectLatest();
  }
  if (!hearSupervisor()) return Gathered::kEnded;
  prepareReport(k);
  return Gathered::kReady;
}

std::string ArmShell::restText() const {
  return std::string("the power is ") + (arm_.powered() ? "on" : "off") + ", fastest joint " +
         fmt::format("{:.3g}", arm_.qd().cwiseAbs().maxCoeff()) + " rad/s";
}

// As an amplifier whose controller stopped or fell silent: no torque and no power, and the brakes
// stop the arm. The arm keeps its own clock for this (lockstep time stands still without the
// supervisor); at most ten seconds, far more than the brakes need.
void ArmShell::bringToRest() {
  const ArmInbox none;
  const auto from = MailPort::Clock::now();
  const auto end = from + std::chrono::seconds(10);
  for (auto tick = from; MailPort::Clock::now() < end && !stopRequested();) {
    arm_.step(none, out_);
    if (arm_.qd().isZero()) break;
    std::this_thread::sleep_until(tick += period_);
  }
}

// How far the supervisor's S_MAILs have come (any of its mail shows it is there), then its
// control box and its silence. False when the run ends here.
bool ArmShell::hearSupervisor() {
  if (port_.latest(Box::kSMail, in_) && in_.mail().has_smail()) {
    heard();
    supervisor_period_ = std::max(supervisor_period_, static_cast<std::int64_t>(in_.mail().smail().header().period()));
  }
  return listen(in_);
}

// The supervisor's stop, or its silence: the arm comes to rest on its own clock, and says so.
void ArmShell::ended(LoopEnd how) {
  const std::uint64_t k = arm_.period();
  const bool was_resting = !arm_.powered() && arm_.qd().isZero();
  bringToRest();
  if (how == LoopEnd::kSupervisorGone) {
    setStopReason(fmt::format("silent for {} s", orphanSeconds()));
    log_.error("the supervisor has been silent for {} s (orphan_timeout_ms): power off, brakes on; {}; exiting",
               orphanSeconds(), restText());
    return;
  }
  log_.info("stop: {}; after {} periods {}{}", stopReason(), k, was_resting ? "" : "power off, brakes on; ",
            restText());
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
// runs ahead of it, even with every joint gone (a joint's command of k also shows that S_MAIL k
// was sent: one the arm found damaged does not hold it). A stalled joint holds the arm for as long
// as the supervisor waits for it: a slow machine slows the run, it does not cut the power. The
// supervisor decides how long (supervisor/shell/mail_collector.cpp); when it goes on without the
// joint, its S_MAIL of a later period comes, and the arm steps with that joint's last command, as
// an amplifier holds its last until its watchdog runs out (ArmCore: watchdog_periods without a new
// one, and the power goes off; the supervisor names the joint). So one lost S_MAIL costs a joint
// one period's command, not the arm its power. A joint given up so is not waited for again until
// a command of its comes in time (waiting would only slow the stop). False when the run ends here.
//
// The commands are read when the last one comes rather than when each arrives, which would wake
// this thread once more a period. The wait is cut into tenths of a second, to see a stop signal.
bool ArmShell::collectLockstep(std::uint64_t k) {
  BoxSet expected = 0;
  for (int j = 1; j <= kJoints; ++j)
    if (!given_up_[static_cast<std::size_t>(j - 1)]) expected |= bit(torqueBox(j));
  const auto look = std::chrono::milliseconds(100);
  BoxSet have = 0;
  for (;;) {
    if (!hearSupervisor()) return false;
    const bool passed = supervisor_period_ > static_cast<std::int64_t>(k);  // it went on without us
    for (int j = 1; j <= kJoints; ++j) {
      const Box b = torqueBox(j);
      while ((have & bit(b)) == 0 && port_.next(b, in_)) {
        const proto::Envelope& e = in_.mail();
        if (!e.has_torque() || e.torque().joint() != static_cast<std::uint32_t>(j) ||
            !rules_.isInput(e.torque().header().period(), k))
          continue;
        take(j - 1);
        given_up_[static_cast<std::size_t>(j - 1)] = false;
        have |= bit(b);
      }
    }
    const bool asked = supervisor_period_ >= static_cast<std::int64_t>(k) || have != 0;
    const BoxSet missing = expected & ~have;
    if (asked && (missing == 0 || passed)) break;
    port_.wait((asked ? 0 : bit(Box::kSMail)) | missing, bit(Box::kControl) | (asked ? bit(Box::kSMail) : 0),
               MailPort::Clock::now() + look);
  }
  missing_ += kJoints - std::popcount(have);
  for (int j = 1; j <= kJoints; ++j)
    if ((have & bit(torqueBox(j))) == 0) given_up_[static_cast<std::size_t>(j - 1)] = true;
  return true;
}

// Realtime: the latest command of each joint.
void ArmShell::collectLatest() {
  for (int j = 1; j <= kJoints; ++j)
    while (port_.next(torqueBox(j), in_))
      if (in_.mail().has_torque() && in_.mail().torque().joint() == static_cast<std::uint32_t>(j)) take(j - 1);
}

// Before the step of [k, k+1]: which command drives each joint, for the supervisor's run log.
void ArmShell::prepareReport(std::uint64_t k) {
  proto::AppliedTorques& a = applied();
  a.mutable_header()->set_period(k);
  a.mutable_header()->set_sequence(k);
  a.clear_applied_period();
  for (const proto::TorqueCommand* command : commands_)
    a.add_applied_period(command != nullptr ? static_cast<std::int64_t>(command->header().period()) : -1);
  if (a.received_size() > received_) a.mutable_received()->DeleteSubrange(received_, a.received_size() - received_);
  // A fault record keeps whole periods: this period's sensors go in with its report, which the
  // step that follows replaces with the next period's.
  if (FaultRecorder* r = recorder(); r != nullptr) r->record(LogTopic::kSensors, k, out_.sensors);
}

void ArmShell::publish(const ArmInbox&, std::uint64_t k) { port_.publish(Box::kArmReport, report_, k); }

void ArmShell::record(const ArmInbox&, std::uint64_t k) {
  if (FaultRecorder* r = recorder(); r != nullptr) r->record(LogTopic::kApplied, k, report_.applied());
}

bool ArmShell::stepped(std::uint64_t) {
  received_ = 0;
  if (const std::uint32_t stale = arm_.staleCommands(); stale != stale_) {
    reportWatchdog(stale);
    stale_ = stale;
  }
  return true;
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
