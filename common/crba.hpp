// The joint-space inertia matrix M(q) and the gravity torques g(q) by the compound-link method of
// Izaguirre, Hashimoto, Paul and Hayward (A.4 of the RFMS report, §4): "compound link" j is links
// j..6 moving as one body when only joint j accelerates. Its mass M_j, first moment L_j and inertia
// I_j are built recursively from compound link j+1, and with z_j the axis of joint j through p_j
//   D_ij = z_i . (dH_j/dt - p_i x F_j),   F_j = z_j x (L_j - M_j p_j),
//   dH_j/dt = I_j z_j - L_j x (z_j x p_j)          (momentum rates about the base origin)
//   g_j = -z_j . ((L_j - M_j p_j) x gravity)
// Here all moments are kept about the base origin in base coordinates, which makes the recursion a
// plain sum; the report keeps them in link frames, which is the same algebra with more rotations.
// Real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/kinematics.hpp"
#include "common/robot_model.hpp"

namespace rfms {

// M(q), symmetric positive definite for a physical model, rotor inertias on the diagonal.
JointMat massMatrix(const RobotModel& model, const JointVec& q);

// M(q) and g(q) from one pass of the recursion (what the math server needs each cycle).
void massMatrixAndGravity(const RobotModel& model, const JointVec& q, JointMat& m, JointVec& g);
// The same from link frames already computed for this q (shared with the Jacobian).
void massMatrixAndGravity(const RobotModel& model, const LinkFrames& frames, JointMat& m, JointVec& g);

// g(q) alone: only the compound links' masses and first moments are needed.
JointVec gravityFromMoments(const RobotModel& model, const JointVec& q);

}  // namespace rfms
