#include "common/robot_model.hpp"

#include <cmath>

namespace rfms {

namespace {
// -[v]x[v]x = (v.v) I - v v^T: the inertia of a unit point mass at v about the origin.
Mat3 pointInertia(const Vec3& v) { return v.squaredNorm() * Mat3::Identity() - v * v.transpose(); }
}  // namespace

void DhParams::setAlpha(double alpha) {
  alpha_ = alpha;
  cos_alpha_ = std::cos(alpha);
  sin_alpha_ = std::sin(alpha);
  // Twists of whole quarter turns are the rule: make their zeros exact, so that a PUMA's
  // cos(90 deg) is 0 and not 6e-17.
  if (std::abs(cos_alpha_) < 1e-15) cos_alpha_ = 0.0;
  if (std::abs(sin_alpha_) < 1e-15) sin_alpha_ = 0.0;
}

LinkInertia LinkInertia::fromCom(double m, const Vec3& c, const Mat3& ic) {
  return LinkInertia{m, m * c, ic + m * pointInertia(c)};
}

}  // namespace rfms
