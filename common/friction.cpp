#include "common/friction.hpp"

namespace rfms {

JointVec frictionTorques(const RobotModel& model, const JointVec& qd) {
  JointVec tau;
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = model.joints[i];
    const double sign = qd[i] > 0.0 ? 1.0 : (qd[i] < 0.0 ? -1.0 : 0.0);
    tau[i] = j.coulomb * sign + j.viscous * qd[i];
  }
  return tau;
}

}  // namespace rfms
