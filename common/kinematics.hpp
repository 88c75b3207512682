// Forward kinematics and the geometric Jacobian of a six-joint revolute arm in Paul's DH
// convention. All functions are real-time safe: fixed sizes, no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// A_i(q): the transform from frame i-1 to frame i.
Transform dhTransform(const DhParams& dh, double q);

// Frames 0..6 in the base frame: frames[0] is the identity, frames[6] is T6.
using LinkFrames = std::array<Transform, kJoints + 1>;
void linkFrames(const RobotModel& model, const JointVec& q, LinkFrames& frames);

// T6 = A_1 A_2 ... A_6.
Transform forwardKinematics(const RobotModel& model, const JointVec& q);

// Geometric Jacobian of the origin of frame 6 in the base frame: rows vx vy vz wx wy wz; column i
// is (z_{i-1} x (p_6 - p_{i-1}), z_{i-1}).
Mat6 jacobianBase(const RobotModel& model, const JointVec& q);
Mat6 jacobianBase(const LinkFrames& frames);

// The same differential motion expressed in the T6 frame (Paul's T6 Jacobian):
// blockdiag(R6^T, R6^T) * jacobianBase.
Mat6 jacobianTool(const RobotModel& model, const JointVec& q);
Mat6 jacobianTool(const LinkFrames& frames);

}  // namespace rfms
