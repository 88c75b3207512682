#include "oracle/kdl_chain.hpp"

namespace rfms::oracle {

KDL::Chain kdlChain(const RobotModel& model) {
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
                                  KDL::Frame::DH(j.dh.a, j.dh.alpha(), j.dh.d, j.dh.theta_offset), inertia));
  }
  return chain;
}

KDL::JntArray kdlJoints(const JointVec& q) {
  KDL::JntArray a(kJoints);
  for (int i = 0; i < kJoints; ++i) a(i) = q[i];
  return a;
}

}  // namespace rfms::oracle
