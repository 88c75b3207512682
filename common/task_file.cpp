#include "common/task_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>
#include <utility>

#include "common/error.hpp"
#include "common/jog_step.hpp"
#include "common/mail_codec.hpp"
#include "common/number_text.hpp"
#include "common/text_file.hpp"
#include "common/transform.hpp"

namespace rfms {

const char* const kExampleTask = R"(# pumatask() of the RFMS manual (A.5 §2.2), in the task-file form.
units mm deg
transform t2 trans 203.2 -126.23 203.2           # home
position home righty,down,flip T6 = t2 TL T6
motion mjnt joint 2.0 0.2
motion mcart cartesian 4.0 0.3
motion mcartcz cartesian 20.0 0.5 compliance z
motion mcartcx cartesian 15.0 0.5 compliance x
move home mcartcz
move home mjnt
)";

namespace {

class LineParser {
 public:
  LineParser(std::string source, int line, std::string text) : source_(std::move(source)), line_(line), in_(text) {}

  // "<source>:<line>: <what>", or the reason alone for a line typed on its own (no source).
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(source_.empty() ? what : source_ + ":" + std::to_string(line_) + ": " + what);
  }
  bool word(std::string& out) { return static_cast<bool>(in_ >> out); }
  std::string need(const char* what) {
    std::string w;
    if (!word(w)) fail(std::string("expected ") + what);
    return w;
  }
  double number(const char* what) { return numberFrom(need(what), what); }
  double numberFrom(const std::string& w, const char* what) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != w.size() || !std::isfinite(v)) fail(std::string(what) + ": '" + w + "' is not a number");
    return v;
  }
  void end() {
    std::string extra;
    if (word(extra)) fail("unexpected '" + extra + "' at the end of the line");
  }

 private:
  std::string source_;
  int line_;
  std::istringstream in_;
};

constexpr const char* kAxisNames[] = {"x", "y", "z", "rx", "ry", "rz"};
constexpr double kNewtonsPerPoundForce = 4.4482216152605;

int axisIndex(const std::string& name) {
  for (int b = 0; b < 6; ++b)
    if (name == kAxisNames[b]) return b;
  return -1;
}

std::uint32_t complianceBits(LineParser& p, const std::string& text) {
  if (text == "none") return 0;
  if (text.rfind("0x", 0) == 0) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(text, &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || v > 0x3f) p.fail("compliance '" + text + "': expected six bits, 0x0..0x3f");
    return static_cast<std::uint32_t>(v);
  }
  std::uint32_t bits = 0;
  std::istringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const int b = axisIndex(part);
    if (b < 0) p.fail("compliance '" + part + "': expected none, x, y, z, rx, ry, rz or 0x..");
    bits |= 1u << b;
  }
  return bits;
}

// The units of the lines that follow: metres, radians and newtons per unit written.
struct Units {
  double length = 1e-3, angle = std::numbers::pi / 180.0, force = 1.0;  // mm, degrees, N by default
  std::string length_name = "mm", angle_name = "deg", force_name = "N";
  bool force_named = false;  // whether the units line named its force unit

  std::string line() const { return "units " + length_name + " " + angle_name + (force_named ? " " + force_name : ""); }
};

// units LENGTH ANGLE [FORCE]
void parseUnits(LineParser& p, Units& units) {
  units = Units{};
  units.length_name = p.need("a length unit (mm or m)");
  units.angle_name = p.need("an angle unit (deg or rad)");
  if (units.length_name != "mm" && units.length_name != "m")
    p.fail("length unit '" + units.length_name + "': expected mm or m");
  if (units.angle_name != "deg" && units.angle_name != "rad")
    p.fail("angle unit '" + units.angle_name + "': expected deg or rad");
  units.length = units.length_name == "mm" ? 1e-3 : 1.0;
  units.angle = units.angle_name == "deg" ? std::numbers::pi / 180.0 : 1.0;
  units.force_named = p.word(units.force_name);
  if (!units.force_named) units.force_name = "N";
  if (units.force_name != "N" && units.force_name != "lbf")
    p.fail("force unit '" + units.force_name + "': expected N or lbf");
  units.force = units.force_name == "N" ? 1.0 : kNewtonsPerPoundForce;
}

