#include "common/dynamics_snapshot.hpp"

#include <Eigen/LU>

#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"

namespace rfms {

void updateDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, DynamicsSnapshot& out) {
  out.q = q;
  out.qd = qd;
  LinkFrames frames;  // shared by the inertia recursion and the Jacobian
  linkFrames(model, q, frames);
  massMatrixAndGravity(model, frames, out.inertia, out.gravity);
  out.velocity = velocityTorques(model, q, qd);
  out.jacobian = jacobianBase(frames);
  const Eigen::PartialPivLU<Mat6> lu(out.jacobian);
  out.jacobian_condition = lu.rcond();
  // Below this the inverse would amplify joint noise by more than a million: report it instead.
  out.singular = !(out.jacobian_condition > 1e-6);
  out.jacobian_inverse = out.singular ? Mat6::Zero() : Mat6(lu.inverse());
}

}  // namespace rfms
