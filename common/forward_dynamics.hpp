// Forward dynamics by the third method of Walker and Orin (as used by Swartz's "Forward Arm"):
// compute the bias torques C(q, qd) qd + g(q) with Newton–Euler at zero acceleration, the inertia
// matrix with the compound-link method, and solve M qdd = tau - bias by Cholesky.
// Real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// qdd for the joint torques `tau` (net of friction; see friction.hpp).
JointVec forwardDynamics(const RobotModel& model, const JointVec& q, const JointVec& qd, const JointVec& tau,
                         double gravity = 1.0);

// Kinetic energy 1/2 qd^T M qd and potential energy -sum(first moments . gravity) of the arm,
// for energy-conservation checks of integrators.
double kineticEnergy(const RobotModel& model, const JointVec& q, const JointVec& qd);
double potentialEnergy(const RobotModel& model, const JointVec& q);

}  // namespace rfms
