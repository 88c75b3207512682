#include "supervisor/shell/log_tap.hpp"

#include "runlog/fault_recorder.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/cluster_config.hpp"
#include "supervisor/event_log.hpp"
#include "supervisor/world_status.hpp"

namespace rfms {

LogTap::LogTap(RunLogger* log, proto::ClockMode clock) : log_(log), every_mail_(!waitsForMail(clock)) {
  damage_.mutable_box()->reserve(64);
}

void LogTap::arrived(const proto::Envelope& mail) {
  if (log_ == nullptr || !every_mail_) return;
  if (mail.has_sensors()) log_->log(LogTopic::kSensors, mail.sensors().header().period(), mail.sensors());
  if (mail.has_jmail()) log_->log(LogTopic::kJMail, mail.jmail().header().period(), mail.jmail());
  if (mail.has_parcel()) log_->log(LogTopic::kParcel, mail.parcel().header().period(), mail.parcel());
}

std::string LogTap::stoppedWriting() const {
  return log_ != nullptr && log_->stopped() ? log_->failure() : std::string();
}

void LogTap::late(const proto::Envelope& mail) {
  if (log_ == nullptr || every_mail_) return;  // realtime logged it on arrival
  if (mail.has_sensors()) log_->log(LogTopic::kSensors, mail.sensors().header().period(), mail.sensors());
  if (mail.has_jmail()) log_->log(LogTopic::kJMail, mail.jmail().header().period(), mail.jmail());
  if (mail.has_parcel()) log_->log(LogTopic::kParcel, mail.parcel().header().period(), mail.parcel());
}

void LogTap::applied(proto::AppliedTorques& report) {
  if (log_ == nullptr) return;
  for (const proto::TorqueCommand& t : report.received()) log_->log(LogTopic::kTorque, t.header().period(), t);
  report.clear_received();
  log_->log(LogTopic::kApplied, report.header().period(), report);
}

void LogTap::lost(Box b, std::uint64_t n) {
  if (log_ == nullptr || n == 0) return;
  const bool jmail = b >= Box::kJMail1 && b <= Box::kJMail6;
  log_->lost(b == Box::kSensors  ? LogTopic::kSensors
             : b == Box::kParcel ? LogTopic::kParcel
             : jmail             ? LogTopic::kJMail
                                 : LogTopic::kApplied,
             n);
}

void LogTap::damaged(std::uint64_t k, Box b, std::uint64_t damaged) {
  if (log_ == nullptr) return;
  damage_.set_period(k);
  damage_.set_kind(proto::LogEvent::MAIL_DAMAGED);
  damage_.set_node(writerOf(b));
  damage_.mutable_box()->assign(boxName(b));
  damage_.set_damaged(damaged);
  log_->log(LogTopic::kEvent, k, damage_);
}

std::string LogTap::record(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only,
                           const WorldModel& world) const {
  return log_ != nullptr ? requestRecord(request, reply, desk_only) + worldRecord(world, request, reply)
                         : std::string();
}

void LogTap::requests(std::uint64_t k, const SupervisorCore& core) {
  if (log_ == nullptr) return;
  for (std::size_t n = 0; n < core.takenCommands(); ++n) {
    const PeriodCommand& c = core.takenCommand(n);
    if (c.record.empty()) continue;
    logRequestRecord(*log_, k, c.record, k > c.checked_after ? k - 1 - c.checked_after : 0);
  }
}

void LogTap::recordForFaults(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) {
  if (in.arm != nullptr) recorder_->record(LogTopic::kSensors, k, *in.arm, in.arm->header().period());
  for (const proto::JMail* j : in.joints)
    if (j != nullptr) recorder_->record(LogTopic::kJMail, k, *j, j->header().period());
  if (in.parcel != nullptr) recorder_->record(LogTopic::kParcel, k, *in.parcel, in.parcel->header().period());
  recorder_->record(LogTopic::kSMail, k, out.smail);
  recorder_->record(LogTopic::kMMail, k, out.mmail);
  for (int i = 0; i < out.event_count; ++i) {
    const SupervisorEvent& e = out.events[static_cast<std::size_t>(i)];
    recorder_->record(LogTopic::kEvent, k, event_.fill(k, e));
    if (e.kind == SupervisorEvent::kEmergency) recorder_->fault(k, describe(e.reason), nodeName(e.node));
  }
}

void LogTap::period(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out, const Timing& timing) {
  if (recorder_ != nullptr) recordForFaults(k, in, out);
  if (log_ == nullptr) return;
  // Lockstep: what this period used (the arm's sensors of k, the joints' mail and the PARCEL of
  // k-1, at their own periods); realtime logged every mail as it came.
  if (!every_mail_) {
    if (in.arm != nullptr) log_->log(LogTopic::kSensors, k, *in.arm);
    for (const proto::JMail* j : in.joints)
      if (j != nullptr) log_->log(LogTopic::kJMail, j->header().period(), *j);
    if (in.parcel != nullptr) log_->log(LogTopic::kParcel, in.parcel->header().period(), *in.parcel);
  }
  log_->log(LogTopic::kSMail, k, out.smail);
  log_->log(LogTopic::kMMail, k, out.mmail);
  for (int i = 0; i < out.event_count; ++i) {
    log_->log(LogTopic::kEvent, k, event_.fill(k, out.events[static_cast<std::size_t>(i)]));
  }
  // Lockstep and paced periods wait for their mail, but only for lockstep_timeout_ms: a period
  // whose step went on without some of it is recorded too, so the log says so.
  if (!every_mail_ && timing.missed == 0) return;
  timing_.set_period(k);
  timing_.set_tick_ns(timing.tick_ns);
  timing_.clear_lateness_ms();
  for (double ms : timing.lateness_ms) timing_.add_lateness_ms(ms);
  timing_.set_missed(timing.missed);
  // What the step read: with these a realtime log re-runs the supervisor's core exactly.
  std::uint32_t used = 0;
  if (in.arm != nullptr) used |= 1u << proto::NODE_ARM;
  for (int j = 0; j < kJoints; ++j)
    if (in.joints[static_cast<std::size_t>(j)] != nullptr) used |= 1u << (proto::NODE_JOINT1 + j);
  if (in.parcel != nullptr) used |= 1u << proto::NODE_MATH;
  timing_.set_used(used);
  timing_.set_sensors_period(in.arm != nullptr ? static_cast<std::int64_t>(in.arm->header().period()) : -1);
  log_->log(LogTopic::kTiming, k, timing_);
}

}  // namespace rfms