// What a force-control option writes on an axis: a force (a moment about rx ry rz), a stiffness
// or a damping.
enum class ForceWord { kForce, kStiffness, kDamping };

const char* nameOf(ForceWord word) {
  return word == ForceWord::kForce ? "force" : word == ForceWord::kStiffness ? "stiffness" : "damping";
}

// `value`, written in the file's units, in SI (N, N m, N/m, N m/rad, N s/m, N m s/rad): a moment is
// force × length; a stiffness force/length, about an axis of turning force × length/angle; a
// damping the same times seconds. Task files once took these in SI whatever their units said; a
// file whose lengths or angles make the two readings differ must name its force unit, so that an
// old file is refused rather than read a thousand times softer or stiffer.
double forceQuantity(LineParser& p, const Units& u, ForceWord word, int axis, double value) {
  const bool turn = axis >= 3;
  const std::string force = turn ? u.force_name + " " + u.length_name : u.force_name;
  double scale = 1.0;  // from the file's lengths and angles to SI, forces aside
  std::string unit;
  if (word == ForceWord::kForce) {
    scale = turn ? u.length : 1.0;
    unit = force;
  } else {
    scale = turn ? u.length / u.angle : 1.0 / u.length;
    unit = force + (word == ForceWord::kDamping ? " s" : "") + "/" + (turn ? u.angle_name : u.length_name);
  }
  if (scale != 1.0 && !u.force_named)
    p.fail(std::string(nameOf(word)) + " " + kAxisNames[axis] + ": under '" + u.line() + "' it is in " + unit +
           "; name the force unit to say so, '" + u.line() + " N' (task files once read it in SI)");
  return value * scale * u.force;
}

// transform NAME trans X Y Z | rpy|eul X Y Z A1 A2 A3 | matrix (12 entries, row by row)
void parseTransform(LineParser& p, const Units& units, proto::DefineTransform& t) {
  t.set_name(p.need("a transform name"));
  const std::string form = p.need("trans, rpy, eul or matrix");
  Transform value;
  if (form == "matrix") {
    Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) m(r, c) = p.number("matrix entry") * (c == 3 ? units.length : 1.0);
    value.matrix() = m;
  } else {
    const double x = p.number("x") * units.length, y = p.number("y") * units.length, z = p.number("z") * units.length;
    if (form == "trans") {
      value = trans(x, y, z);
    } else if (form == "rpy" || form == "eul") {
      const double a1 = p.number("first angle") * units.angle, a2 = p.number("second angle") * units.angle,
                   a3 = p.number("third angle") * units.angle;
      value = trans(x, y, z) * (form == "rpy" ? rpy(a1, a2, a3) : eul(a1, a2, a3));
    } else {
      p.fail("transform form '" + form + "': expected trans, rpy, eul or matrix");
    }
  }
  encode(value, *t.mutable_value());
}

// position NAME CONFIG LHS... = RHS... [tool NAME]
void parsePosition(LineParser& p, proto::DefinePosition& pos) {
  pos.set_name(p.need("a position name"));
  const auto config = ArmConfig::parse(p.need("a configuration such as righty,down,noflip"));
  if (!config) p.fail("configuration: expected one each of lefty|righty, up|down, flip|noflip");
  encode(*config, *pos.mutable_config());
  bool rhs = false;
  for (std::string w; p.word(w);) {
    if (w == "=") {
      if (rhs) p.fail("a position equation has one '='");
      rhs = true;
    } else if (w == "TL" && rhs) {  // "TL NAME", the manual's, names the tool and ends the equation
      pos.set_tool(p.need("the tool transform's name"));
    } else if (w == "tool" && rhs) {
      p.fail("'tool' in a position equation is now 'TL', the manual's name: '... = OBJ TL GRIP'");
    } else {
      (rhs ? pos.add_rhs() : pos.add_lhs())->assign(w);
    }
  }
  if (!rhs) p.fail("a position equation needs '=' between its sides");
}

