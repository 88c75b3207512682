#include "supervisor/world_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/mail_codec.hpp"

namespace rfms {

namespace {
constexpr const char* kT6 = "T6";

// A name as a refusal quotes it: a client's 64 KB "name" must not come back whole.
std::string quoted(const std::string& name) {
  if (name.size() <= 64) return "'" + name + "'";
  return "'" + name.substr(0, 64) + "...' (" + std::to_string(name.size()) + " characters)";
}

Refusal full(const char* kind, std::size_t max) {
  return {RefusalCode::kTableFull, std::string("the world model holds ") + std::to_string(max) + " " + kind +
                                       " already (controller.max_names): update or reuse one"};
}

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

int WorldModel::find(const std::map<std::string, int>& index, const std::string& name) {
  const auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

Refusal WorldModel::defineTransform(const proto::DefineTransform& d) {
  if (!validName(d.name()))
    return {RefusalCode::kInvalid,
            "transform name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)"};
  if (d.name() == kT6) return {RefusalCode::kNameInUse, "T6 is the arm's own transform and cannot be defined"};
  if (d.value().m_size() != 12)
    return {RefusalCode::kInvalid, "malformed matrix for '" + d.name() + "': expected 12 values (3 rows of 4), got " +
                                       std::to_string(d.value().m_size())};
  Transform t;
  if (!decode(d.value(), t))
    return {RefusalCode::kInvalid,
            "malformed matrix for '" + d.name() +
                "': the rotation part is not orthonormal with determinant 1, or a value is not finite"};
  const int existing = findTransform(d.name());
  if (existing < 0 && transform_index_.size() >= max_names_) return full("transforms", max_names_);
  // An update keeps the frame's history (positions using it follow, and its motion is fitted); a
  // new name, or a forgotten one's place, starts afresh: a forgotten frame's motion is not this one's.
  const int i = existing >= 0 ? existing : placeFor(free_transforms_, transforms_used_);
  FrameHistory history = existing >= 0 ? values_.history(i) : FrameHistory{};
  history.add(values_.clock(), t, values_.tracking().history);
  values_.setTransform(i, t, history);
  if (existing < 0) transform_index_[d.name()] = i;
  return {};
}

int WorldModel::placeFor(std::vector<int>& free, std::size_t& used) {
  if (free.empty()) return static_cast<int>(used++);
  const int i = free.back();
  free.pop_back();
  return i;
}

Refusal WorldModel::forget(const proto::Forget& f) {
  const char* kind = f.kind() == proto::Forget::FK_TRANSFORM  ? "transform"
                     : f.kind() == proto::Forget::FK_POSITION ? "position"
                                                              : "motion";
  std::map<std::string, int>& index = f.kind() == proto::Forget::FK_TRANSFORM  ? transform_index_
                                      : f.kind() == proto::Forget::FK_POSITION ? position_index_
                                                                               : motion_index_;
  const auto it = index.find(f.name());
  if (it == index.end())
    return {RefusalCode::kUnknownName, std::string("forget: no ") + kind + " " + quoted(f.name()) + " is defined"};
  const int i = it->second;
  if (f.kind() == proto::Forget::FK_TRANSFORM) {
    for (const auto& [name, p] : position_index_) {
      const PositionEquation& e = values_.position(p);
      const bool uses =
          e.tool == i || std::ranges::any_of(e.product(), [&](const Atom& a) { return a.transform == i; });
      if (uses)
        return {RefusalCode::kNameInUse,
                "forget: position " + quoted(name) + " uses transform " + quoted(f.name()) + ": forget that first"};
    }
    free_transforms_.push_back(i);
  } else if (f.kind() == proto::Forget::FK_POSITION) {
    free_positions_.push_back(i);
  } else {
    free_motions_.push_back(i);
  }
  index.erase(it);
  return {};
}

CompensatorGains compensatorOf(const proto::DefineMotion& d) {
  const proto::Compensator& c = d.compensator();
  return {.k1 = d.compensation(),
          .k2 = c.rate_s(),
          .k3 = c.acceleration_s2(),
          .t_lead = c.lead_s(),
          .t_lag = c.has_lag_s() ? c.lag_s() : kDefaultCompensatorLagS};
}

namespace {
// Why a compensator's terms are out of their ranges ("" when they are not).
std::string compensatorRefusal(const proto::Compensator& c) {
  const auto out = [](double v, double hi) { return !(std::isfinite(v) && v >= 0.0 && v <= hi); };
  if (out(c.rate_s(), 1.0)) return "rate (K2) must be 0 .. 1 s";
  if (out(c.acceleration_s2(), 0.01)) return "acceleration (K3) must be 0 .. 0.01 s^2";
  if (out(c.lead_s(), 1.0)) return "lead must be 0 .. 1 s";
  if (out(c.lag_s(), 1.0)) return "lag must be 0 .. 1 s";
  return "";
}

// One side of an equation as written: transform indices, with kT6Index where T6 stands.
constexpr int kT6Index = -1;
}  // namespace

Refusal WorldModel::definePosition(const proto::DefinePosition& d) {
  const std::string what = "position " + quoted(d.name());
  if (!validName(d.name()))
    return {RefusalCode::kInvalid,
            "position name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)"};
  const int existing = findPosition(d.name());
  if (existing < 0 && position_index_.size() >= max_names_) return full("positions", max_names_);
  if (d.lhs_size() == 0) return {RefusalCode::kInvalid, what + ": the left-hand side is empty"};
  if (d.rhs_size() == 0) return {RefusalCode::kInvalid, what + ": the right-hand side is empty"};

  // The ring L1 .. Lm Rn^-1 .. R1^-1, with where T6 stands in it.
  std::vector<Atom> ring;
  int t6_at = -1, t6_count = 0;
  std::string tool_after_t6;  // the transform written right after T6 on its side, if any
  auto side = [&](const auto& names, bool inverse) -> Refusal {
    const int n = static_cast<int>(names.size());
    for (int k = 0; k < n; ++k) {
      const std::string& name = names[inverse ? n - 1 - k : k];
      if (name == kT6) {
        ++t6_count;
        t6_at = static_cast<int>(ring.size());
        const int next = inverse ? n - k : k + 1;  // index of the name written after T6
        if (next < n) tool_after_t6 = names[next];
        ring.push_back(Atom{kT6Index, inverse});
        continue;
      }
      const int i = findTransform(name);
      if (i < 0) return {RefusalCode::kUnknownName, what + ": unknown transform " + quoted(name)};
      ring.push_back(Atom{i, inverse});
    }
    return {};
  };
  if (Refusal why = side(d.lhs(), false)) return why;
  if (Refusal why = side(d.rhs(), true)) return why;
  if (t6_count == 0)
    return {RefusalCode::kInvalid, what + ": the equation has no T6 (T6 must stand once, on either side)"};
  if (t6_count > 1)
    return {RefusalCode::kInvalid, what + ": T6 stands " + std::to_string(t6_count) + " times (once only)"};

  if (ring.size() - 1 > static_cast<std::size_t>(PositionEquation::kMaxAtoms))
    return {RefusalCode::kInvalid, what + ": " + std::to_string(ring.size() - 1) +
                                       " transforms besides T6; an equation holds at most " +
                                       std::to_string(PositionEquation::kMaxAtoms)};
  PositionEquation p;
  p.config = decode(d.config());
  // The ring rotated to start just after T6: T6 (rest) = I, or T6^-1 (rest) = I when T6 was on the
  // right. So T6 = (rest)^-1 -- the rest reversed, each atom inverted -- or T6 = (rest).
  const bool t6_inverted = ring[static_cast<std::size_t>(t6_at)].inverse;
  const std::size_t n = ring.size();
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t from =
        t6_inverted ? (static_cast<std::size_t>(t6_at) + k) % n : (static_cast<std::size_t>(t6_at) + n - k) % n;
    const Atom a = ring[from];
    p.t6[static_cast<std::size_t>(p.atoms++)] = Atom{a.transform, t6_inverted ? a.inverse : !a.inverse};
  }
  // TL names the tool: the transform written right after T6 (RCCL's rule), or T6 itself for none.
  if (!d.tool().empty() && d.tool() != kT6) {
    if (d.tool() != tool_after_t6)
      return {RefusalCode::kInvalid,
              what + ": the tool " + quoted(d.tool()) + " must be the transform written right after T6" +
                  (tool_after_t6.empty() ? std::string(" (nothing is)") : " (that is " + quoted(tool_after_t6) + ")")};
    p.tool = findTransform(d.tool());
  }
  // A task run twice defines its positions twice: the same equation again is no change.
  if (existing >= 0)
    return position(existing) == p
               ? Refusal{}
               : Refusal{RefusalCode::kNameInUse,
                         what + " is already defined otherwise (positions cannot be redefined: use a new name)"};
  const int i = placeFor(free_positions_, positions_used_);
  values_.setPosition(i, p);
  position_index_[d.name()] = i;
  return {};
}

namespace {
constexpr double kMaxSegmentS = 3600.0;  // an hour
constexpr double kMinAccelS = 1e-3;
}  // namespace

Refusal WorldModel::defineMotion(const proto::DefineMotion& d) {
  MotionRecord m;
  if (Refusal why = motionRecordOf(d, m)) return why;
  const int existing = findMotion(d.name());
  if (existing < 0 && motion_index_.size() >= max_names_) return full("motions", max_names_);
  if (existing >= 0) {  // as for positions: the same record again is no change
    return motion(existing) == m
               ? Refusal{}
               : Refusal{RefusalCode::kNameInUse,
                         "motion '" + d.name() +
                             "' is already defined otherwise (motions cannot be redefined: use a new name)"};
  }
  const int i = placeFor(free_motions_, motions_used_);
  values_.setMotion(i, m);
  motion_index_[d.name()] = i;
  return {};
}

Refusal WorldModel::motionRecordOf(const proto::DefineMotion& d, MotionRecord& m) const {
  if (!validName(d.name()))
    return {RefusalCode::kInvalid,
            "motion name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)"};
  // Bounds a user would not cross on purpose: a move of 1e300 s never ends, and a transition
  // shorter than a millisecond is no transition at the usual sample periods.
  if (!(std::isfinite(d.segment_s()) && d.segment_s() > 0.0 && d.segment_s() <= kMaxSegmentS))
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': segment time must be a number of seconds, 0 .. 3600"};
  if (!(std::isfinite(d.accel_s()) && d.accel_s() >= kMinAccelS))
    return {RefusalCode::kInvalid,
            "motion '" + d.name() + "': acceleration time must be a number of seconds, at least 0.001"};
  if (d.accel_s() > 0.5 * d.segment_s())
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': acceleration time may be at most half the segment time"};
  if (d.compliance() > 0x3f)
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': compliance has six bits (x y z rx ry rz), got " +
                                       std::to_string(d.compliance())};
  if (d.mode() != proto::MM_JOINT && d.mode() != proto::MM_CARTESIAN)
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': mode must be joint or cartesian"};
  if (!(std::isfinite(d.guard_n()) && d.guard_n() >= 0.0 && d.guard_n() <= 1e4))
    return {RefusalCode::kInvalid,
            "motion '" + d.name() + "': guard must be a force in newtons, 0 .. 10000 (0: not guarded)"};
  if (!(std::isfinite(d.compensation()) && d.compensation() >= 0.0 && d.compensation() <= 1.0))
    return {RefusalCode::kInvalid,
            "motion '" + d.name() + "': compensation (K1) must be 0 .. 1 (1 takes back all of the wrist's deflection)"};
  if (const std::string why = compensatorRefusal(d.compensator()); !why.empty())
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': compensation " + why};
  // A guarded motion ends where it first feels its guard's force: it cannot also hold a force
  // (the law would press towards the guard, and settle on neither), nor track a frame without end.
  if (d.guard_n() > 0.0 && d.has_force())
    return {RefusalCode::kInvalid, "motion '" + d.name() +
                                       "': a guarded motion ends on a contact force; it cannot also be under force or "
                                       "impedance control (guard with force)"};
  if (d.guard_n() > 0.0 && d.track())
    return {RefusalCode::kInvalid, "motion '" + d.name() +
                                       "': a guarded motion ends where it touches; a tracking motion does not end "
                                       "(guard with track)"};
  const CompensatorGains compensator = compensatorOf(d);
  if (compensates(compensator) && d.has_force())
    return {RefusalCode::kInvalid,
            "motion '" + d.name() +
                "': compensation is for position-controlled motions; under force control the wrist's deflection is the "
                "force"};
  m = MotionRecord{};
  m.compensator = compensator;
  m.segment = d.segment_s();
  m.accel = d.accel_s();
  m.cartesian = d.mode() == proto::MM_CARTESIAN;
  m.compliance = d.compliance();
  m.track = d.track();
  m.guard = d.guard_n();
  if (d.has_force()) {
    m.has_force = true;
    if (const std::string why = forceSpecOf(d.force(), d.compliance(), m.force); !why.empty())
      return {RefusalCode::kInvalid, "motion '" + d.name() + "': " + why};
  }
  return {};
}

}  // namespace rfms
