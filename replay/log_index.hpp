// A run log's messages by period (and joint): what both ways of verifying a log look up.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "replay/run_log_reader.hpp"

namespace rfms {

using JointKey = std::pair<std::uint64_t, std::uint32_t>;  // period, joint

// A log's messages by period (and joint), as verify looks them up.
struct LogIndex {
  std::map<std::uint64_t, const proto::ArmSensors*> sensors;  // by the arm's own period
  std::map<std::uint64_t, const proto::SMail*> smail;
  std::map<std::uint64_t, const proto::MMail*> mmail;
  std::map<std::uint64_t, const proto::Parcel*> parcel;
  std::map<JointKey, const proto::JMail*> jmail;
  std::map<JointKey, const proto::TorqueCommand*> torque;
  std::map<std::uint64_t, const proto::PeriodTiming*> timing;
  std::map<std::uint64_t, const proto::AppliedTorques*> applied;  // by the arm's period
  std::map<std::uint64_t, std::vector<const proto::LogEvent*>> events;
  std::multimap<std::uint64_t, const proto::LogRequest*> requests;
  std::size_t events_total = 0;

  explicit LogIndex(const RunLog& log) {
    for (const auto& m : log.sensors) sensors[m.header().period()] = &m;
    for (const auto& m : log.smail) smail[m.header().period()] = &m;
    for (const auto& m : log.mmail) mmail[m.header().period()] = &m;
    for (const auto& m : log.parcel) parcel[m.header().period()] = &m;
    for (const auto& m : log.jmail) jmail[{m.header().period(), m.joint()}] = &m;
    for (const auto& m : log.torque) torque[{m.header().period(), m.joint()}] = &m;
    for (const auto& m : log.timing) timing[m.period()] = &m;
    for (const auto& m : log.applied) applied[m.header().period()] = &m;
    // The core's events only: damage the shell found in its mail is no re-run's to make.
    for (const auto& e : log.events)
      if (e.kind() != proto::LogEvent::MAIL_DAMAGED) {
        events[e.period()].push_back(&e);
        ++events_total;
      }
    for (const auto& q : log.requests) requests.emplace(q.period(), &q);
  }
  std::size_t mailboxes() const {
    return sensors.size() + smail.size() + mmail.size() + parcel.size() + jmail.size() + torque.size() + events_total;
  }
};

}  // namespace rfms
