#include "common/robot_model.hpp"

namespace rfms {

namespace {
// -[v]x[v]x = (v.v) I - v v^T: the inertia of a unit point mass at v about the origin.
Mat3 pointInertia(const Vec3& v) { return v.squaredNorm() * Mat3::Identity() - v * v.transpose(); }
}  // namespace

LinkInertia LinkInertia::fromCom(double m, const Vec3& c, const Mat3& ic) {
  return LinkInertia{m, m * c, ic + m * pointInertia(c)};
}

}  // namespace rfms
