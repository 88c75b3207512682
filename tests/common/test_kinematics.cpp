#include <gtest/gtest.h>

#include <random>

#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

TEST(Kinematics, Puma260HomeIsTheReportsHomePosition) {
  // At q = 0 the wrist centre is at (a2, -d3, d4) = (203.2, -126.24, 203.2) mm and R6 = I: the
  // RFMS manual's home transform trans(203.2, -126.23, 203.2) to within its rounding.
  const Transform t6 = forwardKinematics(test::puma260(), JointVec::Zero());
  EXPECT_TRUE(t6.linear().isIdentity(1e-15));
  EXPECT_LT((t6.translation() - Vec3(0.2032, -0.12624, 0.2032)).norm(), 1e-15);
}

TEST(Kinematics, LinkFramesEndInT6) {
  std::mt19937_64 rng(3);
  const JointVec q = test::randomConfiguration(test::puma560(), rng);
  LinkFrames frames;
  linkFrames(test::puma560(), q, frames);
  EXPECT_TRUE(frames[0].isApprox(Transform::Identity()));
  EXPECT_TRUE(frames[6].isApprox(forwardKinematics(test::puma560(), q), 1e-14));
}

// Finite-difference oracle: column i of the Jacobian is the twist of T6 when q_i moves.
Mat6 numericJacobian(const RobotModel& model, const JointVec& q) {
  const double h = 1e-6;
  Mat6 j;
  for (int i = 0; i < kJoints; ++i) {
    JointVec qp = q, qm = q;
    qp[i] += h;
    qm[i] -= h;
    const Transform tp = forwardKinematics(model, qp), tm = forwardKinematics(model, qm);
    j.block<3, 1>(0, i) = (tp.translation() - tm.translation()) / (2 * h);
    // dR R^T is the skew matrix of the angular velocity.
    const Mat3 w = (tp.linear() - tm.linear()) / (2 * h) * forwardKinematics(model, q).linear().transpose();
    j.block<3, 1>(3, i) = Vec3(w(2, 1), w(0, 2), w(1, 0));
  }
  return j;
}

TEST(Kinematics, JacobianMatchesFiniteDifferences) {
  std::mt19937_64 rng(4);
  for (const RobotModel* model : {&test::puma260(), &test::puma560()}) {
    for (int n = 0; n < 200; ++n) {
      const JointVec q = test::randomConfiguration(*model, rng);
      const Mat6 analytic = jacobianBase(*model, q);
      const Mat6 numeric = numericJacobian(*model, q);
      ASSERT_LT((analytic - numeric).cwiseAbs().maxCoeff(), 1e-8) << model->name << " q=" << q.transpose();
    }
  }
}

TEST(Kinematics, ToolJacobianIsTheBaseJacobianSeenFromT6) {
  std::mt19937_64 rng(5);
  const RobotModel& model = test::puma560();
  const JointVec q = test::randomConfiguration(model, rng);
  const Mat3 r = forwardKinematics(model, q).linear();
  const Mat6 j0 = jacobianBase(model, q), j6 = jacobianTool(model, q);
  EXPECT_TRUE((r * j6.topRows<3>()).isApprox(j0.topRows<3>(), 1e-12));
  EXPECT_TRUE((r * j6.bottomRows<3>()).isApprox(j0.bottomRows<3>(), 1e-12));
}

}  // namespace
}  // namespace rfms
