// The math server's shell in the cluster: for every M_MAIL, in order, it answers with the PARCEL
// of the joint the mail names, from its background results. Every one, whatever the clock: the
// core's background update and its PARCELs' sequence follow the M_MAILs it has seen, and a run
// log re-runs it on all of them. Real-time safe: mail is read into a slot and the PARCEL sent from
// a reused envelope.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "math_node/math_core.hpp"
#include "proto/cluster.pb.h"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/supervisor_silence.hpp"

namespace rfms {

class MathShell {
 public:
  // `orphan_timeout`: how long it goes on without any mail from the supervisor.
  MathShell(MathCore& core, std::chrono::milliseconds orphan_timeout, MailPort& port)
      : core_(core), silence_(orphan_timeout), port_(port) {}

  enum class Ended { kStopMail, kSignal, kAnswers, kSupervisorGone };
  // Answers until the supervisor's stop, a stop signal, the supervisor's silence for the orphan
  // timeout, or (`answers` > 0) that many answers.
  Ended run(std::uint64_t answers = 0);

  // Keeps the last periods of the math server's mail for a fault record (null: none).
  void setFaultRecorder(FaultRecorder* recorder) { recorder_ = recorder; }

  const std::string& stopReason() const { return stop_reason_; }
  std::uint64_t answered() const { return answered_; }
  std::uint64_t lastPeriod() const { return last_period_; }
  double orphanSeconds() const { return silence_.boundSeconds(); }

 private:
  MathCore& core_;
  SupervisorSilence silence_;
  MailPort& port_;
  MailSlot in_;
  MathOutbox out_;
  proto::Envelope parcel_;  // what out_ is sent in
  std::string stop_reason_;
  std::uint64_t answered_ = 0, last_period_ = 0;
  FaultRecorder* recorder_ = nullptr;
};

}  // namespace rfms