// law p KP | pd KP KV | pi KP KI
void parseForceLaw(LineParser& p, proto::ForceControl& f) {
  const std::string kind = p.need("a force law: p, pd or pi");
  if (kind == "p") {
    f.set_law(proto::FL_P);
    f.set_kp(p.number("the law's kp"));
  } else if (kind == "pd") {
    f.set_law(proto::FL_PD);
    f.set_kp(p.number("the law's kp"));
    f.set_kv(p.number("the law's kv (s)"));
  } else if (kind == "pi") {
    f.set_law(proto::FL_PI);
    f.set_kp(p.number("the law's kp"));
    f.set_ki(p.number("the law's ki (1/s)"));
  } else {
    p.fail("force law '" + kind + "': expected p, pd or pi");
  }
}

// A motion's options after its times: "compliance DIRS", "track", "guard NEWTONS" and "compensate
// K1", each at most once, and force control: "force AXIS N", "stiffness AXIS K" and "damping AXIS
// D", once per axis (each of the first two makes its axis compliant), "frame base|tool" and "law
// p|pd|pi ...", in any order. After "compensate K1" its other terms may follow, each at most once:
// "rate K2", "acceleration K3", "lead T", "lag T" (seconds whatever the units).
class MotionOptions {
 public:
  MotionOptions(LineParser& p, const Units& units, proto::DefineMotion& m) : p_(p), units_(units), m_(m) {}

  void parse() {
    for (std::string w; p_.word(w);) option(w);
  }

 private:
  void option(const std::string& w) {
    if (w == "compliance" && !once(compliance_)) {
      m_.set_compliance(m_.compliance() | complianceBits(p_, p_.need("compliance directions")));
    } else if (w == "force") {
      const int d = axisValue(ForceWord::kForce, given_force_, m_.mutable_force()->mutable_force());
      m_.mutable_force()->set_force_axes(m_.force().force_axes() | 1u << d);
      m_.set_compliance(m_.compliance() | 1u << d);
    } else if (w == "stiffness") {
      const int d = axisValue(ForceWord::kStiffness, given_stiffness_, m_.mutable_force()->mutable_stiffness());
      m_.set_compliance(m_.compliance() | 1u << d);
    } else if (w == "damping") {
      axisValue(ForceWord::kDamping, given_damping_, m_.mutable_force()->mutable_damping());
    } else if (w == "frame" && !once(frame_)) {
      const std::string f = p_.need("base or tool");
      if (f != "base" && f != "tool") p_.fail("frame '" + f + "': expected base or tool");
      m_.mutable_force()->set_frame(f == "tool" ? proto::CF_TOOL : proto::CF_BASE);
    } else if (w == "law" && !once(law_)) {
      parseForceLaw(p_, *m_.mutable_force());
    } else if (w == "track" && !m_.track()) {
      m_.set_track(true);
    } else if (w == "compensate" && !once(compensate_)) {
      m_.set_compensation(p_.number("the compensation gain K1 (0 .. 1)"));
    } else if (compensatorTerm(w)) {
      // read by it
    } else if (w == "guard" && !once(guard_)) {
      const double n = p_.number("guard force") * units_.force;
      if (!(n > 0.0)) p_.fail("guard force must be more than 0");
      m_.set_guard_n(n);
    } else {
      p_.fail(
          "expected 'compliance', 'force', 'stiffness', 'damping', 'frame', 'law', 'track', 'guard', "
          "'compensate' or the end of the line, got '" +
          w + "'");
    }
  }
  // A term of the compensator after "compensate K1": false when `w` names none.
  bool compensatorTerm(const std::string& w) {
    static constexpr std::array<const char*, 4> kTerms = {"rate", "acceleration", "lead", "lag"};
    const auto it = std::find(kTerms.begin(), kTerms.end(), w);
    if (it == kTerms.end()) return false;
    const auto i = static_cast<std::size_t>(it - kTerms.begin());
    if (!compensate_) p_.fail("'" + w + "' is a term of the compensator: it follows 'compensate K1'");
    if (once(terms_[i])) p_.fail("compensator " + w + " is given twice");
    proto::Compensator& c = *m_.mutable_compensator();
    switch (i) {
      case 0: c.set_rate_s(p_.number("the compensator's rate gain K2 (s)")); break;
      case 1: c.set_acceleration_s2(p_.number("the compensator's acceleration gain K3 (s^2)")); break;
      case 2: c.set_lead_s(p_.number("the compensator's lead time (s)")); break;
      default: c.set_lag_s(p_.number("the compensator's lag time (s)")); break;
    }
    return true;
  }
  // Whether the option was given before; marks it given.
  static bool once(bool& given) { return std::exchange(given, true); }
  // "AXIS VALUE" of a per-axis option, the value in SI: the axis's index.
  int axisValue(ForceWord word, std::uint32_t& given, google::protobuf::RepeatedField<double>* v) {
    const char* what = nameOf(word);
    const std::string axis = p_.need("an axis: x, y, z, rx, ry or rz");
    const int d = axisIndex(axis);
    if (d < 0) p_.fail(std::string(what) + " axis '" + axis + "': expected x, y, z, rx, ry or rz");
    if ((given >> d) & 1u) p_.fail(std::string(what) + " " + axis + " is given twice");
    given |= 1u << d;
    if (v->empty()) v->Resize(6, 0.0);
    v->Set(d, forceQuantity(p_, units_, word, d, p_.number(what)));
    return d;
  }

