#include "common/dh_from_axes.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "common/error.hpp"

namespace rfms {

namespace {

constexpr double kTol = 1e-9;  // m and rad: what a URDF written to micrometres still satisfies

std::string jointName(int i) { return "joint " + std::to_string(i); }

// The signed angle from a to b about `axis` (a and b perpendicular to it), exactly a multiple of
// 90 deg when it is one to rounding: a URDF's axes are square to each other far more often than not,
// and the solver's family test reads the twists.
double angleAbout(const Vec3& a, const Vec3& b, const Vec3& axis) {
  const double angle = std::atan2(a.cross(b).dot(axis), a.dot(b));
  const double quarter = std::numbers::pi / 2;
  const double nearest = quarter * std::nearbyint(angle / quarter);
  return std::abs(angle - nearest) < 1e-12 ? nearest : angle;
}

// A length that is zero to rounding is zero: the solver's family test reads a4, a5, a6 and d5.
double snapped(double length) { return std::abs(length) < 1e-12 ? 0.0 : length; }

}  // namespace

DhChain dhFromAxes(const std::array<JointAxis, kJoints>& axes, const Transform& tip) {
  for (int i = 0; i < kJoints; ++i)
    if (!axes[i].point.allFinite() || !axes[i].direction.allFinite() || axes[i].direction.norm() < kTol)
      throw ConfigError(jointName(i + 1) + ": its axis has no direction");
  DhChain out;
  // Frame 0 is the base frame; joint 1 must turn about its z axis.
  const Vec3 z_base = Vec3::UnitZ();
  const Vec3 d1 = axes[0].direction.normalized();
  if (d1.cross(z_base).norm() > kTol || axes[0].point.head<2>().norm() > kTol)
    throw ConfigError(jointName(1) +
                      ": its axis must be the base frame's z axis (a DH table has no base transform; "
                      "move the base link onto it)");
  out.sign[0] = d1.dot(z_base) > 0 ? 1.0 : -1.0;
  Vec3 origin = Vec3::Zero(), x = Vec3::UnitX(), z = z_base;  // frame i-1
  for (int i = 1; i <= kJoints; ++i) {
    // Frame i: z_i along joint i+1's axis (as the source points it), or T6's z for i = 6.
    Vec3 zi, point;
    if (i < kJoints) {
      zi = axes[static_cast<std::size_t>(i)].direction.normalized();
      point = axes[static_cast<std::size_t>(i)].point;
    } else {
      zi = tip.linear().col(2);
      point = tip.translation();
      if (zi.cross(z).norm() > kTol)
        throw ConfigError(jointName(6) + ": the tip frame's z axis must lie along joint 6's axis");
    }
    Vec3 xi, oi;
    double a = 0.0, d = 0.0;
    const Vec3 n = z.cross(zi);
    if (n.norm() > kTol) {
      // Skew or crossing axes: the common normal joins their nearest points.
      const Vec3 w = point - origin;
      const double zz = z.dot(zi);
      const double t = (w.dot(z) - zz * w.dot(zi)) / (1.0 - zz * zz);  // along z_{i-1}
      const double s = (zz * w.dot(z) - w.dot(zi)) / (1.0 - zz * zz);  // along z_i
      const Vec3 p = origin + t * z, q = point + s * zi;
      d = t;
      a = (q - p).norm();
      xi = a > kTol ? Vec3((q - p) / a) : Vec3(n.normalized());
      if (a <= kTol) a = 0.0;
      oi = q;
    } else {
      // Parallel axes: the common normal through frame i-1's origin.
      const Vec3 w = point - origin;
      const Vec3 across = w - w.dot(z) * z;
      a = across.norm();
      xi = a > kTol ? Vec3(across / a) : x;
      if (a <= kTol) a = 0.0;
      oi = origin + across;
      if (i == kJoints) {
        d = w.dot(z);  // T6's origin sits along joint 6's axis
        oi = origin + d * z + across;
      }
    }
    if (i == kJoints) {
      // T6 is the tip frame itself: its x must be the common normal's direction (or, on the axis,
      // any direction square to it).
      const Vec3 tip_x = tip.linear().col(0);
      if (a > kTol && tip_x.cross(xi).norm() > kTol)
        throw ConfigError(jointName(6) + ": the tip frame is off joint 6's axis other than along its own x");
      if (a > kTol && tip_x.dot(xi) < 0) a = -a;
      xi = tip_x;
    }
    out.dh[static_cast<std::size_t>(i - 1)] =
        DhParams(angleAbout(z, zi, xi), snapped(a), snapped(d), angleAbout(x, xi, z));
    Transform f = Transform::Identity();
    f.linear().col(0) = xi;
    f.linear().col(1) = zi.cross(xi);
    f.linear().col(2) = zi;
    f.translation() = oi;
    out.frame[static_cast<std::size_t>(i - 1)] = f;
    origin = oi, x = xi, z = zi;
  }
  return out;
}

}  // namespace rfms
