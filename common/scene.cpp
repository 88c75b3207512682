#include "common/scene.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "common/text_file.hpp"
#include "common/text_proto.hpp"
#include "common/transform.hpp"

namespace rfms {

namespace {
constexpr double kDeg = M_PI / 180.0;
constexpr std::size_t kMaxSurfaces = 64;

Vec3 vec(const proto::Vec3& v) { return {v.x(), v.y(), v.z()}; }

Mat3 symmetric(const proto::SymMat3& s) {
  Mat3 m;
  m << s.xx(), s.xy(), s.xz(), s.xy(), s.yy(), s.yz(), s.xz(), s.yz(), s.zz();
  return m;
}

struct Checker {
  std::string source;
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw ConfigError(source + ": " + field + ": " + why);
  }
  double range(const std::string& field, double v, double lo, double hi) const {
    if (!std::isfinite(v) || v < lo || v > hi)
      fail(field, "must be " + number(lo) + " .. " + number(hi) + ", got " + number(v));
    return v;
  }
  Vec3 finite(const std::string& field, const Vec3& v, double bound = 1e3) const {
    if (!v.allFinite() || v.cwiseAbs().maxCoeff() > bound)
      fail(field, "every component must be finite, within +-" + number(bound));
    return v;
  }
  static std::string number(double v) { return numberText(v); }
};

Transform orientation(const Checker& c, const std::string& field, const proto::Rpy& r) {
  const Vec3 deg = c.finite(field, {r.roll_deg(), r.pitch_deg(), r.yaw_deg()}, 360.0);
  return rpy(kDeg * deg.x(), kDeg * deg.y(), kDeg * deg.z());
}

ToolModel convertTool(const Checker& c, const proto::Tool& t) {
  ToolModel tool;
  const double m = c.range("tool.mass_kg", t.mass_kg(), 0.0, 20.0);
  const Vec3 com = c.finite("tool.com_m", vec(t.com_m()), 2.0);
  const Mat3 ic = symmetric(t.inertia_kgm2());
  if (!ic.allFinite() || ic.cwiseAbs().maxCoeff() > 100.0) c.fail("tool.inertia_kgm2", "must be finite, within +-100");
  // A real body's inertia about its centre of mass is positive semi-definite.
  if (Eigen::SelfAdjointEigenSolver<Mat3>(ic).eigenvalues().minCoeff() < -1e-12)
    c.fail("tool.inertia_kgm2", "must be positive semi-definite (a real body's)");
  tool.inertia = LinkInertia::fromCom(m, com, ic);
  tool.com = com;
  tool.inertia_at_com = ic;
  tool.frame = orientation(c, "tool.rpy", t.rpy());
  tool.frame.translation() = c.finite("tool.tip_m", vec(t.tip_m()), 2.0);
  tool.tip_radius = c.range("tool.tip_radius_m", t.tip_radius_m(), 0.0, 0.1);
  return tool;
}

SurfaceModel convertSurface(const Checker& c, const proto::Surface& s, int i) {
  const std::string at = "surface[" + std::to_string(i) + "]";
  SurfaceModel m;
  m.name = s.name().empty() ? "surface " + std::to_string(i + 1) : s.name();
  if (m.name.size() > 64) c.fail(at + ".name", "at most 64 characters");
  switch (s.shape_case()) {
    case proto::Surface::kPlane: {
      m.shape = SurfaceModel::Shape::kPlane;
      const Vec3 n = c.finite(at + ".plane.normal", vec(s.plane().normal()));
      if (n.norm() < 1e-9) c.fail(at + ".plane.normal", "missing or zero: the direction out of the solid");
      // Any frame whose z axis is the normal will do: only the normal and a point matter.
      m.pose = Transform(Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), n.normalized()));
      m.pose.translation() = c.finite(at + ".plane.point_m", vec(s.plane().point_m()));
      break;
    }
    case proto::Surface::kBox: {
      m.shape = SurfaceModel::Shape::kBox;
      const Vec3 size = vec(s.box().size_m());
      for (int k = 0; k < 3; ++k) c.range(at + ".box.size_m", size[k], 0.001, 100.0);
      m.half_size = 0.5 * size;
      m.pose = orientation(c, at + ".box.rpy", s.box().rpy());
      m.pose.translation() = c.finite(at + ".box.centre_m", vec(s.box().centre_m()));
      break;
    }
    case proto::Surface::SHAPE_NOT_SET: c.fail(at, "has no shape: give plane { ... } or box { ... }");
  }
  m.stiffness = c.range(at + ".stiffness_n_per_m", s.stiffness_n_per_m(), 100.0, 1e7);
  m.damping = c.range(at + ".damping_n_s_per_m", s.damping_n_s_per_m(), 0.0, 1e5);
  m.friction = c.range(at + ".friction", s.friction(), 0.0, 2.0);
  m.velocity = c.finite(at + ".velocity_m_s", vec(s.velocity_m_s()), 10.0);
  return m;
}
ForceTorqueModel convertForceTorque(const Checker& c, const proto::ForceTorqueSensor& f) {
  const std::string at = "sensor.force_torque.";
  ForceTorqueModel m;
  m.noise_force = c.range(at + "noise_n", f.noise_n(), 0.0, 10.0);
  m.noise_moment = c.range(at + "noise_nm", f.noise_nm(), 0.0, 1.0);
  m.bias << c.finite(at + "bias_n", vec(f.bias_n()), 1e3), c.finite(at + "bias_nm", vec(f.bias_nm()), 1e2);
  m.bandwidth_hz = c.range(at + "bandwidth_hz", f.bandwidth_hz(), 1.0, 1e4);
  m.range_force = c.range(at + "range_n", f.range_n(), 1.0, 1e4);
  m.range_moment = c.range(at + "range_nm", f.range_nm(), 0.1, 1e3);
  m.seed = f.seed();
  return m;
}
WristModel convertWrist(const Checker& c, const proto::CompliantWrist& w, const ToolModel& tool) {
  const std::string at = "sensor.compliant_wrist.";
  WristModel m;
  m.stiffness = c.range(at + "stiffness_n_per_m", w.stiffness_n_per_m(), 100.0, 1e6);
  m.stiffness_turn = c.range(at + "stiffness_nm_per_rad", w.stiffness_nm_per_rad(), 1.0, 1e5);
  m.damping = c.range(at + "damping_n_s_per_m", w.damping_n_s_per_m(), 0.0, 1e4);
  m.damping_turn = c.range(at + "damping_nm_s_per_rad", w.damping_nm_s_per_rad(), 0.0, 1e3);
  if (w.has_resolution_m() || w.has_noise_m())
    c.fail(at + (w.has_resolution_m() ? "resolution_m" : "noise_m"),
           "retired: the wrist's potentiometers read the angles of its linkage; give resolution_rad and noise_rad, "
           "each potentiometer's");
  m.resolution = c.range(at + "resolution_rad", w.resolution_rad(), 1e-7, 1e-2);
  m.noise = c.range(at + "noise_rad", w.noise_rad(), 0.0, 1e-2);
  m.travel = c.range(at + "travel_m", w.travel_m(), 1e-4, 0.1);
  m.travel_turn = c.range(at + "travel_rad", w.travel_rad(), 1e-3, 0.5);
  m.seed = w.seed();
  // The tool becomes a body of its own on the wrist's springs: it needs mass and inertia for the
  // arm's integrator to move it, and not so little that its springs ring faster than a sub-step.
  if (tool.inertia.mass < 0.05) c.fail("tool.mass_kg", "a tool on a compliant wrist needs at least 0.05 kg");
  const double least = Eigen::SelfAdjointEigenSolver<Mat3>(tool.inertia_at_com).eigenvalues().minCoeff();
  if (least < 1e-6)
    c.fail("tool.inertia_kgm2", "a tool on a compliant wrist needs every principal inertia of at least 1e-6 kg m^2");
  // The arm integrates with RK4 in sub-steps of 0.25 ms: K/m beyond 1e7 /s^2 rings, and C/m beyond
  // 4000 /s decays, too fast for it to follow (explicit steps then grow instead).
  const double mass = tool.inertia.mass;
  if (m.stiffness / mass > 1e7)
    c.fail(at + "stiffness_n_per_m", "at most 1e7 times the tool's mass (kg), got " + Checker::number(m.stiffness));
  if (m.stiffness_turn / least > 1e7)
    c.fail(at + "stiffness_nm_per_rad",
           "at most 1e7 times the tool's least principal inertia (kg m^2), got " + Checker::number(m.stiffness_turn));
  if (m.damping / mass > 4000.0)
    c.fail(at + "damping_n_s_per_m", "at most 4000 times the tool's mass (kg), got " + Checker::number(m.damping));
  if (m.damping_turn / least > 4000.0)
    c.fail(at + "damping_nm_s_per_rad",
           "at most 4000 times the tool's least principal inertia (kg m^2), got " + Checker::number(m.damping_turn));
  return m;
}
}  // namespace

