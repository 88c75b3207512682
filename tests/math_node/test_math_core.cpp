#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/transform.hpp"
#include "math_node/math_core.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

proto::MMail mmail(std::uint64_t k, const JointVec& q, std::uint32_t compliance = 0) {
  proto::MMail m;
  m.mutable_header()->set_period(k);
  encode(q, m.mutable_angles());
  encode(JointVec::Zero(), m.mutable_velocities());
  m.set_angles_period(k == 0 ? 0 : k - 1);
  m.set_compliance(compliance);
  m.set_parcel_joint(static_cast<std::uint32_t>(k % kJoints) + 1);
  return m;
}

TEST(MathCore, ParcelsGoRoundRobinFromTheLastCompleteUpdate) {
  const RobotModel& model = test::puma260();
  MathCore math(model, MathConfig{});
  JointVec q = (JointVec() << 0.1, -0.3, 0.4, 0.2, -0.6, 0.3).finished();
  MathOutbox box;
  const proto::Parcel& p = box.parcel;
  for (std::uint64_t k = 0; k < 24; ++k) {
    q[0] += 0.01;  // the angles change every period ...
    math.step({mmail(k, q)}, box);
    EXPECT_EQ(p.joint(), static_cast<std::uint32_t>(k % 6) + 1);
    // ... but the results only every sixth: each parcel names the angles it came from.
    const std::uint64_t from = (k / 6) * 6;
    EXPECT_EQ(p.angles_period(), from == 0 ? 0 : from - 1);
    const DynamicsSnapshot& s = math.published();
    const int i = static_cast<int>(p.joint()) - 1;
    EXPECT_DOUBLE_EQ(p.gravity_torque(), s.gravity[i]);
    EXPECT_DOUBLE_EQ(p.velocity_torque(), s.velocity[i]);
    for (int j = 0; j < kJoints; ++j) EXPECT_DOUBLE_EQ(p.inertia_row(j), s.inertia(i, j));
    EXPECT_EQ(p.header().period(), k);
  }
}

TEST(MathCore, ComplianceRemovesExactlyTheCompliantMotions) {
  const RobotModel& model = test::puma560();
  std::mt19937_64 rng(70);
  const JointVec stiffness = (JointVec() << 900, 1200, 500, 40, 30, 20).finished();
  for (int n = 0; n < 200; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    DynamicsSnapshot s;
    updateDynamics(model, q, JointVec::Zero(), s);
    if (s.singular) continue;
    EXPECT_TRUE(complianceMatrix(s, 0, stiffness).isIdentity());
    const std::uint32_t bits = 1u << (n % 6) | (n % 3 == 0 ? 0x20u : 0u);
    const Mat6 keep = complianceMatrix(s, bits, stiffness);
    // A joint error that moves the tool only along compliant directions is not servoed ...
    for (int d = 0; d < 6; ++d) {
      const Vec6 e = s.jacobian_inverse.col(d);
      const double kept = (keep * e).norm() / e.norm();
      if ((bits >> d) & 1u) {
        EXPECT_LT(kept, 1e-9) << d;
      }
    }
    // ... the servo's stiffness stays symmetric positive semi-definite ...
    const Mat6 k = stiffness.asDiagonal() * keep;
    EXPECT_LT((k - k.transpose()).cwiseAbs().maxCoeff(), 1e-9 * k.cwiseAbs().maxCoeff());
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat6>(0.5 * (k + k.transpose())).eigenvalues().minCoeff(),
              -1e-9 * k.cwiseAbs().maxCoeff());
    // ... and its restoring torques do no work along a compliant motion: n^T K (1 - P) = 0.
    for (int d = 0; d < 6; ++d) {
      if (!((bits >> d) & 1u)) continue;
      const Vec6 motion = s.jacobian_inverse.col(d);
      EXPECT_LT((motion.transpose() * k).norm(), 1e-9 * motion.norm() * k.norm()) << d;
    }
  }
}

