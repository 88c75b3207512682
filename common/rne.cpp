#include "common/rne.hpp"

#include "common/crba.hpp"
#include "common/kinematics.hpp"

namespace rfms {

JointVec inverseDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, const JointVec& qdd,
                         double gravity) {
  const Vec3 z = Vec3::UnitZ();
  // Per link i, in frame i: R = R_{i-1,i}; p = origin i from origin i-1, in frame i.
  std::array<Mat3, kJoints> r;
  std::array<Vec3, kJoints> p, w, dw, dv;

  // Forward: velocities and accelerations of each frame origin. The base accelerates upwards at
  // -g, which puts the weight of every link into the same recursion.
  Vec3 w_prev = Vec3::Zero(), dw_prev = Vec3::Zero();
  Vec3 dv_prev = -gravity * model.gravity;
  for (int i = 0; i < kJoints; ++i) {
    const DhParams& dh = model.joints[i].dh;
    const Transform a = dhTransform(dh, q[i]);
    r[i] = a.linear();
    const Mat3 rt = r[i].transpose();
    p[i] = rt * a.translation();
    w[i] = rt * (w_prev + qd[i] * z);
    dw[i] = rt * (dw_prev + qdd[i] * z + qd[i] * w_prev.cross(z));
    dv[i] = rt * dv_prev + dw[i].cross(p[i]) + w[i].cross(w[i].cross(p[i]));
    w_prev = w[i];
    dw_prev = dw[i];
    dv_prev = dv[i];
  }

  // Backward: force and moment (about its own origin) that link i-1 exerts on link i.
  JointVec tau;
  Vec3 f_next = Vec3::Zero(), n_next = Vec3::Zero();
  for (int i = kJoints - 1; i >= 0; --i) {
    const LinkInertia& link = model.joints[i].link;
    const Vec3& l = link.first_moment;
    // Rate of change of the link's linear momentum, and of its angular momentum about the
    // accelerating origin (Euler's equation with the first-moment coupling term).
    const Vec3 f_link = link.mass * dv[i] + dw[i].cross(l) + w[i].cross(w[i].cross(l));
    const Vec3 n_link = link.inertia * dw[i] + w[i].cross(link.inertia * w[i]) + l.cross(dv[i]);
    Vec3 f = f_link, n = n_link;
    if (i + 1 < kJoints) {
      const Vec3 f_child = r[i + 1] * f_next;  // child's reaction, in frame i
      f += f_child;
      n += r[i + 1] * n_next + (r[i + 1] * p[i + 1]).cross(f_child);
    }
    // Joint i turns about z_{i-1} through origin i-1: take the moment about that point.
    const Vec3 axis = r[i].transpose() * z;
    tau[i] = (n + p[i].cross(f)).dot(axis) + model.joints[i].rotor_inertia * qdd[i];
    f_next = f;
    n_next = n;
  }
  return tau;
}

JointVec velocityTorques(const RobotModel& model, const JointVec& q, const JointVec& qd) {
  return inverseDynamics(model, q, qd, JointVec::Zero(), 0.0);
}

JointVec gravityTorques(const RobotModel& model, const JointVec& q) {
  // The compound-link form needs no velocities or accelerations: a third of the work of RNE.
  return gravityFromMoments(model, q);
}

}  // namespace rfms