  LineParser& p_;
  const Units& units_;
  proto::DefineMotion& m_;
  bool compliance_ = false, guard_ = false, frame_ = false, law_ = false, compensate_ = false;
  std::array<bool, 4> terms_{};  // the compensator's rate, acceleration, lead and lag given
  std::uint32_t given_force_ = 0, given_stiffness_ = 0, given_damping_ = 0;
};

// motion NAME joint|cartesian SEGMENT_S ACCEL_S [options]
void parseMotion(LineParser& p, const Units& units, proto::DefineMotion& m) {
  m.set_name(p.need("a motion name"));
  const std::string mode = p.need("joint or cartesian");
  if (mode != "joint" && mode != "cartesian") p.fail("motion mode '" + mode + "': expected joint or cartesian");
  m.set_mode(mode == "joint" ? proto::MM_JOINT : proto::MM_CARTESIAN);
  m.set_segment_s(p.number("segment time (s)"));
  m.set_accel_s(p.number("acceleration time (s)"));
  MotionOptions(p, units, m).parse();
}

// The target of a jog: a joint 1..6, or an axis of the base frame ("tool AXIS": of T6's own frame).
void parseJogTarget(LineParser& p, proto::Control& c) {
  std::string target = p.need("a joint 1..6 or an axis (x y z rx ry rz, or tool and one of them)");
  if (target == "tool") {
    c.set_tool_frame(true);
    target = p.need("an axis of the tool frame: x y z rx ry rz");
  }
  if (const int axis = axisIndex(target); axis >= 0) {
    c.set_axis(static_cast<proto::JogAxis>(proto::JA_X + axis));
    return;
  }
  if (c.tool_frame()) p.fail("jog tool '" + target + "': expected an axis x y z rx ry rz");
  // Checked before the conversion: a double out of int's range converts to anything, and 2.9
  // would have jogged joint 2.
  const double joint = p.numberFrom(target, "joint number");
  if (joint != std::floor(joint) || joint < 1 || joint > kJoints) p.fail("jog: the joint must be a whole number 1..6");
  c.set_joint(static_cast<int>(joint));
}

