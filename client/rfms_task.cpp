// The manual's C interface (rfms_task.h) over RfmsClient. The C side holds handles whose only
// content is a name: the world model lives in the supervisor, as it did in RFMS, and every call
// is one request answered there. Handles live in deques so that their addresses never move, and
// in maps by name so that a name given again returns the same handle.
#include "client/rfms_task.h"

#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "client/rfms_client.hpp"
#include "common/transform.hpp"

struct rfms_trsf {
  std::string name;
};
struct rfms_pst {
  std::string name;
};
struct rfms_mot {
  std::string name;
};

namespace {

using rfms::RfmsClient;

rfms_trsf t6_handle{"T6"}, eq_handle{"<EQ>"}, tl_handle{"<TL>"};

constexpr double kMm = 1e-3;
constexpr double kDeg = std::numbers::pi / 180.0;
// A list longer than this has lost its TL (reading further would run off the caller's arguments).
constexpr int kMaxPositionTerms = 64;

struct TaskState {
  std::unique_ptr<RfmsClient> client;
  std::deque<rfms_trsf> transforms;
  std::map<std::string, rfms_trsf*> transform_by_name;
  std::deque<rfms_pst> positions;
  std::map<std::string, rfms_pst*> position_by_name;
  std::deque<rfms_mot> motions;
  std::map<std::string, rfms_mot*> motion_by_name;
  std::vector<long> moves;
  int refusals = 0;
  std::string last_refusal;
  rfms::RefusalCode last_code = rfms::RefusalCode::kNone;
};

TaskState& state() {
  static TaskState s;
  return s;
}

// Prints why `what` was refused and counts it; the caller returns its failure value. An empty
// `what`: `why` names the call itself (the library's messages do). `code`: kInvalid for an
// argument refused here, kNone for a failure that is not a refusal (the link).
void refuse(const std::string& what, const std::string& why, rfms::RefusalCode code = rfms::RefusalCode::kInvalid) {
  TaskState& s = state();
  ++s.refusals;
  s.last_code = code;
  s.last_refusal = what.empty() ? why : what + ": " + why;
  std::cerr << "rfms_task: " << s.last_refusal << "\n";
}

// Runs one request through the library; false (after refuse()) when it was refused or the link
// failed. RFMS sent and forgot; here the supervisor's reason reaches the program.
template <typename F>
bool attempt(const std::string& what, F&& f) {
  if (!state().client) {
    refuse(what, "not connected (rfms_open first, or link rfms_task_main)", rfms::RefusalCode::kNone);
    return false;
  }
  try {
    f(*state().client);
    return true;
  } catch (const rfms::RequestRefused& e) {
    refuse("", e.what(), e.code());  // "<what> refused: <the supervisor's reason> [<code>]"
    return false;
  } catch (const std::exception& e) {
    refuse(what, e.what(), rfms::RefusalCode::kNone);
    return false;
  }
}

std::string nameOf(const char* name) { return name == nullptr ? std::string() : std::string(name); }

// The handle of the name: the one made before if there is one (a name defined again, a program
// that defines in a loop), so that the handles stay as many as the names.
template <typename Handle>
Handle* handleFor(std::deque<Handle>& store, std::map<std::string, Handle*>& by_name, const std::string& name) {
  const auto it = by_name.find(name);
  if (it != by_name.end()) return it->second;
  store.push_back(Handle{name});
  return by_name[name] = &store.back();
}

TRSF* defineTransform(const char* name, const rfms::Transform& value) {
  const std::string n = nameOf(name);
  if (!attempt("transform '" + n + "'", [&](RfmsClient& c) { c.transform(n, value); })) return nullptr;
  return handleFor(state().transforms, state().transform_by_name, n);
}

// The shortest decimal that reads back as the same double, in the characters a name may hold.
std::string exactly(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  std::string out(text, end);
  for (char& c : out)
    if (c == '+') c = 'p';
  return out;
}

bool finite(std::initializer_list<double> values) {
  for (double v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

extern "C" {

TRSF* const t6 = &t6_handle;
TRSF* const rfms_eq_marker = &eq_handle;
TRSF* const rfms_tl_marker = &tl_handle;

TRSF* gentr_trsl(const char* name, double x, double y, double z) {
  return defineTransform(name, rfms::trans(x * kMm, y * kMm, z * kMm));
}

TRSF* gentr_rot(const char* name, double x, double y, double z, const VECT* axis, double angle) {
  if (axis == nullptr || !finite({axis->x, axis->y, axis->z}) || rfms::Vec3(axis->x, axis->y, axis->z).norm() < 1e-12) {
    refuse("transform '" + nameOf(name) + "'", "the rotation axis is missing, zero or not a number");
    return nullptr;
  }
  const rfms::Vec3 v = rfms::Vec3(axis->x, axis->y, axis->z).normalized();
  return defineTransform(name, rfms::trans(x * kMm, y * kMm, z * kMm) * rfms::rot(v, angle * kDeg));
}

TRSF* gentr_eul(const char* name, double x, double y, double z, double phi, double theta, double psi) {
  return defineTransform(name,
                         rfms::trans(x * kMm, y * kMm, z * kMm) * rfms::eul(phi * kDeg, theta * kDeg, psi * kDeg));
}

TRSF* gentr_rpy(const char* name, double x, double y, double z, double roll, double pitch, double yaw) {
  return defineTransform(name,
                         rfms::trans(x * kMm, y * kMm, z * kMm) * rfms::rpy(roll * kDeg, pitch * kDeg, yaw * kDeg));
}

PST* makepst(const char* name, int arm, int elbow, int wrist, ...) {
  const std::string n = nameOf(name);
  const std::string what = "position '" + n + "'";
  if ((arm != RIGHT && arm != LEFT) || (elbow != UP && elbow != DOWN) || (wrist != FLIP && wrist != NOFLIP)) {
    refuse(what, "the configuration must be RIGHT or LEFT, then UP or DOWN, then FLIP or NOFLIP");
    return nullptr;
  }
  std::vector<std::string> lhs, rhs;
  std::string tool, problem;
  bool right_side = false;
  va_list terms;
  va_start(terms, wrist);
  for (int k = 0;; ++k) {
    if (k == kMaxPositionTerms) {
      problem =
          "no TL among the first " + std::to_string(kMaxPositionTerms) + " terms (the list ends with TL and the tool)";
      break;
    }
    TRSF* t = va_arg(terms, TRSF*);
    if (t == nullptr) {
      problem = "term " + std::to_string(k + 1) + " is NULL (a transform that was refused?)";
      break;
    }
    if (t == rfms_tl_marker) {
      TRSF* last = va_arg(terms, TRSF*);
      if (last == nullptr || last == rfms_eq_marker || last == rfms_tl_marker)
        problem = "TL must be followed by the tool transform (t6 for none)";
      else
        tool = last->name;
      break;
    }
    if (t == rfms_eq_marker) {
      if (right_side) {
        problem = "EQ stands twice";
        break;
      }
      right_side = true;
      continue;
    }
    (right_side ? rhs : lhs).push_back(t->name);
  }
  va_end(terms);
  if (problem.empty() && !right_side) problem = "no EQ between the two sides";
  if (!problem.empty()) {
    refuse(what, problem);
    return nullptr;
  }
  const rfms::ArmConfig config{.righty = arm == RIGHT, .up = elbow == UP, .flip = wrist == FLIP};
  if (!attempt(what, [&](RfmsClient& c) { c.position(n, config, lhs, rhs, tool); })) return nullptr;
  return handleFor(state().positions, state().position_by_name, n);
}

MOT* makemot(double segment, double accel, int mode, int compliance) {
  TaskState& s = state();
  // The manual's motion records have no names; the supervisor's world model needs one. The name
  // spells the record out, so a program run twice, or two records alike, name the same record
  // (defining it again is no change), and different records never share a name.
  const std::string n = std::string("mot_") + (mode == CAR ? "car" : "jnt") + "_" + exactly(segment) + "_" +
                        exactly(accel) + "_c" + std::to_string(compliance);
  if (mode != JNT && mode != CAR) {
    refuse("makemot", "the mode must be JNT or CAR");
    return nullptr;
  }
  if (compliance < 0) {
    refuse("makemot", "compliance bits cannot be negative");
    return nullptr;
  }
  if (!attempt("motion " + n, [&](RfmsClient& c) {
        c.motion(n, (mode == CAR ? rfms::Motion::cartesian(segment, accel) : rfms::Motion::joint(segment, accel))
                        .complying(static_cast<std::uint32_t>(compliance)));
      }))
    return nullptr;
  return handleFor(s.motions, s.motion_by_name, n);
}

long move(PST* position, MOT* motion) {
  if (position == nullptr || motion == nullptr) {
    refuse("move", position == nullptr ? "no position (was makepst refused?)" : "no motion (was makemot refused?)");
    return 0;
  }
  long id = 0;
  if (!attempt("move to '" + position->name + "' by " + motion->name,
               [&](RfmsClient& c) { id = static_cast<long>(c.move(position->name, motion->name)); }))
    return 0;
  state().moves.push_back(id);
  return id;
}

int waitmove(long m) {
  if (m <= 0) {
    refuse("waitmove", "no such move (was it refused?)");
    return -1;
  }
  return attempt("move " + std::to_string(m), [&](RfmsClient& c) { c.wait(static_cast<std::uint64_t>(m)); }) ? 0 : -1;
}

int waitall(void) {
  int result = 0;
  for (long m : state().moves)
    if (waitmove(m) != 0) result = -1;
  state().moves.clear();
  return result;
}

int rfms_open(const char* bridge, const char* key_file, const char* task) {
  TaskState& s = state();
  if (s.client) {
    refuse("rfms_open", "already open");
    return -1;
  }
  rfms::ClientOptions options;
  if (bridge != nullptr) options.bridge = bridge;
  if (key_file != nullptr) {
    options.key_file = key_file;
  } else if (const char* env = std::getenv("RFMS_KEY")) {
    options.key_file = env;
  }
  const std::string name = task == nullptr ? "pumatask" : task;
  try {
    s.client = std::make_unique<RfmsClient>(options);
    s.client->beginTask(name);
    s.client->calibrate();  // returns at once on a calibrated arm
    return 0;
  } catch (const std::exception& e) {
    s.client.reset();
    refuse("rfms_open", e.what(), rfms::RefusalCode::kNone);
    return -1;
  }
}

int rfms_close(void) {
  TaskState& s = state();
  if (!s.client) {
    refuse("rfms_close", "not open");
    return -1;
  }
  const int waited = waitall();
  const bool ended = attempt("end of task", [](RfmsClient& c) { c.endTask(); });
  s.client.reset();
  return waited == 0 && ended ? 0 : -1;
}

int rfms_refusals(void) { return state().refusals; }

const char* rfms_last_refusal(void) { return state().last_refusal.c_str(); }

int rfms_last_refusal_code(void) { return static_cast<int>(state().last_code); }

const char* rfms_refusal_name(int code) {
  if (code < 0 || code >= rfms::kRefusalCodes) return "unspecified";
  return rfms::refusalName(static_cast<rfms::RefusalCode>(code));
}

// The C names are the C++ codes', number for number.
static_assert(RFMS_REFUSED_NONE == static_cast<int>(rfms::RefusalCode::kNone));
static_assert(RFMS_REFUSED_TRY_AGAIN == static_cast<int>(rfms::RefusalCode::kTryAgain));
static_assert(RFMS_REFUSED_INVALID == static_cast<int>(rfms::RefusalCode::kInvalid));
static_assert(RFMS_REFUSED_UNKNOWN_NAME == static_cast<int>(rfms::RefusalCode::kUnknownName));
static_assert(RFMS_REFUSED_NAME_IN_USE == static_cast<int>(rfms::RefusalCode::kNameInUse));
static_assert(RFMS_REFUSED_TABLE_FULL == static_cast<int>(rfms::RefusalCode::kTableFull));
static_assert(RFMS_REFUSED_WRONG_STATE == static_cast<int>(rfms::RefusalCode::kWrongState));
static_assert(RFMS_REFUSED_NOT_CALIBRATED == static_cast<int>(rfms::RefusalCode::kNotCalibrated));
static_assert(RFMS_REFUSED_UNREACHABLE == static_cast<int>(rfms::RefusalCode::kUnreachable));
static_assert(RFMS_REFUSED_UNSTABLE == static_cast<int>(rfms::RefusalCode::kUnstable));
static_assert(RFMS_REFUSED_CANNOT_ACT == static_cast<int>(rfms::RefusalCode::kCannotAct));
static_assert(RFMS_REFUSED_SCENE_LACKS == static_cast<int>(rfms::RefusalCode::kSceneLacks));
static_assert(RFMS_REFUSED_NOT_PERMITTED == static_cast<int>(rfms::RefusalCode::kNotPermitted));
static_assert(RFMS_REFUSED_ARM_TAKEN == static_cast<int>(rfms::RefusalCode::kArmTaken));
static_assert(RFMS_REFUSED_NO_TASK == static_cast<int>(rfms::RefusalCode::kNoTask));
static_assert(RFMS_REFUSED_OUT_OF_ORDER == static_cast<int>(rfms::RefusalCode::kOutOfOrder));
static_assert(RFMS_REFUSED_WRONG_CLIENT == static_cast<int>(rfms::RefusalCode::kWrongClient));
static_assert(RFMS_REFUSED_LOG_STOPPED == static_cast<int>(rfms::RefusalCode::kLogStopped));
static_assert(RFMS_REFUSED_UNSPECIFIED == static_cast<int>(rfms::RefusalCode::kUnspecified));
static_assert(RFMS_REFUSED_UNSPECIFIED + 1 == rfms::kRefusalCodes, "every code has its C name");

}  // extern "C"
