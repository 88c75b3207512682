#include "harness/task_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "common/kinematics.hpp"
#include "common/mail_names.hpp"
#include "supervisor/task_summary.hpp"

namespace rfms {

namespace {

// Distance from p to the segment a-b.
double toSegment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0.0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (p - (a + t * ab)).norm();
}

}  // namespace

ScriptOptions scriptOptions(const RunOptions& options, double dt) {
  ScriptOptions o;
  o.calibrate = options.calibrate;
  o.timeout_periods = static_cast<std::uint64_t>(std::ceil(options.timeout_s / dt));
  o.settle_periods = static_cast<std::uint64_t>(std::ceil(options.settle_s / dt));
  o.dt_s = dt;
  return o;
}

RunSummary runTask(Harness& h, const std::vector<TaskStatement>& task, const RunOptions& options) {
  RunSummary s;
  s.dt = h.dt();
  TaskScript script(task, scriptOptions(options, h.dt()));
  script.on_request = options.on_request;
  auto previous = h.on_period;
  const SupervisorCore& sup = h.supervisor();
  h.on_period = [&](const PeriodMail& m) {
    if (previous) previous(m);
    script.afterStep(m.k, *m.supervisor);
    const proto::RtState rt = m.smail->rtstate();
    if (rt != proto::RT_SETP && rt != proto::RT_STOP) return;
    const proto::TrajState ts = m.smail->traj_state();
    if (std::find(s.traj_states.begin(), s.traj_states.end(), ts) == s.traj_states.end()) s.traj_states.push_back(ts);
    for (int i = 0; i < kJoints; ++i)
      s.max_following_error[i] =
          std::max(s.max_following_error[i], std::abs(m.jmail[static_cast<std::size_t>(i)]->servo_error()));
    const TrajectoryGenerator& tg = sup.trajectory();
    if ((ts == proto::TS_S1 || ts == proto::TS_S2) && tg.segmentCartesian()) {
      // The straight line is the tool frame's (T6 itself without a tool).
      const Transform tool = tg.segmentTool();
      const Vec3 a = (tg.segmentStart() * tool).translation(), b = (tg.segmentTarget() * tool).translation();
      JointVec setpoints;
      for (int i = 0; i < kJoints; ++i) setpoints[i] = m.jmail[static_cast<std::size_t>(i)]->setpoint();
      s.max_setpoint_deviation_mm =
          std::max(s.max_setpoint_deviation_mm,
                   1e3 * toSegment((forwardKinematics(h.model(), setpoints) * tool).translation(), a, b));
      s.max_path_deviation_mm =
          std::max(s.max_path_deviation_mm,
                   1e3 * toSegment((forwardKinematics(h.model(), h.arm().q()) * tool).translation(), a, b));
    }
  };
  while (!script.done()) {
    script.beforeStep(h.period(), h.background());
    if (script.done()) break;
    h.step();
  }
  h.on_period = previous;
  s.script = script.log();

  const FinalError f = finalError(s.script, h.world(), sup.world(), h.model(), h.arm().q());
  s.final_position_error_mm = f.mm;
  s.final_orientation_error_deg = f.deg;
  s.periods = h.period();
  return s;
}

std::string summaryText(const RunSummary& s) {
  std::ostringstream o;
  char buf[256];
  const ScriptLog& l = s.script;
  o << "simulated " << s.simTime() << " s (" << s.periods << " periods)"
    << (l.calibrated ? ", calibrated" : ", NOT calibrated") << (l.timed_out ? ", TIMED OUT" : "") << "\n";
  writeSummaryText(o, l, s.dt, {s.final_position_error_mm, s.final_orientation_error_deg});
  // What only the harness can tell: the true arm against the commanded path.
  o << "trajectory states:";
  for (proto::TrajState st : s.traj_states) o << ' ' << segmentName(st);
  std::snprintf(buf, sizeof buf, "\nmax Cartesian path deviation: arm %.4f mm, PIK setpoints %.4f mm\n",
                s.max_path_deviation_mm, s.max_setpoint_deviation_mm);
  o << buf << "max servo following error [deg]:";
  for (int i = 0; i < kJoints; ++i) {
    std::snprintf(buf, sizeof buf, " %.4f", s.max_following_error[i] * 180.0 / std::numbers::pi);
    o << buf;
  }
  o << "\n";
  return o.str();
}

std::string summaryJson(const RunSummary& s) {
  std::ostringstream o;
  o.precision(17);
  o << "{\"sim_time_s\":" << s.simTime() << ",\"periods\":" << s.periods << ",\"trajectory_states\":[";
  for (std::size_t i = 0; i < s.traj_states.size(); ++i)
    o << (i ? "," : "") << '"' << segmentName(s.traj_states[i]) << '"';
  o << "],\"max_path_deviation_mm\":" << s.max_path_deviation_mm
    << ",\"max_setpoint_deviation_mm\":" << s.max_setpoint_deviation_mm << ",\"max_following_error_rad\":[";
  for (int i = 0; i < kJoints; ++i) o << (i ? "," : "") << s.max_following_error[i];
  o << "],";
  writeSummaryJson(o, s.script, s.dt, {s.final_position_error_mm, s.final_orientation_error_deg});
  o << "}";
  return o.str();
}

}  // namespace rfms
