#include "common/forward_dynamics.hpp"

#include <Eigen/Cholesky>

#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"

namespace rfms {

JointVec forwardDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, const JointVec& tau,
                         double gravity) {
  const JointVec bias = inverseDynamics(model, q, qd, JointVec::Zero(), gravity);
  const JointMat m = massMatrix(model, q);
  return Eigen::LLT<JointMat>(m).solve(tau - bias);
}

double kineticEnergy(const RobotModel& model, const JointVec& q, const JointVec& qd) {
  return 0.5 * qd.dot(massMatrix(model, q) * qd);
}

double potentialEnergy(const RobotModel& model, const JointVec& q) {
  LinkFrames frames;
  linkFrames(model, q, frames);
  double v = 0.0;
  for (int i = 0; i < kJoints; ++i) {
    const LinkInertia& link = model.joints[i].link;
    // -∫ x.g dm over the link, with x = o + R y: -(m o + R L) . g
    const Vec3 moment = link.mass * frames[i + 1].translation() + frames[i + 1].linear() * link.first_moment;
    v -= moment.dot(model.gravity);
  }
  return v;
}

}  // namespace rfms