// Force control works at the tool point: the Jacobian there, against finite differences of the
// forward kinematics, and a compliance along the tool frame's own axes.
TEST(MathCore, AtTheToolPointAlongTheToolsAxes) {
  const RobotModel& model = test::puma560();
  std::mt19937_64 rng(71);
  const Transform tool = trans(0.01, -0.02, 0.06) * rpy(0.3, -0.2, 0.5);
  const JointVec stiffness = (JointVec() << 900, 1200, 500, 40, 30, 20).finished();
  for (int n = 0; n < 100; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    DynamicsSnapshot s;
    updateDynamics(model, q, JointVec::Zero(), s);
    if (s.singular) continue;
    const Transform t6 = forwardKinematics(model, q);
    const Transform at = t6 * tool;
    const Mat6 j = jacobianAtPoint(s.jacobian, t6.translation(), at.translation());
    constexpr double h = 1e-6;
    for (int i = 0; i < kJoints; ++i) {
      JointVec dq = JointVec::Zero();
      dq[i] = h;
      const Vec3 v = ((forwardKinematics(model, q + dq) * tool).translation() -
                      (forwardKinematics(model, q - dq) * tool).translation()) /
                     (2 * h);
      EXPECT_LT((v - j.block<3, 1>(0, i)).norm(), 1e-6) << i;
    }
    // Along the tool frame's axes: a joint error that moves the tool point only along (or turns the
    // tool only about) a compliant axis of its own frame is not servoed.
    const std::uint32_t bits = 1u << (n % 6);
    const Mat6 keep = complianceMatrix(s, bits, stiffness, t6, at);
    const Mat6 j_inverse = j.inverse();
    for (int d = 0; d < 6; ++d) {
      if (!((bits >> d) & 1u)) continue;
      Vec6 twist = Vec6::Zero();
      (d < 3 ? twist.head<3>() : twist.tail<3>()) = at.linear().col(d % 3);
      const Vec6 e = j_inverse * twist;
      EXPECT_LT((keep * e).norm(), 1e-9 * e.norm()) << d;
    }
    // What it keeps of an error moves the tool along none of the compliant axes... in the metric
    // of the servo: its restoring torques do no work along a compliant motion.
    const Mat6 k = stiffness.asDiagonal() * keep;
    for (int d = 0; d < 6; ++d) {
      if (!((bits >> d) & 1u)) continue;
      Vec6 twist = Vec6::Zero();
      (d < 3 ? twist.head<3>() : twist.tail<3>()) = at.linear().col(d % 3);
      const Vec6 motion = j_inverse * twist;
      EXPECT_LT((motion.transpose() * k).norm(), 1e-9 * motion.norm() * k.norm()) << d;
    }
  }
}

TEST(MathCore, ParcelsCarryTheJacobianColumnAtThePointAsked) {
  const RobotModel& model = test::puma260();
  const Transform tool = trans(0.0, 0.0, 0.06);
  MathConfig config;
  config.tool = tool;
  MathCore math(model, config);
  proto::MMail in;
  MathOutbox box;
  const proto::Parcel& out = box.parcel;
  const JointVec q = (JointVec() << 0.1, -0.8, 0.5, 0.2, 0.7, -0.3).finished();
  encode(q, in.mutable_angles());
  encode(JointVec::Zero(), in.mutable_velocities());
  in.set_at_tool_point(true);
  in.set_parcel_joint(2);
  math.step({in}, box);
  const Transform t6 = forwardKinematics(model, q);
  const Mat6 j = jacobianAtPoint(jacobianBase(model, q), t6.translation(), (t6 * tool).translation());
  ASSERT_EQ(out.jacobian_column_size(), 6);
  for (int r = 0; r < 6; ++r) EXPECT_NEAR(out.jacobian_column(r), j(r, 1), 1e-12);
  // At T6's origin when not asked.
  in.set_at_tool_point(false);
  in.mutable_header()->set_period(6);
  math.step({in}, box);
  const Mat6 j6 = jacobianBase(model, q);
  for (int r = 0; r < 6; ++r) EXPECT_NEAR(out.jacobian_column(r), j6(r, 1), 1e-12);
}

}  // namespace
}  // namespace rfms
