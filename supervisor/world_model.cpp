#include "supervisor/world_model.hpp"

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

std::string full(const char* kind, std::size_t max) {
  return std::string("the world model holds ") + std::to_string(max) + " " + kind +
         " already (controller.max_names): update or reuse one";
}

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

Transform product(const std::vector<Transform>& values, const std::vector<int>& indices) {
  Transform t = Transform::Identity();
  for (int i : indices) t = t * values[static_cast<std::size_t>(i)];
  return t;
}
}  // namespace

int WorldModel::find(const std::map<std::string, int>& index, const std::string& name) {
  const auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

std::string WorldModel::defineTransform(const proto::DefineTransform& d) {
  if (!validName(d.name()))
    return "transform name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)";
  if (d.name() == kT6) return "T6 is the arm's own transform and cannot be defined";
  if (d.value().m_size() != 12)
    return "malformed matrix for '" + d.name() + "': expected 12 values (3 rows of 4), got " +
           std::to_string(d.value().m_size());
  Transform t;
  if (!decode(d.value(), t))
    return "malformed matrix for '" + d.name() +
           "': the rotation part is not orthonormal with determinant 1, or a value is not finite";
  const int existing = findTransform(d.name());
  if (existing < 0 && transforms_.size() >= max_names_) return full("transforms", max_names_);
  if (existing >= 0) {
    transforms_[static_cast<std::size_t>(existing)] = t;  // an update: positions using it follow
  } else {
    transform_index_[d.name()] = static_cast<int>(transforms_.size());
    transforms_.push_back(t);
    transform_names_.push_back(d.name());
  }
  return "";
}

std::string WorldModel::definePosition(const proto::DefinePosition& d) {
  if (!validName(d.name())) return "position name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)";
  if (findPosition(d.name()) >= 0) return "position '" + d.name() + "' is already defined";
  if (positions_.size() >= max_names_) return full("positions", max_names_);
  PositionEquation p;
  p.name = d.name();
  p.config = decode(d.config());
  int t6_count = 0;
  for (const std::string& name : d.lhs()) {
    if (name == kT6) {
      ++t6_count;
      continue;
    }
    const int i = findTransform(name);
    if (i < 0) return "position '" + d.name() + "': unknown transform " + quoted(name);
    (t6_count == 0 ? p.before_t6 : p.after_t6).push_back(i);
  }
  if (t6_count != 1) return "position '" + d.name() + "': the left-hand side must hold T6 exactly once";
  if (d.rhs_size() == 0) return "position '" + d.name() + "': the right-hand side is empty";
  for (const std::string& name : d.rhs()) {
    if (name == kT6) return "position '" + d.name() + "': T6 belongs on the left-hand side";
    const int i = findTransform(name);
    if (i < 0) return "position '" + d.name() + "': unknown transform " + quoted(name);
    p.rhs.push_back(i);
  }
  if (!d.tool().empty()) {
    p.tool = findTransform(d.tool());
    if (p.tool < 0 || p.after_t6.empty() || p.after_t6.back() != p.tool)
      return "position '" + d.name() + "': the tool " + quoted(d.tool()) +
             " must be a defined transform written right after T6";
  }
  positions_.push_back(std::move(p));
  position_index_[d.name()] = static_cast<int>(positions_.size()) - 1;
  return "";
}

namespace {
constexpr double kMaxSegmentS = 3600.0;  // an hour
constexpr double kMinAccelS = 1e-3;
}  // namespace

std::string WorldModel::defineMotion(const proto::DefineMotion& d) {
  if (!validName(d.name())) return "motion name " + quoted(d.name()) + " is not a name (1 .. 64 letters, digits, _ - .)";
  if (findMotion(d.name()) >= 0) return "motion '" + d.name() + "' is already defined";
  if (motions_.size() >= max_names_) return full("motions", max_names_);
  // Bounds a user would not cross on purpose: a move of 1e300 s never ends, and a transition
  // shorter than the shortest sample period (0.5 ms) is no transition at all.
  if (!(std::isfinite(d.segment_s()) && d.segment_s() > 0.0 && d.segment_s() <= kMaxSegmentS))
    return "motion '" + d.name() + "': segment time must be a number of seconds, 0 .. 3600";
  if (!(std::isfinite(d.accel_s()) && d.accel_s() >= kMinAccelS))
    return "motion '" + d.name() + "': acceleration time must be a number of seconds, at least 0.001";
  if (d.accel_s() > 0.5 * d.segment_s())
    return "motion '" + d.name() + "': acceleration time may be at most half the segment time";
  if (d.compliance() > 0x3f)
    return "motion '" + d.name() + "': compliance has six bits (x y z rx ry rz), got " + std::to_string(d.compliance());
  if (d.mode() != proto::MM_JOINT && d.mode() != proto::MM_CARTESIAN)
    return "motion '" + d.name() + "': mode must be joint or cartesian";
  motions_.push_back(
      MotionRecord{d.name(), d.segment_s(), d.accel_s(), d.mode() == proto::MM_CARTESIAN, d.compliance()});
  motion_index_[d.name()] = static_cast<int>(motions_.size()) - 1;
  return "";
}

Transform WorldModel::solve(int i) const {
  const PositionEquation& p = position(i);
  // Z T6 TOOL = RHS  =>  T6 = Z^-1 RHS TOOL^-1
  return product(transforms_, p.before_t6).inverse(Eigen::Isometry) * product(transforms_, p.rhs) *
         product(transforms_, p.after_t6).inverse(Eigen::Isometry);
}

}  // namespace rfms
