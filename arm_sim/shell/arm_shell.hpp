// The emulated arm's shell in the cluster. It publishes its sensor mail for period k, then
// integrates [k, k+1] with the six joints' torque commands. Lockstep: it waits for all six
// commands of period k until the supervisor goes on without them, and then steps with the missing
// joints' last. Realtime: it ticks on the wall clock with the latest commands. Either way its
// watchdog (ArmCore) takes the power off when a joint's command is not renewed. After each period it reports the
// commands it received and applied, for the supervisor's run log. Without any mail from the supervisor for
// orphan_timeout_ms it goes safe on its own clock (power off, brakes on, until at rest) and ends.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <cstdint>
#include <string>

#include "arm_sim/arm_core.hpp"
#include "runtime/clock_rules.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/supervisor_silence.hpp"

namespace rfms {

class ArmShell {
 public:
  ArmShell(ArmCore& arm, const ClusterSettings& s, MailPort& port, spdlog::logger& log);

  enum class Ended { kStopMail, kSignal, kPeriods, kSupervisorGone };
  // Period after period until the supervisor's stop, a stop signal, the supervisor's silence (the
  // arm is then at rest with its power off), or (`periods` > 0) that many.
  Ended run(std::uint64_t periods = 0);
  // Keeps the last periods of the arm's mail for a fault record (null: none).
  void setFaultRecorder(FaultRecorder* recorder) { recorder_ = recorder; }
  long missing() const { return missing_; }
  double orphanSeconds() const { return silence_.boundSeconds(); }
  // "the power is off, fastest joint 0 rad/s"
  std::string restText() const;
  // Once run() has returned: the supervisor's stop's reason, or how long it was silent.
  const std::string& stopReason() const { return stop_reason_; }

 private:
  void endOnStop();
  void bringToRest();
  void goSafe();
  bool drainSupervisor();
  void take(int j);
  bool collectLockstep(std::uint64_t k);
  void collectLatest();
  void integrate(std::uint64_t k);
  void reportWatchdog(std::uint32_t stale) const;
  proto::AppliedTorques& applied() { return *report_.mutable_applied(); }

  ArmCore& arm_;
  MailPort& port_;
  spdlog::logger& log_;
  const ClockRules rules_;
  const std::uint32_t watchdog_;
  const MailPort::Clock::duration period_;
  SupervisorSilence silence_;
  Ended ended_ = Ended::kSignal;  // why drainSupervisor() said stop
  std::string stop_reason_;
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
  FaultRecorder* recorder_ = nullptr;
};

}  // namespace rfms
