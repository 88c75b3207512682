#include "sim/task_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "common/kinematics.hpp"

namespace rfms {

namespace {

// Distance from p to the segment a-b.
double toSegment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0.0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (p - (a + t * ab)).norm();
}

const char* rtName(proto::RtState s) { return proto::RtState_Name(s).c_str() + 3; }
const char* tsName(proto::TrajState s) { return proto::TrajState_Name(s).c_str() + 3; }

}  // namespace

bool RunSummary::allMovesCompleted() const {
  return std::all_of(moves.begin(), moves.end(), [](const MoveRecord& m) { return m.completed; });
}

RunSummary runTask(Harness& h, const std::vector<TaskStatement>& task, const RunOptions& options) {
  RunSummary s;
  auto previous = h.on_period;
  const SupervisorCore& sup = h.supervisor();
  h.on_period = [&](const PeriodMail& m) {
    if (previous) previous(m);
    const double t = static_cast<double>(m.k + 1) * h.dt();
    for (int n = 0; n < m.supervisor->event_count; ++n) {
      const SupervisorEvent& e = m.supervisor->events[static_cast<std::size_t>(n)];
      auto rec = std::find_if(s.moves.begin(), s.moves.end(), [&](const MoveRecord& r) { return r.id == e.move_id; });
      switch (e.kind) {
        case SupervisorEvent::kMoveStarted:
          if (rec != s.moves.end()) rec->started_s = t;
          break;
        case SupervisorEvent::kMoveCompleted:
        case SupervisorEvent::kMoveAborted:
          if (rec != s.moves.end()) {
            rec->ended_s = t;
            (e.kind == SupervisorEvent::kMoveCompleted ? rec->completed : rec->aborted) = true;
          }
          break;
        case SupervisorEvent::kStateChanged: s.states.push_back(e.state); break;
        case SupervisorEvent::kEmergency:
          s.emergency = true;
          s.reason = e.reason;
          s.node = e.node;
          break;
      }
    }
    const proto::RtState rt = m.smail->rtstate();
    if (rt == proto::RT_SETP || rt == proto::RT_STOP) {
      const proto::TrajState ts = m.smail->traj_state();
      if (std::find(s.traj_states.begin(), s.traj_states.end(), ts) == s.traj_states.end())
        s.traj_states.push_back(ts);
      for (int i = 0; i < kJoints; ++i)
        s.max_following_error[i] =
            std::max(s.max_following_error[i], std::abs(m.jmail[static_cast<std::size_t>(i)]->servo_error()));
      const TrajectoryGenerator& tg = sup.trajectory();
      if ((ts == proto::TS_S1 || ts == proto::TS_S2) && tg.segmentCartesian()) {
        const Vec3 a = tg.segmentStart().translation(), b = tg.segmentTarget().translation();
        JointVec setpoints;
        for (int i = 0; i < kJoints; ++i) setpoints[i] = m.jmail[static_cast<std::size_t>(i)]->setpoint();
        const RobotModel& rm = h.model();
        s.max_setpoint_deviation_mm = std::max(
            s.max_setpoint_deviation_mm, 1e3 * toSegment(forwardKinematics(rm, setpoints).translation(), a, b));
        s.max_path_deviation_mm = std::max(
            s.max_path_deviation_mm, 1e3 * toSegment(forwardKinematics(rm, h.arm().q()).translation(), a, b));
      }
    }
  };

  const double period_s = h.dt();
  const auto periods = [&](double seconds) { return static_cast<std::uint64_t>(std::ceil(seconds / period_s)); };
  const std::uint64_t deadline = h.period() + periods(options.timeout_s);
  const auto left = [&]() { return h.period() < deadline ? deadline - h.period() : 0; };
  const auto emergency = [&]() { return sup.rtstate() == proto::RT_EMGCY; };

  // Power-up: a few periods in IDLE so every node has spoken, then calibrate.
  h.runUntil([] { return false; }, 10);
  if (options.calibrate) {
    proto::TaskRequest cal;
    cal.mutable_control()->set_command(proto::CC_CALIBRATE);
    const proto::TaskReply r = h.request(cal);
    if (!r.accepted()) s.refused.push_back("calibrate: " + r.reason());
    h.runUntil([&] { return sup.rtstate() == proto::RT_HOLD || emergency(); }, left());
  }
  s.calibrated = sup.allCalibrated();

  const auto movesDone = [&]() {
    return std::all_of(s.moves.begin(), s.moves.end(), [](const MoveRecord& m) { return m.completed || m.aborted; });
  };
  for (const TaskStatement& st : task) {
    if (emergency()) break;
    if (st.kind == TaskStatement::kWait) {
      h.runUntil([&] { return movesDone() || emergency(); }, left());
      continue;
    }
    const proto::TaskReply r = h.request(st.request);
    if (!r.accepted()) {
      s.refused.push_back("line " + std::to_string(st.line) + ": " + r.reason());
      continue;
    }
    if (st.request.has_move())
      s.moves.push_back(MoveRecord{r.move_id(), st.request.move().position(), st.request.move().motion(), st.line});
  }
  h.runUntil([&] { return movesDone() || emergency(); }, left());
  h.runUntil([] { return false; }, std::min(left(), periods(options.settle_s)));

  for (auto it = s.moves.rbegin(); it != s.moves.rend(); ++it) {
    if (!it->completed) continue;
    const Transform target = sup.world().solve(sup.world().findPosition(it->position));
    const Transform actual = forwardKinematics(h.model(), h.arm().q());
    s.final_position_error_mm = 1e3 * (actual.translation() - target.translation()).norm();
    s.final_orientation_error_deg =
        180.0 / std::numbers::pi * Eigen::AngleAxisd(target.linear().transpose() * actual.linear()).angle();
    break;
  }
  s.periods = h.period();
  s.sim_time_s = static_cast<double>(h.period()) * period_s;
  h.on_period = previous;
  return s;
}

