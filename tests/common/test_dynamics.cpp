#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <numbers>
#include <random>

#include "common/crba.hpp"
#include "common/dynamics_snapshot.hpp"
#include "common/forward_dynamics.hpp"
#include "common/friction.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr double kPi = std::numbers::pi;

class Dynamics : public ::testing::TestWithParam<const char*> {
 protected:
  const RobotModel& model() const { return std::string(GetParam()) == "puma260" ? test::puma260() : test::puma560(); }
};

TEST_P(Dynamics, MassMatrixIsSymmetricPositiveDefinite) {
  std::mt19937_64 rng(10);
  for (int n = 0; n < 1000; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    const JointMat m = massMatrix(model(), q);
    ASSERT_LT((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-14);
    ASSERT_GT(Eigen::SelfAdjointEigenSolver<JointMat>(m).eigenvalues().minCoeff(), 0.0);
  }
}

TEST_P(Dynamics, MassMatrixColumnsAreNewtonEulerTorquesForUnitAccelerations) {
  // Two different algorithms: the compound-link recursion against RNE at qd = 0, g = 0.
  std::mt19937_64 rng(11);
  for (int n = 0; n < 200; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    const JointMat m = massMatrix(model(), q);
    for (int j = 0; j < kJoints; ++j) {
      const JointVec col = inverseDynamics(model(), q, JointVec::Zero(), JointVec::Unit(j), 0.0);
      ASSERT_LT((m.col(j) - col).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + m.cwiseAbs().maxCoeff()));
    }
  }
}

