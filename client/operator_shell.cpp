#include "client/operator_shell.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/error.hpp"
#include "common/mail_names.hpp"
#include "common/task_file.hpp"

namespace rfms {

namespace {

const std::vector<std::string> kCommands = {"status",         "jog",   "calibrate", "hold",   "free",      "stop",
                                            "emergency-stop", "reset", "power-off", "units",  "transform", "position",
                                            "motion",         "move",  "wait",      "forget", "help",      "quit"};

}  // namespace

ShellLine OperatorShell::interpret(const std::string& line) {
  ShellLine out;
  std::istringstream words(line);
  std::string first;
  if (!(words >> first) || first[0] == '#') return out;
  if (first == "quit" || first == "exit") return {ShellLine::kQuit, {}, ""};
  if (first == "help") return {ShellLine::kHelp, {}, ""};
  if (first == "status") return {ShellLine::kStatus, {}, ""};
  if (first == "at") return {ShellLine::kError, {}, "'at' times a task file; here, type the line when it is time"};

  // Everything else is a statement of a task file, written with the units typed so far.
  try {
    const std::vector<TaskStatement> parsed = parseTaskFile(units_ + "\n" + line + "\n", "shell");
    if (first == "units") {
      units_ = line;
      return out;
    }
    if (parsed.size() != 1) return {ShellLine::kError, {}, "one statement a line"};
    if (parsed.front().kind == TaskStatement::kWait) return {ShellLine::kWait, {}, ""};
    out.kind = ShellLine::kRequest;
    out.request = parsed.front().request;
    out.request.clear_id();
    return out;
  } catch (const ConfigError& e) {
    // "shell:2: reason": the line number is the shell's own prefix; the reason is what counts.
    std::string why = e.what();
    if (const auto colon = why.find(": "); why.rfind("shell:", 0) == 0 && colon != std::string::npos)
      why = why.substr(colon + 2);
    if (first == "jog") why += " (jog J|[tool] AXIS +|- [counts N | angle A | distance D])";
    return {ShellLine::kError, {}, why};
  }
}

void OperatorShell::accepted(const proto::TaskRequest& r) {
  if (r.has_transform()) transforms_.insert(r.transform().name());
  if (r.has_position()) positions_.insert(r.position().name());
  if (r.has_motion()) motions_.insert(r.motion().name());
  if (r.has_forget()) {
    std::set<std::string>& names = r.forget().kind() == proto::Forget::FK_TRANSFORM  ? transforms_
                                   : r.forget().kind() == proto::Forget::FK_POSITION ? positions_
                                                                                     : motions_;
    names.erase(r.forget().name());
  }
}

std::vector<std::string> OperatorShell::completions(const std::string& first, int index,
                                                    const std::string& prefix) const {
  std::vector<std::string> out;
  auto add = [&](const auto& names) {
    for (const std::string& n : names)
      if (n.rfind(prefix, 0) == 0) out.push_back(n);
  };
  if (index == 0) {
    add(kCommands);
  } else if (first == "move") {
    add(index == 1 ? positions_ : motions_);
  } else if (first == "position") {
    add(transforms_);
    add(std::vector<std::string>{"T6", "TL", "="});
  } else if (first == "jog" && index == 1) {
    add(std::vector<std::string>{"1", "2", "3", "4", "5", "6", "x", "y", "z", "rx", "ry", "rz", "tool"});
  } else if (first == "jog" && index == 3) {
    add(std::vector<std::string>{"counts", "angle", "distance"});
  }
  return out;
}

const char* OperatorShell::help() {
  return "  status                              the controller's state, once\n"
         "  jog J +|-                           joint J on, 4 counts a period, until hold or stop\n"
         "  jog J +|- counts N | angle A        one step of joint J, then it holds\n"
         "  jog [tool] AXIS +|- [distance D | angle A]\n"
         "                                      the wrist along/about x y z rx ry rz of the base (or tool)\n"
         "                                      frame: on until stop, or one step of that size\n"
         "  calibrate | hold | free | stop      change the controller's state (RFMS: MANU -> CALIB -> HOLD)\n"
         "  emergency-stop | reset | power-off  power off now, brakes on (EMGCY); leave EMGCY; power off\n"
         "  units mm deg [N]                    the units of the lines that follow\n"
         "  transform | position | motion ...   define, as in a task file (docs/task-format.md)\n"
         "  move POSITION MOTION | wait         queue a move; wait for every move so far\n"
         "  help | quit                         this; leave (the shell's task is closed)\n";
}

std::string statusLine(const ArmStatus& s, std::size_t width, const std::string& last_step) {
  char text[256];
  std::string emergency;
  if (s.state == ArmState::kEmgcy)
    emergency = std::string("  (") + describe(s.reason) + (s.reason_axis.empty() ? "" : ", along " + s.reason_axis) +
                ", " + nameOf(s.reason_node) + ")";
  const Vec3 p = 1e3 * s.t6.translation();
  std::snprintf(text, sizeof text, "RFMS %-5s %s  T6 %.1f %.1f %.1f mm  moves %llu/%llu%s%s", nameOf(s.state),
                s.calibrated ? "calibrated" : "not calibrated", p.x(), p.y(), p.z(),
                static_cast<unsigned long long>(s.ended_through), static_cast<unsigned long long>(s.last_move_id),
                s.task.empty() ? "" : ("  task " + s.task).c_str(), emergency.c_str());
  std::string line = text;
  if (!last_step.empty())
    line += "  last " + last_step;
  else if (!s.jog_stopped.empty())
    line += "  last jog stopped short: " + s.jog_stopped;
  if (line.size() > width) line.resize(width);
  return line;
}

bool isJogStep(const proto::TaskRequest& r) {
  if (!r.has_control() || r.control().command() != proto::CC_JOG) return false;
  const proto::Control& c = r.control();
  if (c.axis() != proto::JA_NONE) return c.distance() != 0.0 || c.angle() != 0.0;
  return c.counts() != 0 || c.angle() != 0.0;
}

std::string jogStepEnd(const proto::Control& c, const ArmStatus& before, const ArmStatus& after) {
  constexpr double kDeg = 180.0 / 3.14159265358979323846;
  char text[160];
  if (c.axis() == proto::JA_NONE) {
    const auto j = static_cast<std::size_t>(c.joint() - 1);
    const double made =
        j < before.angles.size() && j < after.angles.size() ? (after.angles[j] - before.angles[j]) * kDeg : 0.0;
    if (c.angle() != 0.0)
      std::snprintf(text, sizeof text, "step: joint %d turned %.2f deg of %.2f deg", c.joint(), std::abs(made),
                    std::abs(c.angle()) * kDeg);
    else
      std::snprintf(text, sizeof text, "step: joint %d turned %.2f deg (%d counts asked)", c.joint(), std::abs(made),
                    std::abs(c.counts()));
  } else if (c.axis() <= proto::JA_Z) {
    const double made = 1e3 * (after.t6.translation() - before.t6.translation()).norm();
    std::snprintf(text, sizeof text, "step: %.1f mm of %.1f mm along %s", made, 1e3 * std::abs(c.distance()),
                  withoutPrefix(proto::JogAxis_Name(c.axis())));
  } else {
    const double made = Eigen::AngleAxisd(before.t6.linear().transpose() * after.t6.linear()).angle() * kDeg;
    std::snprintf(text, sizeof text, "step: %.2f deg of %.2f deg about %s", made, std::abs(c.angle()) * kDeg,
                  withoutPrefix(proto::JogAxis_Name(c.axis())));
  }
  std::string line = text;
  for (char& ch : line)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  if (!after.jog_stopped.empty()) line += "; stopped short: " + after.jog_stopped;
  return line;
}

}  // namespace rfms
