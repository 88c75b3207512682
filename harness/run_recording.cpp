#include "harness/run_recording.hpp"

namespace rfms {

void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out) {
  // One message for all the thread's events, with room for any event from the first.
  thread_local ReusedLogEvent event;
  for (int i = 0; i < out.event_count; ++i)
    log.log(LogTopic::kEvent, k, event.fill(k, out.events[static_cast<std::size_t>(i)]));
}

void recordPeriod(RunLogger& log, const PeriodMail& m) {
  if (m.sensors != nullptr) log.log(LogTopic::kSensors, m.k, *m.sensors);
  if (m.smail != nullptr) log.log(LogTopic::kSMail, m.k, *m.smail);
  if (m.mmail != nullptr) log.log(LogTopic::kMMail, m.k, *m.mmail);
  if (m.parcel != nullptr) log.log(LogTopic::kParcel, m.k, *m.parcel);
  for (const proto::JMail* j : m.jmail)
    if (j != nullptr) log.log(LogTopic::kJMail, m.k, *j);
  for (const proto::TorqueCommand* t : m.torque)
    if (t != nullptr) log.log(LogTopic::kTorque, m.k, *t);
  if (m.supervisor != nullptr) recordEvents(log, m.k, *m.supervisor);
}

}  // namespace rfms
