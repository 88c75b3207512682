#include "common/robot_model_loader.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <numbers>
#include <random>
#include <sstream>
#include <vector>

#include "common/crba.hpp"
#include "common/error.hpp"
#include "common/text_file.hpp"
#include "common/text_proto.hpp"
#include "proto/robot_model.pb.h"

namespace rfms {

namespace {

namespace pb = google::protobuf;
constexpr double kDeg = std::numbers::pi / 180.0;

// One step of a field path such as joints[2].drive.gear_ratio; index -1 for a singular field.
struct Step {
  const char* field;
  int index = -1;
};

// Semantic checks, each reporting the field's path and, when the file has it, its line and column.
class Checker {
 public:
  Checker(std::string source, const pb::TextFormat::ParseInfoTree* tree) : source_(std::move(source)), tree_(tree) {}

  [[noreturn]] void fail(std::initializer_list<Step> path, const std::string& what) const {
    std::ostringstream msg;
    msg << source_ << ":" << locate(path) << " ";
    for (auto it = path.begin(); it != path.end(); ++it) {
      if (it != path.begin()) msg << '.';
      msg << it->field;
      if (it->index >= 0) msg << '[' << it->index << ']';
    }
    if (path.size() > 0 && std::string(path.begin()->field) == "joints" && path.begin()->index >= 0)
      msg << " (joint " << path.begin()->index + 1 << ")";
    msg << ": " << what;
    throw ConfigError(msg.str());
  }

  // A field that must be present and finite, with value in [lo, hi] (open at an end if asked).
  double number(std::initializer_list<Step> path, bool present, double value, double lo, double hi,
                bool lo_open = false) const {
    if (!present) fail(path, "missing (required)");
    if (!std::isfinite(value)) fail(path, "must be a finite number");
    if (value < lo || (lo_open && value == lo) || value > hi) {
      std::ostringstream why;
      why << "must be " << (lo_open ? "> " : ">= ") << lo;
      if (std::isfinite(hi)) why << " and <= " << hi;
      why << ", got " << value;
      fail(path, why.str());
    }
    return value;
  }

 private:
  // "line:column:" of the deepest element of the path the parser recorded.
  std::string locate(std::initializer_list<Step> path) const {
    const pb::Descriptor* type = proto::RobotModel::descriptor();
    const pb::TextFormat::ParseInfoTree* tree = tree_;
    int line = -1, column = -1;
    for (const Step& step : path) {
      if (type == nullptr || tree == nullptr) break;
      const pb::FieldDescriptor* field = type->FindFieldByName(step.field);
      if (field == nullptr || (field->is_repeated() && step.index < 0)) break;
      const auto loc = tree->GetLocation(field, step.index);
      if (loc.line >= 0) line = loc.line, column = loc.column;
      if (field->message_type() == nullptr) break;
      tree = tree->GetTreeForNested(field, step.index);
      type = field->message_type();
    }
    if (line < 0) return "";
    return std::to_string(line + 1) + ":" + std::to_string(column + 1) + ":";
  }

