#include "pik_study/study_segment.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "common/kinematics.hpp"
#include "common/transform.hpp"

namespace rfms::study {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

// Where the wrist centre can go: between the cylinder swept by the shoulder offset and the sphere
// swept by the stretched arm, both about the shoulder.
struct Workspace {
  double cylinder = 0.0;  // radius about z_0, grown by the margin
  double sphere = 0.0;    // radius about the shoulder point, shrunk by the margin
  double shoulder_z = 0.0;

  bool inside(const Vec3& p) const {
    const Vec3 s(p.x(), p.y(), p.z() - shoulder_z);
    return p.x() * p.x() + p.y() * p.y() > cylinder * cylinder && s.norm() < sphere;
  }

  // The whole line p_i..p_f: its ends, and its nearest approach to the sphere's centre and to
  // the cylinder's axis. (The paper tests the cylinder at the point nearest the sphere's centre;
  // the nearest approach to the z axis is the nearest point of the line's projection on z = 0.)
  bool containsLine(const Vec3& a, const Vec3& b) const {
    if (!inside(a) || !inside(b)) return false;
    const Vec3 c(0.0, 0.0, shoulder_z), d = b - a;
    const double l3 = -(a - c).dot(d) / d.squaredNorm();
    if (l3 > 0.0 && l3 < 1.0 && (a + l3 * d - c).norm() >= sphere) return false;
    const double dxy = d.x() * d.x() + d.y() * d.y();
    if (dxy > 0.0) {
      const double l2 = -(a.x() * d.x() + a.y() * d.y()) / dxy;
      const Vec3 p = a + l2 * d;
      if (l2 > 0.0 && l2 < 1.0 && p.x() * p.x() + p.y() * p.y() <= cylinder * cylinder) return false;
    }
    return true;
  }
};

Workspace workspaceOf(const RobotModel& model, double margin) {
  const auto& j = model.joints;
  const double offset = j[1].dh.d + j[2].dh.d;
  const double forearm = std::hypot(j[2].dh.a, j[3].dh.d);
  Workspace w;
  w.cylinder = std::abs(offset) + margin;
  w.sphere = std::hypot(j[1].dh.a + forearm, offset) - margin;
  w.shoulder_z = j[0].dh.d;
  return w;
}

Mat3 randomRotation(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized().toRotationMatrix();
}

}  // namespace

Transform StudySegment::at(double h) const {
  h = std::clamp(h, 0.0, 1.0);
  Transform t = Transform::Identity();
  t.translation() = start.translation() + h * (end.translation() - start.translation());
  t.linear() = Eigen::AngleAxisd(h * angle, axis).toRotationMatrix() * start.linear();
  return t;
}

RobotModel withoutJointLimits(const RobotModel& model) {
  RobotModel m = model;
  for (auto& j : m.joints) j.q_min = -4.0 * kPi, j.q_max = 4.0 * kPi;
  return m;
}

std::vector<StudySegment> drawSegments(const RobotModel& model, const SamplerOptions& options, int count,
                                       std::uint64_t seed) {
  const RobotModel open = withoutJointLimits(model);
  const OpwIk ik(open);
  const Workspace w = workspaceOf(model, options.workspace_margin_m);
  const double r2 = w.sphere + options.workspace_margin_m;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ux(0.0, r2), uyz(-r2, r2), unit(0.0, 1.0);
  std::vector<StudySegment> out;
  out.reserve(static_cast<std::size_t>(count));
  while (static_cast<int>(out.size()) < count) {
    const Vec3 a(ux(rng), uyz(rng), uyz(rng) + w.shoulder_z), b(ux(rng), uyz(rng), uyz(rng) + w.shoulder_z);
    StudySegment s;
    s.start.linear() = randomRotation(rng);
    const double phi = 2.0 * kPi * unit(rng), psi = kPi * unit(rng);
    const Vec3 n(std::cos(phi) * std::sin(psi), std::sin(phi) * std::sin(psi), std::cos(psi));
    s.angle = kPi * (0.1 + 0.8 * unit(rng));
    s.axis = s.start.linear() * n;  // R_i Rot(n, a) = Rot(R_i n, a) R_i
    s.config = ArmConfig{unit(rng) < 0.5, unit(rng) < 0.5, unit(rng) < 0.5};
    if (!w.containsLine(a, b)) continue;
    s.start.translation() = a;
    s.end.translation() = b;
    s.end.linear() = s.at(1.0).linear();
    // Every check point solvable, in the segment's configuration, and clear of the singular wrist.
    JointVec q = JointVec::Zero();
    bool ok = true;
    for (int k = 0; k <= options.check_points && ok; ++k) {
      const IkSolution sol = ik.solveSerial(s.at(static_cast<double>(k) / options.check_points), s.config, q);
      if (sol.status != IkStatus::kOk) ok = false;
      q = sol.q;
      if (k == 0) s.q_start = q;
      // The wrist centre, not T6, must keep out of the cylinder about the waist axis: with a
      // flange offset d6 (every industrial arm; the PUMAs' d6 is 0) a line of T6 clear of it can
      // carry the wrist centre through the shoulder singularity, where theta1 turns half a turn.
      LinkFrames f;
      linkFrames(open, q, f);
      if (f[5].translation().head<2>().norm() <= w.cylinder) ok = false;
      // Distance from the singular wrist, theta5 = 0 or pi.
      const double t5 = std::asin(std::abs(std::sin(q[4] + open.joints[4].dh.theta_offset))) / kDeg;
      s.min_wrist_deg = std::min(s.min_wrist_deg, t5);
      if (t5 < options.wrist_clearance_deg) ok = false;
    }
    if (!ok) continue;
    s.near_wrist = s.min_wrist_deg < options.near_wrist_deg;
    out.push_back(s);
  }
  return out;
}

}  // namespace rfms::study
