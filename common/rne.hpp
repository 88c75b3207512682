// Recursive Newton–Euler inverse dynamics (Luh, Walker & Paul) in Paul's DH frames, with link mass
// properties about each frame's origin so that identified first moments without mass are exact.
// Real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// tau = M(q) qdd + C(q, qd) qd + g(q), rotor inertias included (I_a qdd_i on the diagonal of M),
// friction excluded (see friction.hpp). `gravity` scales the model's gravity: 1 for the real
// arm, 0 to leave it out.
JointVec inverseDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, const JointVec& qdd,
                         double gravity = 1.0);

// C(q, qd) qd: the Coriolis and centrifugal torques alone.
JointVec velocityTorques(const RobotModel& model, const JointVec& q, const JointVec& qd);

// g(q): the torques that hold the arm still against gravity (computed from the compound links'
// first moments, see crba.hpp; tests check it against inverseDynamics(q, 0, 0)).
JointVec gravityTorques(const RobotModel& model, const JointVec& q);

}  // namespace rfms
