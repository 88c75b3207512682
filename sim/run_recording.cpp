#include "sim/run_recording.hpp"

namespace rfms {

void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out) {
  for (int i = 0; i < out.event_count; ++i) {
    const SupervisorEvent& e = out.events[static_cast<std::size_t>(i)];
    proto::LogEvent le;
    le.set_period(e.period != 0 ? e.period : k);
    switch (e.kind) {
      case SupervisorEvent::kMoveStarted: le.set_kind(proto::LogEvent::MOVE_STARTED); break;
      case SupervisorEvent::kMoveCompleted: le.set_kind(proto::LogEvent::MOVE_COMPLETED); break;
      case SupervisorEvent::kMoveAborted: le.set_kind(proto::LogEvent::MOVE_ABORTED); break;
      case SupervisorEvent::kStateChanged: le.set_kind(proto::LogEvent::STATE_CHANGED); break;
      case SupervisorEvent::kEmergency: le.set_kind(proto::LogEvent::EMERGENCY); break;
    }
    le.set_move_id(e.move_id);
    le.set_state(e.state);
    le.set_reason(e.reason);
    le.set_node(e.node);
    log.log(topic::kEvent, k, le);
  }
}

void recordPeriod(RunLogger& log, const PeriodMail& m) {
  if (m.sensors != nullptr) log.log(topic::kSensors, m.k, *m.sensors);
  if (m.smail != nullptr) log.log(topic::kSMail, m.k, *m.smail);
  if (m.mmail != nullptr) log.log(topic::kMMail, m.k, *m.mmail);
  if (m.parcel != nullptr) log.log(topic::kParcel, m.k, *m.parcel);
  for (const proto::JMail* j : m.jmail)
    if (j != nullptr) log.log(topic::kJMail, m.k, *j);
  for (const proto::TorqueCommand* t : m.torque)
    if (t != nullptr) log.log(topic::kTorque, m.k, *t);
  if (m.supervisor != nullptr) recordEvents(log, m.k, *m.supervisor);
}

void recordRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply) {
  proto::LogRequest r;
  r.set_period(k);
  *r.mutable_request() = request;
  *r.mutable_reply() = reply;
  log.log(topic::kRequest, k, r);
}

}  // namespace rfms