Scene sceneFromProto(const proto::Scene& p, const std::string& source) {
  const Checker c{source};
  Scene s;
  s.source = source;
  s.name = p.name();
  s.tool = convertTool(c, p.tool());
  if (static_cast<std::size_t>(p.surface_size()) > kMaxSurfaces)
    c.fail("surface", "at most " + std::to_string(kMaxSurfaces) + " surfaces, got " + std::to_string(p.surface_size()));
  for (int i = 0; i < p.surface_size(); ++i) s.surfaces.push_back(convertSurface(c, p.surface(i), i));
  s.slip_velocity = c.range("slip_velocity_m_s", p.slip_velocity_m_s(), 1e-4, 0.1);
  switch (p.sensor().kind_case()) {
    case proto::Sensor::kForceTorque:
      s.sensor = SensorKind::kForceTorque;
      s.force_torque = convertForceTorque(c, p.sensor().force_torque());
      break;
    case proto::Sensor::kCompliantWrist:
      s.sensor = SensorKind::kCompliantWrist;
      s.wrist = convertWrist(c, p.sensor().compliant_wrist(), s.tool);
      break;
    case proto::Sensor::KIND_NOT_SET: break;
  }
  return s;
}

Scene loadScene(const std::string& path) {
  proto::Scene p;
  parseTextProto(loadTextFile(path, "scene file", std::uintmax_t{1} << 20), p, path);
  return sceneFromProto(p, path);
}

