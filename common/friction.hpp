// Joint friction as the RFMS report identifies it (A.4 eq. 1): Coulomb F_s sign(qd) plus viscous
// F_d qd, kept apart from the rigid-body torques so that controllers and the plant can treat
// stiction their own way. Real-time safe.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// F_s sign(qd) + F_d qd per joint; sign(0) = 0.
JointVec frictionTorques(const RobotModel& model, const JointVec& qd);

}  // namespace rfms