// jog TARGET +|- [counts N | angle A | distance D]: without a size the jog goes on until hold or
// stop; with one it is one step.
void parseJog(LineParser& p, const Units& units, proto::Control& c) {
  c.set_command(proto::CC_JOG);
  parseJogTarget(p, c);
  const std::string dir = p.need("+ or -");
  if (dir != "+" && dir != "-") p.fail("jog direction '" + dir + "': expected + or -");
  c.set_direction(dir == "+" ? 1 : -1);
  std::string size;
  if (!p.word(size)) return;
  if (size == "distance") {
    c.set_distance(p.number("the step's distance") * units.length);
  } else if (size == "counts") {
    const double n = p.number("encoder counts");
    if (n != std::floor(n) || n < 1 || n > static_cast<double>(kMaxJogCounts))
      p.fail("jog counts: a whole number 1.." + std::to_string(kMaxJogCounts));
    c.set_counts(static_cast<int>(n));
  } else if (size == "angle") {
    c.set_angle(p.number("the step's angle") * units.angle);
  } else {
    p.fail("jog size '" + size + "': expected counts N, angle A, distance D or the end of the line");
  }
  // On the wire a size of 0 is none at all (a jog that goes on): written out, it is a mistake.
  if (c.distance() == 0.0 && c.angle() == 0.0 && c.counts() == 0)
    p.fail("jog " + size + " 0: a step of nothing (leave the size out for a jog that goes on until hold or stop)");
  // A step's size must fit what moves, by the rule the controller applies too.
  if (std::string why = jogStepProblem(c); !why.empty()) p.fail(why);
}

// The commands that change the controller's state, each a statement of its own.
constexpr std::pair<const char*, proto::ControlCommand> kCommands[] = {{"calibrate", proto::CC_CALIBRATE},
                                                                       {"hold", proto::CC_HOLD},
                                                                       {"free", proto::CC_FREE},
                                                                       {"stop", proto::CC_STOP},
                                                                       {"reset", proto::CC_RESET},
                                                                       {"power-off", proto::CC_POWER_OFF},
                                                                       {"emergency-stop", proto::CC_EMERGENCY_STOP}};

// Words the task language had before the task file, rfms-client, the operator's shell and the desk
// shared one vocabulary, each with what replaced it. They are refused, naming the new spelling,
// rather than read as aliases: one spelling a command, in every place a user writes it.
constexpr std::pair<const char*, const char*> kRetired[] = {
    {"estop", "'emergency-stop'"},
    {"emergency_stop", "'emergency-stop'"},
    {"power_off", "'power-off'"},
    {"step", "a jog with its size: 'jog 2 + counts 100', 'jog z - distance 5', 'jog 3 - angle 2'"}};

// The command `word` names, if it is one of kCommands.
std::optional<proto::ControlCommand> commandNamed(const std::string& word) {
  for (const auto& [name, command] : kCommands)
    if (word == name) return command;
  return std::nullopt;
}

// forget transform|position|motion NAME
void parseForget(LineParser& p, proto::Forget& f) {
  const std::string kind = p.need("transform, position or motion");
  if (kind == "transform")
    f.set_kind(proto::Forget::FK_TRANSFORM);
  else if (kind == "position")
    f.set_kind(proto::Forget::FK_POSITION);
  else if (kind == "motion")
    f.set_kind(proto::Forget::FK_MOTION);
  else
    p.fail("forget '" + kind + "': expected transform, position or motion");
  f.set_name(p.need("the name to forget"));
}

// at SECONDS
void parseAt(LineParser& p, TaskStatement& st) {
  st.kind = TaskStatement::kAt;
  st.at_s = p.number("seconds after the task's statements began");
  if (!(st.at_s >= 0.0 && st.at_s <= kMaxAtS))
    p.fail("at " + numberText(st.at_s) + ": the time must be a number of seconds, 0 .. 1000000");
}