TEST_P(Dynamics, GravityFromCompoundLinksEqualsNewtonEuler) {
  std::mt19937_64 rng(12);
  for (int n = 0; n < 200; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    JointMat m;
    JointVec g;
    massMatrixAndGravity(model(), q, m, g);
    const JointVec rnea = inverseDynamics(model(), q, JointVec::Zero(), JointVec::Zero());
    ASSERT_LT((g - rnea).cwiseAbs().maxCoeff(), 1e-12);
    ASSERT_LT((gravityTorques(model(), q) - rnea).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST_P(Dynamics, InverseDynamicsSplitsIntoInertialVelocityAndGravityTerms) {
  std::mt19937_64 rng(13);
  for (int n = 0; n < 200; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    const JointVec qd = test::randomVector(rng, 2.0), qdd = test::randomVector(rng, 5.0);
    const JointVec tau = inverseDynamics(model(), q, qd, qdd);
    const JointVec parts = massMatrix(model(), q) * qdd + velocityTorques(model(), q, qd) + gravityTorques(model(), q);
    ASSERT_LT((tau - parts).cwiseAbs().maxCoeff(), 1e-11 * (1.0 + tau.cwiseAbs().maxCoeff()));
  }
}

TEST_P(Dynamics, VelocityTorquesAreChristoffelTermsOfTheMassMatrix) {
  // C(q,qd) qd = dM/dt qd - 1/2 d/dq (qd^T M qd), with derivatives of M by central differences.
  std::mt19937_64 rng(14);
  const double h = 1e-6;
  for (int n = 0; n < 50; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    const JointVec qd = test::randomVector(rng, 2.0);
    JointMat mdot = JointMat::Zero();
    JointVec grad;
    for (int k = 0; k < kJoints; ++k) {
      const JointVec dq = h * JointVec::Unit(k);
      const JointMat dm = (massMatrix(model(), q + dq) - massMatrix(model(), q - dq)) / (2 * h);
      mdot += dm * qd[k];
      grad[k] = 0.5 * qd.dot(dm * qd);
    }
    const JointVec expected = mdot * qd - grad;
    ASSERT_LT((velocityTorques(model(), q, qd) - expected).cwiseAbs().maxCoeff(), 1e-6);
  }
}

TEST_P(Dynamics, ForwardDynamicsInvertsInverseDynamics) {
  std::mt19937_64 rng(15);
  for (int n = 0; n < 500; ++n) {
    const JointVec q = test::randomConfiguration(model(), rng);
    const JointVec qd = test::randomVector(rng, 2.0), qdd = test::randomVector(rng, 5.0);
    const JointVec tau = inverseDynamics(model(), q, qd, qdd);
    ASSERT_LT((forwardDynamics(model(), q, qd, tau) - qdd).cwiseAbs().maxCoeff(), 1e-9);
  }
}

TEST_P(Dynamics, SnapshotHoldsTheSameQuantities) {
  std::mt19937_64 rng(16);
  const JointVec q = test::randomConfiguration(model(), rng);
  const JointVec qd = test::randomVector(rng, 1.0);
  DynamicsSnapshot s;
  updateDynamics(model(), q, qd, s);
  EXPECT_TRUE(s.inertia.isApprox(massMatrix(model(), q)));
  EXPECT_TRUE(s.gravity.isApprox(gravityTorques(model(), q), 1e-12));
  EXPECT_TRUE(s.velocity.isApprox(velocityTorques(model(), q, qd), 1e-12));
  EXPECT_TRUE(s.jacobian.isApprox(jacobianBase(model(), q)));
  ASSERT_FALSE(s.singular);
  EXPECT_TRUE((s.jacobian * s.jacobian_inverse).isIdentity(1e-9));
}

INSTANTIATE_TEST_SUITE_P(Robots, Dynamics, ::testing::Values("puma260", "puma560"));

TEST(Dynamics, SnapshotFlagsASingularJacobian) {
  DynamicsSnapshot s;
  updateDynamics(test::puma260(), JointVec::Zero(), JointVec::Zero(), s);  // theta5 = 0
  EXPECT_TRUE(s.singular);
  EXPECT_TRUE(s.jacobian_inverse.isZero());
}

TEST(Dynamics, Puma260ReproducesTheReportsGravityCoefficients) {
  // A.4 §7.1: from the identified parameters the report derives cl2 = 5.51792, cl3 = -1.768644 and
  // cl5 = -0.13743 N m (J. Lloyd measured 5.509, -1.762, -0.192). cl2 is the shoulder's load with the
  // upper arm horizontal and the forearm vertical (q = 0); cl3 is the elbow's load with the forearm
  // horizontal and the flange axis vertical (so that z6 adds nothing); cl5 is the wrist bend's load
  // with the flange axis horizontal.
  const RobotModel& m = test::puma260();
  EXPECT_NEAR(gravityTorques(m, JointVec::Zero())[1], 5.51792, 5e-5);
  JointVec q = JointVec::Zero();
  q[2] = kPi / 2;  // forearm horizontal
  q[4] = kPi / 2;  // flange axis vertical
  EXPECT_NEAR(std::abs(gravityTorques(m, q)[2]), 1.768644, 5e-5);
  q = JointVec::Zero();
  q[4] = kPi / 2;  // flange axis horizontal
  EXPECT_NEAR(std::abs(gravityTorques(m, q)[4]), 0.13743, 5e-5);
}

TEST(Dynamics, RotorInertiaAddsToTheDiagonalOnly) {
  RobotModel m = test::puma560();
  const JointVec q = (JointVec() << 0.1, 0.2, 0.3, 0.4, 0.5, 0.6).finished();
  const JointMat with = massMatrix(m, q);
  for (auto& j : m.joints) j.rotor_inertia = 0.0;
  const JointMat without = massMatrix(m, q);
  const JointMat diff = with - without;
  for (int i = 0; i < kJoints; ++i) EXPECT_NEAR(diff(i, i), test::puma560().joints[i].rotor_inertia, 1e-12);
  EXPECT_LT((diff - JointMat(diff.diagonal().asDiagonal())).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Friction, CoulombAndViscous) {
  const RobotModel& m = test::puma260();
  const JointVec qd = (JointVec() << 1.0, -2.0, 0.0, 0.5, -0.5, 3.0).finished();
  const JointVec f = frictionTorques(m, qd);
  for (int i = 0; i < kJoints; ++i) {
    const double sign = qd[i] > 0 ? 1.0 : (qd[i] < 0 ? -1.0 : 0.0);
    EXPECT_DOUBLE_EQ(f[i], m.joints[i].coulomb * sign + m.joints[i].viscous * qd[i]);
  }
  EXPECT_DOUBLE_EQ(f[2], 0.0);  // at rest: no Coulomb term is invented
}

}  // namespace
}  // namespace rfms
