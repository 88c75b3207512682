#include "common/transform.hpp"

#include <cmath>
#include <numbers>

namespace rfms {

Transform trans(double x, double y, double z) {
  Transform t = Transform::Identity();
  t.translation() = Vec3(x, y, z);
  return t;
}

Transform rot(Axis axis, double angle) {
  static constexpr std::array<int, 3> kIndex{0, 1, 2};
  Vec3 unit = Vec3::Zero();
  unit[kIndex[static_cast<std::size_t>(axis)]] = 1.0;
  return rot(unit, angle);
}

Transform rot(const Vec3& axis, double angle) {
  Transform t = Transform::Identity();
  const double n = axis.norm();
  if (n > 0.0) t.linear() = Eigen::AngleAxisd(angle, axis / n).toRotationMatrix();
  return t;
}

Transform eul(double phi, double theta, double psi) {
  return rot(Axis::kZ, phi) * rot(Axis::kY, theta) * rot(Axis::kZ, psi);
}

Transform rpy(double phi, double theta, double psi) {
  return rot(Axis::kZ, phi) * rot(Axis::kY, theta) * rot(Axis::kX, psi);
}

// Below this, sin(theta) is treated as zero and the first and third rotations share one axis.
static constexpr double kGimbalEps = 1e-12;

Vec3 eulerAngles(const Mat3& r, double phi_hint) {
  // R = Rz(phi) Ry(theta) Rz(psi): its third column is (c_phi s_theta, s_phi s_theta, c_theta) and
  // its third row is (-s_theta c_psi, s_theta s_psi, c_theta).
  const double s_theta = std::hypot(r(0, 2), r(1, 2));
  const double theta = std::atan2(s_theta, r(2, 2));
  if (s_theta < kGimbalEps) {
    // theta = 0: R = Rz(phi + psi). theta = pi: the first column is (-cos(phi - psi),
    // -sin(phi - psi), 0), so its angle is phi - psi + pi. Either way keep phi and solve for psi.
    const double angle = std::atan2(r(1, 0), r(0, 0));
    const double psi = r(2, 2) > 0.0 ? angle - phi_hint : phi_hint - angle + std::numbers::pi;
    return {phi_hint, theta, wrapToPi(psi)};
  }
  const double phi = std::atan2(r(1, 2), r(0, 2));
  const double psi = std::atan2(r(2, 1), -r(2, 0));
  return {phi, theta, psi};
}

Vec3 rpyAngles(const Mat3& r, double phi_hint) {
  // R = Rz(phi) Ry(theta) Rx(psi): its first column is (c_phi c_theta, s_phi c_theta, -s_theta) and
  // its third row is (-s_theta, c_theta s_psi, c_theta c_psi).
  const double c_theta = std::hypot(r(0, 0), r(1, 0));
  const double theta = std::atan2(-r(2, 0), c_theta);
  if (c_theta < kGimbalEps) {
    // theta = ±pi/2: Rz(phi) Ry(±pi/2) Rx(psi) depends on psi ∓ phi only; keep phi.
    const double diff = std::atan2(r(0, 1), r(1, 1));  // psi - phi (theta = +pi/2) or -(psi + phi)
    const double psi = theta > 0.0 ? diff + phi_hint : -diff - phi_hint;
    return {phi_hint, theta, wrapToPi(psi)};
  }
  const double phi = std::atan2(r(1, 0), r(0, 0));
  const double psi = std::atan2(r(2, 1), r(2, 2));
  return {phi, theta, psi};
}

bool isHomogeneous(const Eigen::Matrix4d& m, double tol) {
  if (!m.allFinite()) return false;
  const Eigen::RowVector4d last(0, 0, 0, 1);
  if ((m.row(3) - last).cwiseAbs().maxCoeff() > tol) return false;
  const Mat3 r = m.topLeftCorner<3, 3>();
  if ((r.transpose() * r - Mat3::Identity()).cwiseAbs().maxCoeff() > tol) return false;
  return std::abs(r.determinant() - 1.0) <= tol;
}

double wrapToPi(double angle) {
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  double a = std::remainder(angle, kTwoPi);  // in [-pi, pi]
  if (a <= -std::numbers::pi) a += kTwoPi;
  return a;
}

double nearestEquivalent(double angle, double reference) { return reference + wrapToPi(angle - reference); }

}  // namespace rfms
