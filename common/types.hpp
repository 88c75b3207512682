// Fixed-size types shared by every algorithm. Nothing on a per-period path allocates: all of these
// live on the stack or inside preallocated state.
#pragma once

#include <Eigen/Geometry>
#include <array>

namespace rfms {

inline constexpr int kJoints = 6;

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using JointVec = Eigen::Matrix<double, kJoints, 1>;
using JointMat = Eigen::Matrix<double, kJoints, kJoints>;
// A homogeneous transform (rotation and translation), Paul's T.
using Transform = Eigen::Isometry3d;

}  // namespace rfms
