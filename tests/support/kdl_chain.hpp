// The same robot model as an Orocos KDL chain: a peer library used as an independent oracle in
// tests and as the reference in benchmarks. Paul's DH maps onto KDL segments as
// Joint(RotZ) followed by Frame::DH(a, alpha, d, theta_offset), with each link's inertia in the
// segment's tip frame, which is DH frame i.
#pragma once

#include <kdl/chain.hpp>
#include <kdl/frames.hpp>
#include <kdl/jntarray.hpp>

#include "common/robot_model.hpp"

namespace rfms::test {

inline KDL::Chain kdlChain(const RobotModel& model) {
  KDL::Chain chain;
  for (const JointModel& j : model.joints) {
    const LinkInertia& l = j.link;
    // KDL wants the centre of mass and the inertia about it; this conversion needs a mass.
    const Vec3 com = l.mass > 0 ? Vec3(l.first_moment / l.mass) : Vec3::Zero();
    const Mat3 ic = l.inertia - l.mass * (com.squaredNorm() * Mat3::Identity() - com * com.transpose());
    const KDL::RigidBodyInertia inertia(
        l.mass, KDL::Vector(com.x(), com.y(), com.z()),
        KDL::RotationalInertia(ic(0, 0), ic(1, 1), ic(2, 2), ic(0, 1), ic(0, 2), ic(1, 2)));
    chain.addSegment(KDL::Segment(KDL::Joint(KDL::Joint::RotZ, 1.0, 0.0, j.rotor_inertia),
                                  KDL::Frame::DH(j.dh.a, j.dh.alpha(), j.dh.d, j.dh.theta_offset),
                                  inertia));
  }
  return chain;
}

inline KDL::JntArray kdlJoints(const JointVec& q) {
  KDL::JntArray a(kJoints);
  for (int i = 0; i < kJoints; ++i) a(i) = q[i];
  return a;
}

inline KDL::Vector kdlVector(const Vec3& v) { return KDL::Vector(v.x(), v.y(), v.z()); }

}  // namespace rfms::test
