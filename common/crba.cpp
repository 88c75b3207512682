#include "common/crba.hpp"

#include "common/kinematics.hpp"

namespace rfms {

void massMatrixAndGravity(const RobotModel& model, const JointVec& q, JointMat& m, JointVec& g) {
  LinkFrames frames;
  linkFrames(model, q, frames);
  massMatrixAndGravity(model, frames, m, g);
}

void massMatrixAndGravity(const RobotModel& model, const LinkFrames& frames, JointMat& m, JointVec& g) {
  // Compound link j: links j..6 about the base origin, in base coordinates.
  double mass = 0.0;
  Vec3 moment = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
  for (int j = kJoints - 1; j >= 0; --j) {
    // Link j's properties are constant in its own frame (frames[j+1]) about that frame's origin o.
    // Rotate them to base coordinates and move the reference point to the base origin:
    //   L_O = L_o + m o,  I_O = I_o - [o][L_o] - [L_o][o] - m [o][o]
    //                        = I_o + 2 (o.L_o + m o.o / 2) 1 - o L_o^T - L_o o^T - m o o^T.
    const LinkInertia& link = model.joints[j].link;
    const Mat3& r = frames[j + 1].linear();
    const Vec3& o = frames[j + 1].translation();
    const Vec3 l = r * link.first_moment;
    const Vec3 w = l + 0.5 * link.mass * o;  // folds the two outer products into one pair
    mass += link.mass;
    moment += l + link.mass * o;
    inertia.noalias() += r * link.inertia * r.transpose();
    inertia.noalias() -= o * w.transpose() + w * o.transpose();
    inertia.diagonal().array() += 2.0 * o.dot(w);

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

JointVec gravityFromMoments(const RobotModel& model, const JointVec& q) {
  LinkFrames frames;
  linkFrames(model, q, frames);
  JointVec g;
  double mass = 0.0;
  Vec3 moment = Vec3::Zero();  // compound link j about the base origin, base coordinates
  for (int j = kJoints - 1; j >= 0; --j) {
    const LinkInertia& link = model.joints[j].link;
    mass += link.mass;
    moment += frames[j + 1].linear() * link.first_moment + link.mass * frames[j + 1].translation();
    const Vec3 about_axis = moment - mass * frames[j].translation();
    g[j] = -frames[j].linear().col(2).dot(about_axis.cross(model.gravity));
  }
  return g;
}

JointMat massMatrix(const RobotModel& model, const JointVec& q) {
  JointMat m;
  JointVec g;
  massMatrixAndGravity(model, q, m, g);
  return m;
}

}  // namespace rfms
