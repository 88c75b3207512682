// The emulated arm's shell in the cluster. It publishes its sensor mail for period k, then
// integrates [k, k+1] with the six joints' torque commands. Lockstep: it waits for all six
// commands of period k until the supervisor goes on without them, and then steps with the missing
// joints' last. Realtime: it ticks on the wall clock with the latest commands. Either way its
// watchdog (ArmCore) takes the power off when a joint's command is not renewed. After each period it reports the
// commands it received and applied, for the supervisor's run log. Without any mail from the supervisor for
// orphan_timeout_ms it goes safe on its own clock (power off, brakes on, until at rest) and ends.
// The period's order, the supervisor's stop and its silence are the node loop's
// (runtime/node_loop.hpp); this says what the arm waits for and how it comes to rest.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <cstdint>
#include <string>

#include "arm_sim/arm_core.hpp"
#include "runtime/clock_rules.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/node_loop.hpp"

namespace rfms {

// run() goes period after period until the supervisor's stop, a stop signal, the supervisor's
// silence (the arm is then at rest with its power off), or (`periods` > 0) that many. Once it has
// returned, stopReason() is the supervisor's stop's reason, or how long it was silent.
class ArmShell : public NodeLoop<ArmCore, ArmShell> {
 public:
  ArmShell(ArmCore& arm, const ClusterSettings& s, MailPort& port, spdlog::logger& log);

  long missing() const { return missing_; }
  // "the power is off, fastest joint 0 rad/s"
  std::string restText() const;

 private:
  friend class NodeLoop<ArmCore, ArmShell>;
  Gathered gather();
  std::uint64_t period() const { return arm_.period(); }
  ArmInbox inbox() const { return {commands_}; }
  ArmOutbox& outbox() { return out_; }
  void publish(const ArmInbox& in, std::uint64_t k);
  void record(const ArmInbox& in, std::uint64_t k);
  bool stepped(std::uint64_t k);
  void ended(LoopEnd how);

  void bringToRest();
  bool hearSupervisor();
  void take(int j);
  bool collectLockstep(std::uint64_t k);
  void collectLatest();
  void prepareReport(std::uint64_t k);
  void reportWatchdog(std::uint32_t stale) const;
  proto::AppliedTorques& applied() { return *report_.mutable_applied(); }

  ArmCore& arm_;
  spdlog::logger& log_;
  const ClockRules rules_;
  const std::uint32_t watchdog_;
  const MailPort::Clock::duration period_;
  MailPort::Clock::time_point t0_{};
  bool started_ = false;
  ArmOutbox out_;                     // the sensors the last step sensed
  proto::Envelope sensors_, report_;  // what out_ and the applied torques are sent in
  MailSlot in_;                       // parsed without allocating (runtime/mail_slot.hpp)
  std::array<proto::TorqueCommand, kJoints> latest_;
  std::array<const proto::TorqueCommand*, kJoints> commands_{};
  int received_ = 0;  // commands in the report so far this period
  long missing_ = 0;
  std::array<bool, kJoints> given_up_{};  // lockstep: not waited for until a command comes in time
  std::int64_t supervisor_period_ = -1;   // the latest S_MAIL's period
  std::uint32_t stale_ = 0;               // the arm's watchdog: joints whose commands went stale
};

}  // namespace rfms
