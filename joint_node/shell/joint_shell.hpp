// A joint server's shell in the cluster: for every S_MAIL it runs the core with the arm's sensor
// mail of the same period (lockstep, paced) or the newest (realtime), and sends its J_MAIL to the
// supervisor and its torque command to the arm. Real-time safe: mail is read into preallocated
// slots and sent from reused envelopes through the node's mail port.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "joint_node/joint_core.hpp"
#include "proto/cluster.pb.h"
#include "runtime/clock_rules.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/supervisor_silence.hpp"

namespace rfms {

class JointShell {
 public:
  // Joint `joint` (1..6). `orphan_timeout`: how long it goes on without any mail from the supervisor.
  JointShell(JointCore& core, int joint, ClockRules rules, std::chrono::milliseconds orphan_timeout, MailPort& port);

  enum class Ended { kStopMail, kSignal, kAnswers, kSupervisorGone };
  // Answers until the supervisor's stop, a stop signal, the supervisor's silence for the orphan
  // timeout (no S_MAIL, so no torque command has been sent since), or (`answers` > 0) that many.
  Ended run(std::uint64_t answers = 0);

  // Keeps the last periods of this joint's mail for a fault record (null: none).
  void setFaultRecorder(FaultRecorder* recorder) { recorder_ = recorder; }

  const std::string& stopReason() const { return stop_reason_; }
  std::uint64_t lastPeriod() const { return last_period_; }
  double orphanSeconds() const { return silence_.boundSeconds(); }

 private:
  bool fromSupervisor();  // false on a stop
  void answer();

  JointCore& core_;
  const Box jmail_box_, torque_box_;
  const ClockRules rules_;
  SupervisorSilence silence_;
  MailPort& port_;
  // Mail is parsed into preallocated slots and kept by swapping pointers.
  std::array<MailSlot, 3> slots_;
  MailSlot *in_ = &slots_[0], *smail_ = &slots_[1], *sensors_ = &slots_[2];
  bool have_smail_ = false, have_sensors_ = false;
  JointOutbox out_;
  proto::Envelope jmail_, torque_;  // what out_ is sent in
  std::string stop_reason_;
  std::uint64_t last_period_ = 0;
  FaultRecorder* recorder_ = nullptr;
};

}  // namespace rfms
