#include "supervisor/task_summary.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "common/kinematics.hpp"
#include "common/mail_names.hpp"
#include "common/refusal.hpp"

namespace rfms {

namespace {}  // namespace

FinalError finalError(const ScriptLog& log, const WorldModel& names, const WorldValues& values, const RobotModel& model,
                      const JointVec& q) {
  FinalError f;
  for (auto it = log.moves.rbegin(); it != log.moves.rend(); ++it) {
    if (!it->completed) continue;
    const Transform target = values.solve(names.findPosition(it->position));
    const Transform actual = forwardKinematics(model, q);
    f.mm = 1e3 * (actual.translation() - target.translation()).norm();
    f.deg = 180.0 / std::numbers::pi * Eigen::AngleAxisd(target.linear().transpose() * actual.linear()).angle();
    break;
  }
  return f;
}

namespace {

// "settled in 0.121 s" against the band about `about`, or that it never did.
std::string settling(double settle_s) {
  char buf[48];
  if (settle_s >= 0.0)
    std::snprintf(buf, sizeof buf, "settled in %.3f s", settle_s);
  else
    std::snprintf(buf, sizeof buf, "NOT settled within 5 %%");
  return buf;
}

void writeForceFigures(std::ostream& o, const ForceFigures& ff) {
  char buf[320];
  if (ff.impedance) {
    std::snprintf(buf, sizeof buf,
                  "      impedance: force applied along the compliant axes p50 %.3f N, max %.3f N, %.2f N at the end\n",
                  ff.error_p50_n, ff.error_max_n, ff.final_n);
    o << buf;
    return;
  }
  std::snprintf(buf, sizeof buf,
                "      force %.2f N: error p50 %.3f N, p99 %.3f N, max %.3f N; peak %.2f N (overshoot %.1f %%), %s\n",
                ff.setpoint_n, ff.error_p50_n, ff.error_p99_n, ff.error_max_n, ff.peak_n,
                100.0 * (ff.peak_n - ff.setpoint_n) / ff.setpoint_n, settling(ff.settle_s).c_str());
  o << buf;
  // Against the force the move ended with: what a P law settles to is not its setpoint.
  std::snprintf(buf, sizeof buf,
                "      from %.2f N to %.2f N (its law settles to %.2f N%s): past it by %.2f N (%.1f %% of the step), "
                "%s\n",
                ff.start_n, ff.final_n, ff.law_n, ff.held ? "" : ": NOT HELD, the move failed",
                ff.overshoot_final * std::abs(ff.final_n - ff.start_n), 100.0 * ff.overshoot_final,
                settling(ff.settle_final_s).c_str());
  o << buf;
}

}  // namespace

bool succeeded(const ScriptLog& log) {
  return log.refused.empty() && log.allMovesCompleted() && !log.emergency && !log.timed_out;
}

void writeSummaryText(std::ostream& o, const ScriptLog& log, double dt, const FinalError& f) {
  char buf[256];
  o << "states:";
  for (proto::RtState st : log.states) o << ' ' << stateName(st);
  o << "\nmoves (" << log.moves.size() << "):\n";
  for (const MoveRecord& m : log.moves) {
    std::snprintf(buf, sizeof buf, "  #%llu %-10s %-10s start %7.3f s  end %7.3f s  %s\n",
                  static_cast<unsigned long long>(m.id), m.position.c_str(), m.motion.c_str(),
                  static_cast<double>(m.started) * dt, static_cast<double>(m.ended) * dt,
                  m.failed()    ? "FAILED"
                  : m.completed ? "completed"
                                : (m.aborted ? "ABORTED" : "NOT DONE"));
    o << buf;
    if (m.guarded) {
      const Vec3 p = 1e3 * m.contact_pose.translation();
      std::snprintf(buf, sizeof buf, "      guard met: %.2f N at tool point (%.2f, %.2f, %.2f) mm, period %llu\n",
                    m.contact_force.norm(), p.x(), p.y(), p.z(), static_cast<unsigned long long>(m.ended - 1));
      o << buf;
    }
    if (m.guard_missed) o << "      guard NOT met: the move ran its course without touching anything\n";
    if (m.yielded) {
      const Vec3 y = 1e3 * m.yield;
      std::snprintf(buf, sizeof buf, "      yielded (%.2f, %.2f, %.2f) mm from its path's end, and rests there\n",
                    y.x(), y.y(), y.z());
      o << buf;
    }
    if (m.force) writeForceFigures(o, *m.force);
    if (m.force) {
      const ForceFigures& ff = *m.force;
      const Vec3 p = 1e3 * ff.end_pose.translation();
      std::snprintf(buf, sizeof buf, "      ended at tool point (%.2f, %.2f, %.2f) mm\n", p.x(), p.y(), p.z());
      o << buf;
    }
  }
  for (const std::string& r : log.refused) o << "refused: " << r << "\n";
  for (const std::string& w : log.warnings) o << "warning: " << w << "\n";
  std::snprintf(buf, sizeof buf, "final T6 error: %.4f mm, %.4f deg\n", f.mm, f.deg);
  o << buf;
  if (log.emergency)
    o << "EMGCY: " << describe(log.reason) << (*log.axis != '\0' ? std::string(", along ") + log.axis : "") << " ("
      << nodeName(log.node) << ")\n";
}

namespace {
// A string as JSON writes it (quotes, escapes; bytes that are not UTF-8 replaced).
std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string quotedList(const std::vector<std::string>& texts) {
  std::string out = "[";
  for (std::size_t i = 0; i < texts.size(); ++i) out += (i ? "," : "") + quoted(texts[i]);
  return out + "]";
}

std::vector<std::string> codeNames(const std::vector<RefusalCode>& codes) {
  std::vector<std::string> names;
  for (RefusalCode c : codes) names.emplace_back(refusalName(c));
  return names;
}
}  // namespace

void writeSummaryJson(std::ostream& o, const ScriptLog& log, double dt, const FinalError& f) {
  const auto precision = o.precision(17);
  o << "\"calibrated\":" << (log.calibrated ? "true" : "false")
    << ",\"timed_out\":" << (log.timed_out ? "true" : "false") << ",\"states\":[";
  for (std::size_t i = 0; i < log.states.size(); ++i) o << (i ? "," : "") << '"' << stateName(log.states[i]) << '"';
  o << "],\"moves\":[";
  for (std::size_t i = 0; i < log.moves.size(); ++i) {
    const MoveRecord& m = log.moves[i];
    o << (i ? "," : "") << "{\"id\":" << m.id << ",\"position\":" << quoted(m.position)
      << ",\"motion\":" << quoted(m.motion) << ",\"started_s\":" << static_cast<double>(m.started) * dt
      << ",\"ended_s\":" << static_cast<double>(m.ended) * dt << ",\"completed\":" << (m.completed ? "true" : "false")
      << ",\"failed\":" << (m.failed() ? "true" : "false");
    if (m.guard_missed) o << ",\"guard_missed\":true";
    if (m.guarded) {
      const Vec3 p = m.contact_pose.translation();
      o << ",\"guard_met\":{\"force_n\":" << m.contact_force.norm() << ",\"period\":" << m.ended - 1
        << ",\"tool_point_m\":[" << p.x() << ',' << p.y() << ',' << p.z() << "]}";
    }
    if (m.yielded) o << ",\"yielded_m\":[" << m.yield.x() << ',' << m.yield.y() << ',' << m.yield.z() << ']';
    if (m.force) {
      const ForceFigures& ff = *m.force;
      o << ",\"force\":{\"setpoint_n\":" << ff.setpoint_n << ",\"error_p50_n\":" << ff.error_p50_n
        << ",\"error_p99_n\":" << ff.error_p99_n << ",\"error_max_n\":" << ff.error_max_n << ",\"peak_n\":" << ff.peak_n
        << ",\"settle_s\":" << ff.settle_s << ",\"final_n\":" << ff.final_n << ",\"law_n\":" << ff.law_n
        << ",\"settle_final_s\":" << ff.settle_final_s << ",\"start_n\":" << ff.start_n
        << ",\"overshoot_final\":" << ff.overshoot_final << ",\"held\":" << (ff.held ? "true" : "false")
        << ",\"impedance\":" << (ff.impedance ? "true" : "false") << ",\"end_tool_point_m\":["
        << ff.end_pose.translation().x() << ',' << ff.end_pose.translation().y() << ',' << ff.end_pose.translation().z()
        << "]}";
    }
    o << "}";
  }
  // "completed" is what the exit code says: every move done as asked, nothing refused, no
  // emergency, no time-out; the refusals and warnings in the words the text summary uses.
  o << "],\"completed\":" << (succeeded(log) ? "true" : "false") << ",\"refused\":" << log.refused.size()
    << ",\"refusals\":" << quotedList(log.refused) << ",\"refusal_codes\":" << quotedList(codeNames(log.refusal_codes))
    << ",\"warnings\":" << log.warnings.size() << ",\"warning_texts\":" << quotedList(log.warnings)
    << ",\"final_position_error_mm\":" << f.mm << ",\"final_orientation_error_deg\":" << f.deg
    << ",\"emergency\":" << (log.emergency ? "true" : "false");
  if (log.emergency) o << ",\"reason\":" << quoted(describe(log.reason)) << ",\"node\":" << quoted(nodeName(log.node));
  if (log.emergency && *log.axis != '\0') o << ",\"axis\":" << quoted(log.axis);
  o.precision(precision);
}

}  // namespace rfms
