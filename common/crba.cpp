#include "common/crba.hpp"

#include "common/kinematics.hpp"

namespace rfms {

namespace {
// [v]x: the cross-product matrix, v x u = skew(v) u.
Mat3 skew(const Vec3& v) {
  Mat3 s;
  s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return s;
}
}  // namespace

void massMatrixAndGravity(const RobotModel& model, const JointVec& q, JointMat& m, JointVec& g) {
  LinkFrames frames;
  linkFrames(model, q, frames);

  // Compound link j: links j..6 about the base origin, in base coordinates.
  double mass = 0.0;
  Vec3 moment = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
  for (int j = kJoints - 1; j >= 0; --j) {
    // Link j's properties are constant in its own frame (frames[j+1]) about that frame's origin o.
    // Rotate them to base coordinates and move the reference point to the base origin:
    // L_O = L_o + m o,  I_O = I_o - [o][L_o] - [L_o][o] - m [o][o].
    const LinkInertia& link = model.joints[j].link;
    const Mat3& r = frames[j + 1].linear();
    const Vec3& o = frames[j + 1].translation();
    const Vec3 l = r * link.first_moment;
    const Mat3 so = skew(o), sl = skew(l);
    mass += link.mass;
    moment += l + link.mass * o;
    inertia += r * link.inertia * r.transpose() - so * sl - sl * so - link.mass * so * so;

    // Joint j turns about z_j = frames[j]'s z axis through p_j = frames[j]'s origin.
    const Vec3 z = frames[j].linear().col(2);
    const Vec3& p = frames[j].translation();
    const Vec3 moment_about_axis = moment - mass * p;
    const Vec3 force = z.cross(moment_about_axis);
    const Vec3 torque_about_origin = inertia * z - moment.cross(z.cross(p));
    for (int i = 0; i <= j; ++i) {
      const Vec3 zi = frames[i].linear().col(2);
      const Vec3& pi = frames[i].translation();
      m(i, j) = zi.dot(torque_about_origin - pi.cross(force));
      m(j, i) = m(i, j);
    }
    m(j, j) += model.joints[j].rotor_inertia;
    g[j] = -z.dot(moment_about_axis.cross(model.gravity));
  }
}

JointMat massMatrix(const RobotModel& model, const JointVec& q) {
  JointMat m;
  JointVec g;
  massMatrixAndGravity(model, q, m, g);
  return m;
}

}  // namespace rfms