  std::string source_;
  const pb::TextFormat::ParseInfoTree* tree_;
};

// Ranges beyond any arm: they keep a mistyped exponent (a mass of 1e30 kg, a torque limit of
// 1e-300 N m, 1e300 encoder counts a revolution) from reaching the dynamics as a model.
constexpr double kMaxMassKg = 1e4;

Mat3 symmetric(const proto::SymMat3& s) {
  Mat3 m;
  m << s.xx(), s.xy(), s.xz(), s.xy(), s.yy(), s.yz(), s.xz(), s.yz(), s.zz();
  return m;
}

Vec3 vec(const proto::Vec3& v) { return {v.x(), v.y(), v.z()}; }

void checkFinite(const Checker& c, std::initializer_list<Step> path, const Mat3& m) {
  if (!m.allFinite()) c.fail(path, "all entries must be finite numbers");
}

JointModel convertJoint(const Checker& c, const proto::Joint& p, int i) {
  JointModel j;
  j.name = p.name().empty() ? "joint" + std::to_string(i + 1) : p.name();

  if (!p.has_dh()) c.fail({{"joints", i}, {"dh"}}, "missing (required)");
  const auto& dh = p.dh();
  j.dh.setAlpha(kDeg * c.number({{"joints", i}, {"dh"}, {"alpha_deg"}}, dh.has_alpha_deg(), dh.alpha_deg(), -360, 360));
  // Ten metres: no arm this controller drives has a longer link (the largest industrial arms reach
  // about four), so a larger length is a unit or a typing error.
  j.dh.a = c.number({{"joints", i}, {"dh"}, {"a_m"}}, dh.has_a_m(), dh.a_m(), -10, 10);
  j.dh.d = c.number({{"joints", i}, {"dh"}, {"d_m"}}, dh.has_d_m(), dh.d_m(), -10, 10);
  j.dh.theta_offset =
      kDeg * c.number({{"joints", i}, {"dh"}, {"theta_offset_deg"}}, true, dh.theta_offset_deg(), -360, 360);

  const auto& link = p.link();
  switch (link.form_case()) {
    case proto::LinkInertial::kAboutOrigin: {
      const auto& o = link.about_origin();
      const double m = c.number({{"joints", i}, {"link"}, {"about_origin"}, {"mass_kg"}}, o.has_mass_kg(), o.mass_kg(),
                                0, kMaxMassKg);
      const Mat3 inertia = symmetric(o.inertia_kgm2());
      checkFinite(c, {{"joints", i}, {"link"}, {"about_origin"}, {"inertia_kgm2"}}, inertia);
      const Vec3 l = vec(o.first_moment_kgm());
      if (!l.allFinite()) c.fail({{"joints", i}, {"link"}, {"about_origin"}, {"first_moment_kgm"}}, "must be finite");
      j.link = LinkInertia{m, l, inertia};
      break;
    }
    case proto::LinkInertial::kAboutCom: {
      const auto& o = link.about_com();
      const double m =
          c.number({{"joints", i}, {"link"}, {"about_com"}, {"mass_kg"}}, o.has_mass_kg(), o.mass_kg(), 0, kMaxMassKg);
      const Mat3 ic = symmetric(o.inertia_kgm2());
      checkFinite(c, {{"joints", i}, {"link"}, {"about_com"}, {"inertia_kgm2"}}, ic);
      // A real body's inertia about its centre of mass is positive semi-definite.
      if (Eigen::SelfAdjointEigenSolver<Mat3>(ic).eigenvalues().minCoeff() < -1e-12)
        c.fail({{"joints", i}, {"link"}, {"about_com"}, {"inertia_kgm2"}},
               "inertia about the centre of mass must be positive semi-definite");
      const Vec3 com = vec(o.com_m());
      if (!com.allFinite()) c.fail({{"joints", i}, {"link"}, {"about_com"}, {"com_m"}}, "must be finite");
      j.link = LinkInertia::fromCom(m, com, ic);
      break;
    }
    case proto::LinkInertial::FORM_NOT_SET:
      c.fail({{"joints", i}, {"link"}}, "missing: give about_origin { ... } or about_com { ... }");
  }

  const auto& lim = p.limits();
  j.q_min = kDeg * c.number({{"joints", i}, {"limits"}, {"min_deg"}}, lim.has_min_deg(), lim.min_deg(), -720, 720);
  j.q_max = kDeg * c.number({{"joints", i}, {"limits"}, {"max_deg"}}, lim.has_max_deg(), lim.max_deg(), lim.min_deg(),
                            720, true);
  j.qd_max = kDeg * c.number({{"joints", i}, {"limits"}, {"max_velocity_deg_s"}}, lim.has_max_velocity_deg_s(),
                             lim.max_velocity_deg_s(), 0, 1e5, true);
  j.tau_max =
      c.number({{"joints", i}, {"limits"}, {"max_torque_nm"}}, lim.has_max_torque_nm(), lim.max_torque_nm(), 1e-3, 1e6);

  const auto& dr = p.drive();
  j.gear_ratio = c.number({{"joints", i}, {"drive"}, {"gear_ratio"}}, dr.has_gear_ratio(), dr.gear_ratio(), -1e4, 1e4);
  if (j.gear_ratio == 0.0) c.fail({{"joints", i}, {"drive"}, {"gear_ratio"}}, "must not be 0");
  j.rotor_inertia = c.number({{"joints", i}, {"drive"}, {"rotor_inertia_kgm2"}}, dr.has_rotor_inertia_kgm2(),
                             dr.rotor_inertia_kgm2(), 0, 1e4);
  j.coulomb = c.number({{"joints", i}, {"drive"}, {"coulomb_friction_nm"}}, dr.has_coulomb_friction_nm(),
                       dr.coulomb_friction_nm(), 0, 1e6);
  j.viscous = c.number({{"joints", i}, {"drive"}, {"viscous_friction_nms"}}, dr.has_viscous_friction_nms(),
                       dr.viscous_friction_nms(), 0, 1e6);
  const auto& mo = dr.motor();
  j.kt = c.number({{"joints", i}, {"drive"}, {"motor"}, {"torque_constant_nm_per_a"}},
                  mo.has_torque_constant_nm_per_a(), mo.torque_constant_nm_per_a(), 1e-6, 1e3);
  j.resistance = c.number({{"joints", i}, {"drive"}, {"motor"}, {"resistance_ohm"}}, mo.has_resistance_ohm(),
                          mo.resistance_ohm(), 1e-6, 1e6);
  j.max_current = c.number({{"joints", i}, {"drive"}, {"motor"}, {"max_current_a"}}, mo.has_max_current_a(),
                           mo.max_current_a(), 1e-3, 1e5);

  const auto& en = p.encoder();
  j.counts_per_rev = c.number({{"joints", i}, {"encoder"}, {"counts_per_joint_rev"}}, en.has_counts_per_joint_rev(),
                              en.counts_per_joint_rev(), 1, 1e12);
  j.index_angle = kDeg * c.number({{"joints", i}, {"encoder"}, {"index_angle_deg"}}, en.has_index_angle_deg(),
                                  en.index_angle_deg(), lim.min_deg(), lim.max_deg());
  return j;
}

}  // namespace

RobotModel parseRobotModel(const std::string& text, const std::string& source) {
  proto::RobotModel p;
  pb::TextFormat::ParseInfoTree tree;
  parseTextProto(text, p, source, &tree);

  const Checker c(source, &tree);
  RobotModel model;
  model.source = source;
  model.name = p.name();
  if (model.name.empty()) c.fail({{"name"}}, "missing (required): name the robot");
  model.description = p.description();
  if (p.has_gravity_m_s2()) {
    model.gravity = vec(p.gravity_m_s2());
    if (!model.gravity.allFinite() || model.gravity.norm() > 100.0)
      c.fail({{"gravity_m_s2"}}, "must be finite and at most 100 m/s^2 in magnitude");
  }
  if (p.joints_size() != kJoints)
    c.fail({{"joints"}}, "expected exactly 6 joints, found " + std::to_string(p.joints_size()));
  for (int i = 0; i < kJoints; ++i) model.joints[i] = convertJoint(c, p.joints(i), i);

  checkMassMatrixPositiveDefinite(model);
  return model;
}

std::string robotModelPath(const std::string& name_or_path) {
  // A bare name (no folder, no extension) that is not a file here names a shipped model.
  if (name_or_path.empty() || name_or_path.find_first_of("/.") != std::string::npos ||
      std::filesystem::exists(name_or_path))
    return name_or_path;
  const std::filesystem::path shipped = std::filesystem::path(RFMS_ROBOTS_DIR) / (name_or_path + ".textproto");
  if (std::filesystem::exists(shipped)) return shipped.string();
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(RFMS_ROBOTS_DIR, ec))
    if (entry.path().extension() == ".textproto") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("robot model '" + name_or_path + "': no such file, and no shipped model of that name (" +
                    (known.empty() ? std::string("none found in ") + RFMS_ROBOTS_DIR : known) + ")");
}