Vec6 contactFromReading(const ToolModel& tool, const Vec3& gravity, const Transform& t6, const Vec6& reading) {
  const Mat3 r = t6.linear();
  const LinkInertia& m = tool.inertia;
  const Vec3 com = m.mass > 0.0 ? Vec3(r * m.first_moment / m.mass) : Vec3::Zero();
  const Vec3 weight = m.mass * gravity;
  const Vec3 force = r * reading.head<3>() - weight;
  const Vec3 moment_at_flange = r * reading.tail<3>() - com.cross(weight);
  const Vec3 tip = r * tool.frame.translation();
  Vec6 w;
  w << force, moment_at_flange - tip.cross(force);  // moved from the flange to the tool point
  return w;
}

Vec6 wrenchFromDeflection(const WristModel& wrist, const ToolModel& tool, const Vec6& deflection) {
  // The tool sits on the springs deflected by d: they push the flange with K d at its centre of
  // mass, and turn it with K_r a.
  const Vec3 force = wrist.stiffness * deflection.head<3>();
  Vec6 w;
  w << force, wrist.stiffness_turn * deflection.tail<3>() + tool.com.cross(force);
  return w;
}

namespace {
RobotModel addedToLink6(const RobotModel& model, const ToolModel& tool, double sign) {
  RobotModel m = model;
  LinkInertia& l = m.joints[kJoints - 1].link;
  l.mass += sign * tool.inertia.mass;
  l.first_moment += sign * tool.inertia.first_moment;
  l.inertia += sign * tool.inertia.inertia;
  return m;
}
}  // namespace

RobotModel withTool(const RobotModel& model, const ToolModel& tool) { return addedToLink6(model, tool, 1.0); }

RobotModel withoutTool(const RobotModel& model, const ToolModel& tool) { return addedToLink6(model, tool, -1.0); }

}  // namespace rfms
