#include "replay/log_info.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "common/statistics.hpp"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

namespace {
std::string value(const mcap::KeyValues& kv, const char* key) {
  const auto it = kv.find(key);
  return it == kv.end() ? std::string() : it->second;
}
}  // namespace

LogInfo summarise(const RunLog& log) {
  LogInfo info;
  info.robot = value(log.header, "robot");
  info.source = value(log.header, "source");
  info.clock = value(log.header, "clock");
  info.version = value(log.header, "version");
  info.dt_ms = log.dtMs();
  info.periods = log.periods();  // refused, rather than told, when the log claims more than it can
  info.duration_s = static_cast<double>(info.periods) * info.dt_ms * 1e-3;
  info.fault = log.fault();
  if (!info.fault.empty()) {
    info.first_period = log.firstPeriod();
    auto last = [&](const auto& mail) {
      for (const auto& m : mail) info.last_period = std::max<std::uint64_t>(info.last_period, m.header().period());
    };
    last(log.smail), last(log.jmail), last(log.mmail), last(log.parcel), last(log.sensors), last(log.applied);
  }
  std::map<std::uint64_t, LogInfo::Move> moves;
  for (const proto::LogEvent& e : log.events) {
    switch (e.kind()) {
      case proto::LogEvent::MOVE_STARTED:
        moves[e.move_id()].id = e.move_id(), moves[e.move_id()].started = e.period();
        break;
      case proto::LogEvent::MOVE_COMPLETED:
        moves[e.move_id()].id = e.move_id(), moves[e.move_id()].ended = e.period(), moves[e.move_id()].completed = true;
        break;
      case proto::LogEvent::MOVE_ABORTED:
        moves[e.move_id()].id = e.move_id(), moves[e.move_id()].ended = e.period(), moves[e.move_id()].aborted = true;
        break;
      case proto::LogEvent::STATE_CHANGED: info.states.push_back(proto::RtState_Name(e.state())); break;
      case proto::LogEvent::EMERGENCY:
        info.emergencies.push_back(std::string(describe(e.reason())) + " (" + nodeName(e.node()) + ") at period " +
                                   std::to_string(e.period()));
        break;
      case proto::LogEvent::MAIL_DAMAGED: info.mail_damage[e.box()] = {e.damaged(), e.node()}; break;
      default: break;
    }
  }
  for (const auto& [id, m] : moves) info.moves.push_back(m);
  for (const auto& r : log.requests) {
    ++info.requests;
    if (!r.reply().accepted()) ++info.refused;
  }
  // Servo following error, from the joints' own reports, while following setpoints (SETP, STOP).
  std::map<std::uint64_t, proto::RtState> state;
  for (const proto::SMail& s : log.smail) state[s.header().period()] = s.rtstate();
  for (const proto::JMail& j : log.jmail)
    if (j.joint() >= 1 && j.joint() <= 6) {
      const auto st = state.find(j.header().period());
      if (st == state.end() || (st->second != proto::RT_SETP && st->second != proto::RT_STOP)) continue;
      auto& e = info.max_following_error_deg[j.joint() - 1];
      e = std::max(e, std::abs(j.servo_error()) * 180.0 / M_PI);
    }
  // Path deviation: the arm where its joints say it is, against the T6 the supervisor commanded.
  if (const std::string text = value(log.header, "robot_model"); !text.empty()) {
    const RobotModel model = parseRobotModel(text, "the log's robot model");
    // Only periods whose six angles are all in the log: a joint's lost answer is not an angle of 0.
    struct Angles {
      JointVec q = JointVec::Zero();
      unsigned joints = 0;  // bit j-1: joint j's angle is in
    };
    std::map<std::uint64_t, Angles> angles;
    for (const proto::JMail& j : log.jmail)
      if (j.joint() >= 1 && j.joint() <= 6) {
        Angles& a = angles[j.header().period()];
        a.q[j.joint() - 1] = j.angle();
        a.joints |= 1u << (j.joint() - 1);
      }
    for (const proto::SMail& s : log.smail) {
      if (s.rtstate() != proto::RT_SETP) continue;
      const auto a = angles.find(s.header().period());
      Transform commanded;
      if (a == angles.end() || a->second.joints != (1u << kJoints) - 1 || !decode(s.t6(), commanded)) continue;
      const double d = (forwardKinematics(model, a->second.q).translation() - commanded.translation()).norm() * 1e3;
      info.max_path_deviation_mm = std::max(info.max_path_deviation_mm, d);
    }
  }
  if (log.have_drops) info.dropped = log.drops.dropped();
  std::map<int, std::vector<double>> late;
  for (const proto::PeriodTiming& t : log.timing) {
    for (int n = 0; n < 32; ++n)
      if ((t.missed() >> n) & 1u) ++info.timing[nodeName(static_cast<proto::Node>(n))].misses;
    for (int n = 0; n < t.lateness_ms_size(); ++n)
      if (t.lateness_ms(n) >= 0.0) late[n].push_back(t.lateness_ms(n));
  }
  for (auto& [n, v] : late) {
    auto& t = info.timing[nodeName(static_cast<proto::Node>(n))];
    t.p50 = percentile(v, 50);
    t.p99 = percentile(v, 99);
    t.max = percentile(v, 100);
  }
  return info;
}