std::string summaryText(const RunSummary& s) {
  std::ostringstream o;
  char buf[256];
  o << "simulated " << s.sim_time_s << " s (" << s.periods << " periods)"
    << (s.calibrated ? ", calibrated" : ", NOT calibrated") << "\n";
  o << "states:";
  for (proto::RtState st : s.states) o << ' ' << rtName(st);
  o << "\ntrajectory states:";
  for (proto::TrajState st : s.traj_states) o << ' ' << tsName(st);
  o << "\nmoves (" << s.moves.size() << "):\n";
  for (const MoveRecord& m : s.moves) {
    std::snprintf(buf, sizeof buf, "  #%llu %-10s %-10s start %7.3f s  end %7.3f s  %s\n",
                  static_cast<unsigned long long>(m.id), m.position.c_str(), m.motion.c_str(), m.started_s,
                  m.ended_s, m.completed ? "completed" : (m.aborted ? "ABORTED" : "NOT DONE"));
    o << buf;
  }
  for (const std::string& r : s.refused) o << "refused: " << r << "\n";
  std::snprintf(buf, sizeof buf, "final T6 error: %.4f mm, %.4f deg\n", s.final_position_error_mm,
                s.final_orientation_error_deg);
  o << buf;
  std::snprintf(buf, sizeof buf,
                "max Cartesian path deviation: arm %.4f mm, PIK setpoints %.4f mm\n", s.max_path_deviation_mm,
                s.max_setpoint_deviation_mm);
  o << buf << "max servo following error [deg]:";
  for (int i = 0; i < kJoints; ++i) {
    std::snprintf(buf, sizeof buf, " %.4f", s.max_following_error[i] * 180.0 / std::numbers::pi);
    o << buf;
  }
  o << "\n";
  if (s.emergency) o << "EMGCY: " << describe(s.reason) << " (" << nodeName(s.node) << ")\n";
  return o.str();
}

std::string summaryJson(const RunSummary& s) {
  std::ostringstream o;
  o.precision(17);
  o << "{\"sim_time_s\":" << s.sim_time_s << ",\"periods\":" << s.periods
    << ",\"calibrated\":" << (s.calibrated ? "true" : "false") << ",\"states\":[";
  for (std::size_t i = 0; i < s.states.size(); ++i) o << (i ? "," : "") << '"' << rtName(s.states[i]) << '"';
  o << "],\"trajectory_states\":[";
  for (std::size_t i = 0; i < s.traj_states.size(); ++i) o << (i ? "," : "") << '"' << tsName(s.traj_states[i]) << '"';
  o << "],\"moves\":[";
  for (std::size_t i = 0; i < s.moves.size(); ++i) {
    const MoveRecord& m = s.moves[i];
    o << (i ? "," : "") << "{\"id\":" << m.id << ",\"position\":\"" << m.position << "\",\"motion\":\"" << m.motion
      << "\",\"started_s\":" << m.started_s << ",\"ended_s\":" << m.ended_s
      << ",\"completed\":" << (m.completed ? "true" : "false") << "}";
  }
  o << "],\"refused\":" << s.refused.size() << ",\"final_position_error_mm\":" << s.final_position_error_mm
    << ",\"final_orientation_error_deg\":" << s.final_orientation_error_deg
    << ",\"max_path_deviation_mm\":" << s.max_path_deviation_mm
    << ",\"max_setpoint_deviation_mm\":" << s.max_setpoint_deviation_mm << ",\"max_following_error_rad\":[";
  for (int i = 0; i < kJoints; ++i) o << (i ? "," : "") << s.max_following_error[i];
  o << "],\"emergency\":" << (s.emergency ? "true" : "false");
  if (s.emergency) o << ",\"reason\":\"" << describe(s.reason) << "\",\"node\":\"" << nodeName(s.node) << '"';
  o << "}";
  return o.str();
}

}  // namespace rfms
