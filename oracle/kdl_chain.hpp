// The same robot model as an Orocos KDL chain: a peer library used as an independent oracle in
// tests and as the reference in benchmarks (never by the controller itself). Paul's DH maps onto KDL segments as
// Joint(RotZ) followed by Frame::DH(a, alpha, d, theta_offset), with each link's inertia in the
// segment's tip frame, which is DH frame i.
#pragma once

#include <kdl/chain.hpp>
#include <kdl/frames.hpp>
#include <kdl/jntarray.hpp>

#include "common/robot_model.hpp"

namespace rfms::oracle {

// The model's six links as KDL segments, with their masses, inertias and rotor inertias.
KDL::Chain kdlChain(const RobotModel& model);
KDL::JntArray kdlJoints(const JointVec& q);
inline KDL::Vector kdlVector(const Vec3& v) { return KDL::Vector(v.x(), v.y(), v.z()); }

}  // namespace rfms::oracle