std::string infoText(const LogInfo& i, const RunLog& log) {
  std::ostringstream o;
  o << "robot " << (i.robot.empty() ? "?" : i.robot) << ", from " << (i.source.empty() ? "?" : i.source) << " ("
    << i.clock << "), software " << i.version << "\n";
  if (i.fault.empty())
    o << "sample period " << i.dt_ms << " ms; " << i.periods << " periods, " << i.duration_s << " s\n";
  else
    o << "fault record: " << i.fault << "\nsample period " << i.dt_ms << " ms; the periods before it, "
      << i.first_period << " .. " << i.last_period << "\n";
  o << "moves:";
  if (i.moves.empty()) o << " none";
  o << "\n";
  for (const auto& m : i.moves)
    o << "  #" << m.id << " periods "
      << (m.started == 0 && !i.fault.empty() ? "(before " + std::to_string(i.first_period) + ")"
                                             : std::to_string(m.started))
      << " .. " << (m.ended ? std::to_string(m.ended) : std::string("(not ended)"))
      << (m.completed ? " completed"
          : m.aborted ? " ABORTED"
                      : "")
      << "\n";
  o << "states:";
  for (const auto& s : i.states) o << " " << s;
  o << "\nemergencies: " << (i.emergencies.empty() ? "none" : "") << "\n";
  for (const auto& e : i.emergencies) o << "  " << e << "\n";
  o << "mail damaged: " << (i.mail_damage.empty() ? "none" : "") << "\n";
  for (const auto& [box, d] : i.mail_damage)
    o << "  " << box << " (written by " << nodeName(d.second) << "): " << d.first << " dropped\n";
  o << "requests: " << i.requests << ", refused " << i.refused << "\n";
  if (i.timing.empty()) {
    o << "deadline misses: "
      << (i.clock == "realtime" ? "no timing in this log" : "none: every period had its mail (" + i.clock + ")")
      << "\n";
  } else if (i.clock != "realtime") {
    o << "periods that went on without a node's mail (it did not come within lockstep_timeout_ms):";
    for (const auto& [name, t] : i.timing)
      if (t.misses > 0) o << " " << name << " " << t.misses;
    o << "\n";
  } else {
    o << "deadline misses and lateness after the tick (p50 / p99 / max, ms):\n";
    for (const auto& [name, t] : i.timing) {
      char l[160];
      std::snprintf(l, sizeof l, "  %-10s %6llu  %.3f / %.3f / %.3f\n", name.c_str(),
                    static_cast<unsigned long long>(t.misses), t.p50, t.p99, t.max);
      o << l;
    }
  }
  char line[256];
  std::snprintf(line, sizeof line, "max path deviation (FK of measured angles vs commanded T6, in SETP): %.4f mm\n",
                i.max_path_deviation_mm);
  o << line;
  o << "max servo following error, in SETP and STOP [deg]:";
  for (double e : i.max_following_error_deg) {
    std::snprintf(line, sizeof line, " %.4f", e);
    o << line;
  }
  o << "\nmessages " << log.messages << (log.undecodable ? ", " + std::to_string(log.undecodable) + " undecodable" : "")
    << ", dropped by the logger "
    << (log.have_drops ? std::to_string(i.dropped) : std::string("unknown (the log's end is missing)"));
  for (const auto& t : log.drops.per_topic())
    o << (&t == &log.drops.per_topic(0) ? ": " : ", ") << t.topic() << " " << t.dropped();
  o << "\n";
  // Each picture is a FrameTransforms and a SceneUpdate (runlog/display_track.hpp).
  o << "pictures of the arm for Foxglove's 3D panel (/frames, /scene): " << log.display_messages / 2 << "\n";
  if (i.periods > 0 && i.fault.empty()) {
    std::snprintf(line, sizeof line, "log size %.1f MB in %zu file%s, %.0f bytes per period\n",
                  static_cast<double>(log.file_size) * 1e-6, log.files.size(), log.files.size() == 1 ? "" : "s",
                  static_cast<double>(log.file_size) / static_cast<double>(i.periods));
    o << line;
  }
  if (log.first_file > 0)
    o << "the run's first " << log.first_file << " file" << (log.first_file == 1 ? " was" : "s were")
      << " removed (log.keep_files): it is read from period "
      << (log.smail.empty() ? 0 : log.smail.front().header().period()) << " on\n";
  return o.str();
}

}  // namespace rfms