// The statements other than the commands (kCommands), each with its parser: the one list the
// language has, which also names them when a word is none of them.
using StatementParser = void (*)(LineParser&, Units&, TaskStatement&);
constexpr std::pair<const char*, StatementParser> kStatementParsers[] = {
    {"units", [](LineParser& p, Units& u, TaskStatement&) { parseUnits(p, u); }},
    {"transform",
     [](LineParser& p, Units& u, TaskStatement& st) { parseTransform(p, u, *st.request.mutable_transform()); }},
    {"position", [](LineParser& p, Units&, TaskStatement& st) { parsePosition(p, *st.request.mutable_position()); }},
    {"motion", [](LineParser& p, Units& u, TaskStatement& st) { parseMotion(p, u, *st.request.mutable_motion()); }},
    {"move",
     [](LineParser& p, Units&, TaskStatement& st) {
       st.request.mutable_move()->set_position(p.need("a position name"));
       st.request.mutable_move()->set_motion(p.need("a motion name"));
     }},
    {"wait", [](LineParser&, Units&, TaskStatement& st) { st.kind = TaskStatement::kWait; }},
    {"at", [](LineParser& p, Units&, TaskStatement& st) { parseAt(p, st); }},
    {"forget", [](LineParser& p, Units&, TaskStatement& st) { parseForget(p, *st.request.mutable_forget()); }},
    {"jog", [](LineParser& p, Units& u, TaskStatement& st) { parseJog(p, u, *st.request.mutable_control()); }},
};

// The parser of the statement `keyword` names (null: a command, or no statement).
StatementParser parserOf(const std::string& keyword) {
  for (const auto& [name, parse] : kStatementParsers)
    if (keyword == name) return parse;
  return nullptr;
}

// "units, transform, ..., power-off or emergency-stop": every statement, commands last.
std::string statementList() {
  std::vector<std::string> names;
  for (const auto& [name, parse] : kStatementParsers) names.emplace_back(name);
  for (const auto& [name, command] : kCommands) names.emplace_back(name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// One statement of `keyword` into `st`; false for `units`, which only changes `units`.
bool parseStatement(LineParser& p, const std::string& keyword, Units& units, TaskStatement& st) {
  if (const StatementParser parse = parserOf(keyword)) {
    parse(p, units, st);
  } else if (const std::optional<proto::ControlCommand> named = commandNamed(keyword)) {
    st.request.mutable_control()->set_command(*named);
  } else if (keyword == "control") {
    std::string command;
    p.word(command);
    const std::string now = retiredWord(command);
    p.fail("'control " + command + "' is now " + (now.empty() ? "'" + command + "'" : now) +
           ": a command is a statement of its own");
  } else if (const std::string now = retiredWord(keyword); !now.empty()) {
    p.fail("'" + keyword + "' is now " + now);
  } else {
    p.fail("unknown statement '" + keyword + "': expected " + statementList());
  }
  p.end();
  return keyword != "units";
}

}  // namespace

std::string commandName(proto::ControlCommand command) {
  if (command == proto::CC_JOG) return "jog";
  for (const auto& [name, c] : kCommands)
    if (c == command) return name;
  return proto::ControlCommand_Name(command);
}

std::string retiredWord(const std::string& word) {
  for (const auto& [old, now] : kRetired)
    if (word == old) return now;
  return "";
}

std::vector<TaskStatement> parseTaskFile(const std::string& text, const std::string& source) {
  std::vector<TaskStatement> out;
  Units units;
  std::istringstream lines(text);
  std::string raw;
  for (int line = 1; std::getline(lines, raw); ++line) {
    const auto hash = raw.find('#');
    if (hash != std::string::npos) raw.resize(hash);
    LineParser p(source, line, raw);
    std::string keyword;
    if (!p.word(keyword)) continue;
    TaskStatement st;
    st.line = line;
    st.request.set_id(static_cast<std::uint64_t>(line));
    if (parseStatement(p, keyword, units, st)) out.push_back(std::move(st));
  }
  return out;
}

proto::TaskRequest parseTaskLine(const std::string& line) {
  LineParser p("", 1, line.substr(0, line.find('#')));
  Units units;
  TaskStatement st;
  std::string keyword;
  if (!p.word(keyword)) p.fail("no statement: expected " + statementList());
  if (!parseStatement(p, keyword, units, st) || st.kind != TaskStatement::kRequest)
    p.fail("'" + keyword + "' asks the controller for nothing on its own");
  return st.request;
}

std::vector<TaskStatement> loadTaskFile(const std::string& path) {
  return parseTaskFile(loadTextFile(path, "task file"), path);
}

}  // namespace rfms
