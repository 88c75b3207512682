#include "common/drive_transform.hpp"

#include <cmath>

#include "common/transform.hpp"

namespace rfms {

Vec6 driveParams(const Transform& a, const Transform& b) {
  const Transform rel = a.inverse(Eigen::Isometry) * b;
  const Vec3 approach = rel.linear().col(2);
  const double theta = std::atan2(std::hypot(approach.x(), approach.y()), approach.z());
  const double psi = std::atan2(approach.y(), approach.x());
  const Vec3 k(-std::sin(psi), std::cos(psi), 0.0);
  // What Rot(k, theta) leaves to do is a rotation about z: its angle is phi.
  const Mat3 about_z = rot(k, theta).linear().transpose() * rel.linear();
  const double phi = std::atan2(about_z(1, 0), about_z(0, 0));
  Vec6 d;
  d << rel.translation(), theta * k.x(), theta * k.y(), phi;
  return d;
}

Transform driveTransform(const Vec6& d) {
  const Vec3 k(d[3], d[4], 0.0);
  return trans(d[0], d[1], d[2]) * rot(k, k.norm()) * rot(Axis::kZ, d[5]);
}

Vec6 driveParams(const Transform& a, const Transform& b, const Transform& tool) {
  return driveParams(a * tool, b * tool);
}

Transform drivenT6(const Transform& a, const Vec6& d, const Transform& tool) {
  return a * tool * driveTransform(d) * tool.inverse(Eigen::Isometry);
}

}  // namespace rfms
