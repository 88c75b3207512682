#include "client/operator_shell.hpp"

#include <cctype>
#include <cstdio>
#include <sstream>

#include "common/error.hpp"
#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "common/task_file.hpp"

namespace rfms {

namespace {

const std::vector<std::string> kCommands = {"status",   "step",   "jog",   "calibrate", "hold",  "free",
                                            "stop",     "estop",  "reset", "power-off", "units", "transform",
                                            "position", "motion", "move",  "wait",      "help",  "quit"};

// The operator's words for the task file's control statements.
std::string controlFor(const std::string& word) {
  if (word == "calibrate" || word == "hold" || word == "free" || word == "stop" || word == "reset") return word;
  if (word == "estop") return "emergency_stop";
  if (word == "power-off") return "power_off";
  return "";
}

}  // namespace

ShellLine OperatorShell::interpret(const std::string& line) {
  ShellLine out;
  std::istringstream words(line);
  std::string first;
  if (!(words >> first) || first[0] == '#') return out;
  std::string rest;
  std::getline(words, rest);
  if (first == "quit" || first == "exit") return {ShellLine::kQuit, {}, ""};
  if (first == "help") return {ShellLine::kHelp, {}, ""};
  if (first == "status") return {ShellLine::kStatus, {}, ""};
  if (first == "at") return {ShellLine::kError, {}, "'at' times a task file; here, type the line when it is time"};

  // Everything else is a statement of a task file, written with the units typed so far.
  std::string statement = line;
  if (first == "step") {
    statement = "control jog" + rest;
    std::istringstream args(rest);
    std::string target, direction, size;
    args >> target;
    if (target == "tool") args >> target;
    args >> direction;
    // A step has a size: 100 counts of a joint, 1 mm along an axis, 1 degree about one (in the
    // units typed so far; the defaults are mm and degrees).
    if (!(args >> size))
      statement += target.empty() || std::isdigit(static_cast<unsigned char>(target[0])) ? " counts 100"
                   : target[0] == 'r'                                                    ? " angle 1"
                                                                                         : " distance 1";
  } else if (first == "jog") {
    std::istringstream args(rest);
    std::string target, direction, extra;
    args >> target;
    if (target == "tool") args >> target;
    args >> direction;
    if (args >> extra) return {ShellLine::kError, {}, "jog goes on until hold or stop; for one step, say step"};
    statement = "control jog" + rest;
  } else if (const std::string control = controlFor(first); !control.empty()) {
    if (!rest.empty() && rest.find_first_not_of(" \t") != std::string::npos)
      return {ShellLine::kError, {}, first + " takes nothing after it"};
    statement = "control " + control;
  }
  try {
    const std::vector<TaskStatement> parsed = parseTaskFile(units_ + "\n" + statement + "\n", "shell");
    if (first == "units") {
      units_ = statement;
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
    if (first == "step" || first == "jog")
      why += " (" + first + " J|[tool] AXIS +|-" + (first == "step" ? " [counts N | angle A | distance D])" : ")");
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
  } else if ((first == "step" || first == "jog") && index == 1) {
    add(std::vector<std::string>{"1", "2", "3", "4", "5", "6", "x", "y", "z", "rx", "ry", "rz", "tool"});
  } else if (first == "step" && index == 3) {
    add(std::vector<std::string>{"counts", "angle", "distance"});
  }
  return out;
}

const char* OperatorShell::help() {
  return "  status                              the controller's state, once\n"
         "  step J +|- [counts N | angle A]     one step of joint J (100 counts unless told), then it holds\n"
         "  jog J +|-                           joint J on, 4 counts a period, until hold or stop\n"
         "  step|jog [tool] AXIS +|- [distance D | angle A]\n"
         "                                      the wrist along/about x y z rx ry rz of the base (or tool)\n"
         "                                      frame: a step (1 mm or 1 deg unless told), or on until stop\n"
         "  calibrate | hold | free | stop      change the controller's state (RFMS: MANU -> CALIB -> HOLD)\n"
         "  estop | reset | power-off           emergency stop (power off, brakes on); leave EMGCY; power off\n"
         "  units mm deg                        the units of the lines that follow\n"
         "  transform | position | motion ...   define, as in a task file (docs/task-format.md)\n"
         "  move POSITION MOTION | wait         queue a move; wait for every move so far\n"
         "  help | quit                         this; leave (the shell's task is closed)\n";
}

std::string statusLine(const proto::ArmStatus& s, std::size_t width) {
  char text[256];
  Transform t6;
  const bool pose = decode(s.t6(), t6);
  const std::string state = proto::RtState_Name(s.rtstate()).substr(3);
  std::string emergency;
  if (s.rtstate() == proto::RT_EMGCY)
    emergency = std::string("  (") + describe(s.reason()) + ", " + nodeName(s.reason_node()) + ")";
  if (pose) {
    std::snprintf(text, sizeof text, "RFMS %-5s %s  T6 %.1f %.1f %.1f mm  moves %llu/%llu%s%s", state.c_str(),
                  s.calibrated() ? "calibrated" : "not calibrated", 1e3 * t6.translation().x(),
                  1e3 * t6.translation().y(), 1e3 * t6.translation().z(),
                  static_cast<unsigned long long>(s.ended_through()), static_cast<unsigned long long>(s.last_move_id()),
                  s.task().empty() ? "" : ("  task " + s.task()).c_str(), emergency.c_str());
  } else {
    std::snprintf(text, sizeof text, "RFMS %-5s %s%s", state.c_str(), s.calibrated() ? "calibrated" : "not calibrated",
                  emergency.c_str());
  }
  std::string line = text;
  if (line.size() > width) line.resize(width);
  return line;
}

}  // namespace rfms
