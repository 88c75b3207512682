#include "common/kinematics.hpp"

#include <cmath>

namespace rfms {

Transform dhTransform(const DhParams& dh, double q) {
  const double theta = q + dh.theta_offset;
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = dh.cosAlpha(), sa = dh.sinAlpha();
  Transform a;
  // Rz(theta) Tz(d) Tx(a) Rx(alpha), multiplied out.
  a.matrix() << ct, -st * ca, st * sa, dh.a * ct,  //
      st, ct * ca, -ct * sa, dh.a * st,            //
      0.0, sa, ca, dh.d,                           //
      0.0, 0.0, 0.0, 1.0;
  return a;
}

namespace {
// (R, p) <- (R, p) A_i(q) without forming A_i: with R's columns (x, y, z),
//   x' = c x + s y,  y' = ca (c y - s x) + sa z,  z' = ca z - sa (c y - s x),  p' = p + a x' + d z.
// Half the multiplications of a general product, which matters at six joints per call.
void appendDh(Mat3& r, Vec3& p, const DhParams& dh, double c, double s) {
  const Vec3 x = c * r.col(0) + s * r.col(1);
  const Vec3 y0 = c * r.col(1) - s * r.col(0);
  const Vec3 z = r.col(2);
  p += dh.a * x + dh.d * z;
  r.col(0) = x;
  r.col(1) = dh.cosAlpha() * y0 + dh.sinAlpha() * z;
  r.col(2) = dh.cosAlpha() * z - dh.sinAlpha() * y0;
}

// The six joint angles' cosines and sines, computed together before any of the (dependent) matrix
// work, so that the processor can overlap the independent trigonometric calls.
struct JointTrig {
  std::array<double, kJoints> c, s;
  JointTrig(const RobotModel& model, const JointVec& q) {
    for (int i = 0; i < kJoints; ++i) {
      const double theta = q[i] + model.joints[i].dh.theta_offset;
      c[i] = std::cos(theta);
      s[i] = std::sin(theta);
    }
  }
};

Transform makeTransform(const Mat3& r, const Vec3& p) {
  Transform t;
  t.linear() = r;
  t.translation() = p;
  t.makeAffine();
  return t;
}
}  // namespace

void linkFrames(const RobotModel& model, const JointVec& q, LinkFrames& frames) {
  const JointTrig trig(model, q);
  Mat3 r = Mat3::Identity();
  Vec3 p = Vec3::Zero();
  frames[0].setIdentity();
  for (int i = 0; i < kJoints; ++i) {
    appendDh(r, p, model.joints[i].dh, trig.c[i], trig.s[i]);
    frames[i + 1] = makeTransform(r, p);
  }
}

Transform forwardKinematics(const RobotModel& model, const JointVec& q) {
  const JointTrig trig(model, q);
  Mat3 r = Mat3::Identity();
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < kJoints; ++i) appendDh(r, p, model.joints[i].dh, trig.c[i], trig.s[i]);
  return makeTransform(r, p);
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
