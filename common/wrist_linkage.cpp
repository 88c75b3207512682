#include "common/wrist_linkage.hpp"

#include <cmath>

namespace rfms {

namespace {

Transform shift(double x, double y, double z) { return Transform(Eigen::Translation3d(x, y, z)); }

Transform turn(int axis, double angle) { return Transform(Eigen::AngleAxisd(angle, Vec3::Unit(axis))); }

constexpr std::array<int, 6> kAxis = {2, 0, 0, 2, 1, 2};  // z x x z y z: each joint's axis in its own frame

// The chain as Eq. 43 writes it: the fixed offset before joint i, and the last one after joint 6.
std::array<Transform, 7> offsets(const WristLinkage& k) {
  const auto& l = k.l;
  return {shift(-l[6], l[2], l[0]), shift(-l[1], 0, 0), shift(0, -l[2], 0),  shift(l[3], -l[4], 0),
          shift(0, 0, l[5]),        shift(0, l[4], 0),  shift(l[6], 0, l[7])};
}

constexpr double kLargestStep = 0.2;  // rad

Vec3 vee(const Mat3& m) { return 0.5 * Vec3(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1)); }

}  // namespace

Transform linkagePose(const WristLinkage& linkage, const Vec6& angles) {
  const auto off = offsets(linkage);
  Transform t = Transform::Identity();
  for (int i = 0; i < 6; ++i) t = t * off[i] * turn(kAxis[i], angles[i]);
  return t * off[6];
}

Transform linkageRest(const WristLinkage& linkage) {
  const auto& l = linkage.l;
  return shift(l[3] - l[1], 0.0, l[0] + l[5] + l[7]);
}

Mat6 linkageJacobian(const WristLinkage& linkage, const Vec6& angles) {
  const auto off = offsets(linkage);
  std::array<Transform, 6> joint;  // each joint's frame, the lower plate's axes
  Transform t = Transform::Identity();
  for (int i = 0; i < 6; ++i) {
    t = t * off[i];
    joint[i] = t;
    t = t * turn(kAxis[i], angles[i]);
  }
  const Vec3 end = (t * off[6]).translation();
  Mat6 j;
  for (int i = 0; i < 6; ++i) {
    const Vec3 axis = joint[i].linear().col(kAxis[i]);
    j.col(i) << axis.cross(end - joint[i].translation()), axis;
  }
  return j;
}

Vec6 deflectionFromAngles(const WristLinkage& linkage, const Vec3& com, const Vec6& angles) {
  // The tool's displacement is the upper plate's, from where it rests to where it is.
  const Transform moved = linkagePose(linkage, angles) * linkageRest(linkage).inverse();
  Vec6 d;
  d << moved * com - com, vee(moved.linear());
  return d;
}

bool anglesForDisplacement(const WristLinkage& linkage, const Transform& moved, Vec6& angles, int iterations) {
  const Transform goal = moved * linkageRest(linkage);
  // How far the upper plate is from the goal, in the Jacobian's terms (the turn as vee of the
  // relative rotation: the rotation vector while small, which Newton's last steps are).
  auto error = [&] {
    const Transform now = linkagePose(linkage, angles);
    Vec6 e;
    e << goal.translation() - now.translation(), vee(goal.linear() * now.linear().transpose());
    return e;
  };
  for (int n = 0; n < iterations; ++n) {
    const Vec6 e = error();
    if (e.cwiseAbs().maxCoeff() < 1e-12) return true;
    Vec6 step = linkageJacobian(linkage, angles).partialPivLu().solve(e);
    // Far from the answer the linear step can overshoot into another branch of the chain.
    const double largest = step.cwiseAbs().maxCoeff();
    if (largest > kLargestStep) step *= kLargestStep / largest;
    angles += step;
  }
  return error().cwiseAbs().maxCoeff() < 1e-12;
}

}  // namespace rfms
