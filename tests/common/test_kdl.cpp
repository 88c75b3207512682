// PUMA 560 against Orocos KDL, a peer library written by others: torques, mass matrix, gravity,
// Coriolis terms, forward kinematics and Jacobian must agree to 1e-9 relative.
#include <gtest/gtest.h>

#include <kdl/chaindynparam.hpp>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <random>

#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "oracle/kdl_chain.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

double relativeError(const Eigen::MatrixXd& ours, const Eigen::MatrixXd& theirs) {
  return (ours - theirs).cwiseAbs().maxCoeff() / std::max(1.0, theirs.cwiseAbs().maxCoeff());
}

class KdlPeer : public ::testing::Test {
 protected:
  const RobotModel& model = test::puma560();
  KDL::Chain chain = oracle::kdlChain(model);
  std::mt19937_64 rng{30};
};

TEST_F(KdlPeer, ForwardKinematicsAndJacobian) {
  KDL::ChainFkSolverPos_recursive fk(chain);
  KDL::ChainJntToJacSolver jac(chain);
  for (int n = 0; n < 500; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    KDL::Frame f;
    ASSERT_GE(fk.JntToCart(oracle::kdlJoints(q), f), 0);
    Eigen::Matrix4d theirs = Eigen::Matrix4d::Identity();
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) theirs(r, c) = f.M(r, c);
      theirs(r, 3) = f.p(r);
    }
    ASSERT_LT(relativeError(forwardKinematics(model, q).matrix(), theirs), 1e-12);
    KDL::Jacobian j(kJoints);
    ASSERT_GE(jac.JntToJac(oracle::kdlJoints(q), j), 0);
    ASSERT_LT(relativeError(jacobianBase(model, q), j.data), 1e-12);
  }
}

TEST_F(KdlPeer, InverseDynamicsTorques) {
  KDL::ChainIdSolver_RNE id(chain, oracle::kdlVector(model.gravity));
  KDL::Wrenches no_external(chain.getNrOfSegments());
  for (int n = 0; n < 500; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    const JointVec qd = test::randomVector(rng, 2.0), qdd = test::randomVector(rng, 5.0);
    KDL::JntArray tau(kJoints);
    ASSERT_GE(id.CartToJnt(oracle::kdlJoints(q), oracle::kdlJoints(qd), oracle::kdlJoints(qdd), no_external, tau), 0);
    ASSERT_LT(relativeError(inverseDynamics(model, q, qd, qdd), tau.data), 1e-9) << q.transpose();
  }
}

TEST_F(KdlPeer, MassMatrixGravityAndCoriolis) {
  KDL::ChainDynParam dyn(chain, oracle::kdlVector(model.gravity));
  for (int n = 0; n < 500; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    const JointVec qd = test::randomVector(rng, 2.0);
    KDL::JntSpaceInertiaMatrix m(kJoints);
    KDL::JntArray g(kJoints), c(kJoints);
    ASSERT_GE(dyn.JntToMass(oracle::kdlJoints(q), m), 0);
    ASSERT_GE(dyn.JntToGravity(oracle::kdlJoints(q), g), 0);
    ASSERT_GE(dyn.JntToCoriolis(oracle::kdlJoints(q), oracle::kdlJoints(qd), c), 0);
    ASSERT_LT(relativeError(massMatrix(model, q), m.data), 1e-9);
    // Both are the torques that hold the arm still.
    ASSERT_LT(relativeError(gravityTorques(model, q), g.data), 1e-9);
    ASSERT_LT(relativeError(velocityTorques(model, q, qd), c.data), 1e-9);
  }
}

TEST(PublishedFigures, Puma560GravityLoadAtZeroMatchesCorkesToolbox) {
  // Corke's toolbox prints gravload(qz) = [0 37.4837 0.2489 0 0 0] N m for this parameter set.
  const JointVec g = gravityTorques(test::puma560(), JointVec::Zero());
  EXPECT_NEAR(g[1], 37.4837, 5e-5);
  EXPECT_NEAR(g[2], 0.2489, 5e-5);
  EXPECT_NEAR(g[0], 0.0, 1e-12);
}

}  // namespace
}  // namespace rfms
