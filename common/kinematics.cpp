#include "common/kinematics.hpp"

#include <cmath>

namespace rfms {

Transform dhTransform(const DhParams& dh, double q) {
  const double theta = q + dh.theta_offset;
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = std::cos(dh.alpha), sa = std::sin(dh.alpha);
  Transform a;
  // Rz(theta) Tz(d) Tx(a) Rx(alpha), multiplied out.
  a.matrix() << ct, -st * ca, st * sa, dh.a * ct,  //
      st, ct * ca, -ct * sa, dh.a * st,            //
      0.0, sa, ca, dh.d,                           //
      0.0, 0.0, 0.0, 1.0;
  return a;
}

void linkFrames(const RobotModel& model, const JointVec& q, LinkFrames& frames) {
  frames[0].setIdentity();
  for (int i = 0; i < kJoints; ++i) frames[i + 1] = frames[i] * dhTransform(model.joints[i].dh, q[i]);
}

Transform forwardKinematics(const RobotModel& model, const JointVec& q) {
  Transform t = Transform::Identity();
  for (int i = 0; i < kJoints; ++i) t = t * dhTransform(model.joints[i].dh, q[i]);
  return t;
}

Mat6 jacobianBase(const LinkFrames& frames) {
  Mat6 j;
  const Vec3 p6 = frames[kJoints].translation();
  for (int i = 0; i < kJoints; ++i) {
    const Vec3 z = frames[i].linear().col(2);
    j.block<3, 1>(0, i) = z.cross(p6 - frames[i].translation());
    j.block<3, 1>(3, i) = z;
  }
  return j;
}

Mat6 jacobianBase(const RobotModel& model, const JointVec& q) {
  LinkFrames frames;
  linkFrames(model, q, frames);
  return jacobianBase(frames);
}

Mat6 jacobianTool(const LinkFrames& frames) {
  const Mat6 j0 = jacobianBase(frames);
  const Mat3 rt = frames[kJoints].linear().transpose();
  Mat6 j;
  j.topRows<3>() = rt * j0.topRows<3>();
  j.bottomRows<3>() = rt * j0.bottomRows<3>();
  return j;
}

Mat6 jacobianTool(const RobotModel& model, const JointVec& q) {
  LinkFrames frames;
  linkFrames(model, q, frames);
  return jacobianTool(frames);
}

}  // namespace rfms