RobotModel loadRobotModel(const std::string& name_or_path) {
  const std::string path = robotModelPath(name_or_path);
  return parseRobotModel(loadTextFile(path, "robot model file"), path);
}

void checkMassMatrixPositiveDefinite(const RobotModel& model, int samples) {
  std::mt19937_64 rng(20260101);  // fixed seed: the same model always passes or fails the same way
  JointVec q;
  for (int s = 0; s < samples; ++s) {
    for (int i = 0; i < kJoints; ++i) {
      std::uniform_real_distribution<double> u(model.joints[i].q_min, model.joints[i].q_max);
      q[i] = s == 0 ? std::clamp(0.0, model.joints[i].q_min, model.joints[i].q_max) : u(rng);
    }
    const JointMat m = massMatrix(model, q);
    const double asym = (m - m.transpose()).cwiseAbs().maxCoeff();
    const double min_eig = Eigen::SelfAdjointEigenSolver<JointMat>(m).eigenvalues().minCoeff();
    if (!(min_eig > 0.0) || asym > 1e-9 * m.cwiseAbs().maxCoeff()) {
      std::ostringstream msg;
      msg << model.source << ": the mass matrix is not positive definite at q = [" << q.transpose()
          << "] rad (smallest eigenvalue " << min_eig << "); check the link inertias and rotor inertias";
      throw ConfigError(msg.str());
    }
  }
}

}  // namespace rfms
