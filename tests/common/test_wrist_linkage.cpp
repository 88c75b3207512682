// The compliant wrist's sensing linkage (common/wrist_linkage.hpp) against Eq. 43 worked by hand,
// its Jacobian against finite differences, and the two directions against each other: the angles
// the emulated arm finds for a deflection read back as that deflection.
#include <gtest/gtest.h>

#include <random>

#include "common/wrist_linkage.hpp"

namespace rfms {
namespace {

const WristLinkage kLinkage;

TEST(WristLinkage, AtRestThePlatesAreOffsetAsEquation43SaysWithItsRotationsLeftOut) {
  const auto& l = kLinkage.l;
  const Transform rest = linkagePose(kLinkage, Vec6::Zero());
  EXPECT_TRUE(rest.linear().isIdentity(1e-15));
  EXPECT_TRUE(rest.translation().isApprox(Vec3(l[3] - l[1], 0.0, l[0] + l[5] + l[7]), 1e-15));
  EXPECT_TRUE(linkageRest(kLinkage).isApprox(rest, 1e-15));
}

// θ1 alone turns the upper plate about the first joint's z axis, through (-l7, l3): a point p of the
// plate goes to c + Rz (p - c).
TEST(WristLinkage, TheFirstJointAloneTurnsThePlateAboutItsOwnAxis) {
  const auto& l = kLinkage.l;
  const double angle = 0.07;
  Vec6 angles = Vec6::Zero();
  angles[0] = angle;
  const Vec3 c(-l[6], l[2], 0.0);
  const Mat3 rz = Eigen::AngleAxisd(angle, Vec3::UnitZ()).toRotationMatrix();
  const Vec3 p = linkagePose(kLinkage, Vec6::Zero()).translation();
  const Transform t = linkagePose(kLinkage, angles);
  EXPECT_TRUE(t.translation().isApprox(c + rz * (p - c), 1e-14));
  EXPECT_TRUE(t.linear().isApprox(rz, 1e-14));
}

TEST(WristLinkage, ItsJacobianIsTheFiniteDifferenceOfItsPose) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-0.2, 0.2);
  for (int trial = 0; trial < 20; ++trial) {
    Vec6 q;
    for (double& x : q) x = u(rng);
    const Mat6 j = linkageJacobian(kLinkage, q);
    const Transform t = linkagePose(kLinkage, q);
    for (int i = 0; i < 6; ++i) {
      const double h = 1e-7;
      Vec6 qh = q;
      qh[i] += h;
      const Transform th = linkagePose(kLinkage, qh);
      const Mat3 dr = (th.linear() - t.linear()) / h * t.linear().transpose();  // [ω]x
      Vec6 fd;
      fd << (th.translation() - t.translation()) / h, Vec3(dr(2, 1), dr(0, 2), dr(1, 0));
      EXPECT_TRUE(j.col(i).isApprox(fd, 1e-5)) << "joint " << i + 1 << ", trial " << trial;
    }
  }
}

// Six potentiometers can sense six directions only if the chain is not singular where it works.
TEST(WristLinkage, AtRestItSensesEveryDirection) {
  // Metres over a 30 mm lever, to compare with radians.
  Mat6 j = linkageJacobian(kLinkage, Vec6::Zero());
  j.topRows<3>() /= 0.03;
  const Eigen::JacobiSVD<Mat6> svd(j, Eigen::ComputeFullV);
  const auto s = svd.singularValues();
  EXPECT_GT(s[5] / s[0], 0.18) << "singular values " << s.transpose() << "\nleast sensed\n" << svd.matrixV().col(5);
}

TEST(WristLinkage, TheAnglesFoundForADeflectionReadBackAsIt) {
  const Vec3 com(0.0, 0.0, 0.06);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> along(-0.01, 0.01), about(-0.1, 0.1);  // the default travel
  for (int trial = 0; trial < 50; ++trial) {
    Vec6 angles = Vec6::Zero();
    const Vec3 d(along(rng), along(rng), along(rng)), turn(about(rng), about(rng), about(rng));
    const Mat3 r = Eigen::AngleAxisd(turn.norm(), turn.normalized()).toRotationMatrix();
    Transform moved = Transform::Identity();
    moved.linear() = r;
    moved.translation() = com + d - r * com;
    ASSERT_TRUE(anglesForDisplacement(kLinkage, moved, angles, 20)) << "trial " << trial << ": " << angles.transpose();
    const Vec6 back = deflectionFromAngles(kLinkage, com, angles);
    EXPECT_TRUE(back.head<3>().isApprox(d, 1e-9)) << back.transpose() << " against " << d.transpose();
    const Vec3 a = 0.5 * Vec3(r(2, 1) - r(1, 2), r(0, 2) - r(2, 0), r(1, 0) - r(0, 1));
    EXPECT_TRUE(back.tail<3>().isApprox(a, 1e-9));
  }
}

// Period to period the deflection moves little, and the emulated arm starts from the last angles:
// then two steps are enough.
TEST(WristLinkage, FromTheLastPeriodsAnglesTwoNewtonStepsAreEnough) {
  const Vec3 com(0.0, 0.0, 0.06);
  Vec6 angles = Vec6::Zero();
  for (int k = 1; k <= 100; ++k) {
    Transform moved = Transform::Identity();
    moved.translation() = Vec3(0.00005 * k, -0.00003 * k, 0.00002 * k);
    EXPECT_TRUE(anglesForDisplacement(kLinkage, moved, angles, 3)) << "period " << k;
  }
}

}  // namespace
}  // namespace rfms
