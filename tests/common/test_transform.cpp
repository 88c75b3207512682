#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "common/transform.hpp"

namespace rfms {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Transform, TransAndPrincipalRotations) {
  const Transform t = trans(1, 2, 3);
  EXPECT_TRUE(t.linear().isIdentity());
  EXPECT_EQ(t.translation(), Vec3(1, 2, 3));
  // Rot(z, 90 deg) takes x to y; Rot(x, 90 deg) takes y to z; Rot(y, 90 deg) takes z to x.
  EXPECT_TRUE((rot(Axis::kZ, kPi / 2) * Vec3::UnitX()).isApprox(Vec3::UnitY()));
  EXPECT_TRUE((rot(Axis::kX, kPi / 2) * Vec3::UnitY()).isApprox(Vec3::UnitZ()));
  EXPECT_TRUE((rot(Axis::kY, kPi / 2) * Vec3::UnitZ()).isApprox(Vec3::UnitX()));
  EXPECT_TRUE(rot(Vec3(0, 0, 2), 0.3).isApprox(rot(Axis::kZ, 0.3)));
  EXPECT_TRUE(rot(Vec3::Zero(), 0.3).isApprox(Transform::Identity()));
}

TEST(Transform, EulerAnglesRoundTripOverRandomAngles) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> a(-kPi, kPi), b(1e-3, kPi - 1e-3);
  for (int n = 0; n < 10000; ++n) {
    const Vec3 in(a(rng), b(rng), a(rng));
    const Vec3 out = eulerAngles(eul(in.x(), in.y(), in.z()).linear());
    ASSERT_LT((out - in).cwiseAbs().maxCoeff(), 1e-9) << in.transpose();
  }
}

TEST(Transform, RpyAnglesRoundTripOverRandomAngles) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> a(-kPi, kPi), b(-kPi / 2 + 1e-3, kPi / 2 - 1e-3);
  for (int n = 0; n < 10000; ++n) {
    const Vec3 in(a(rng), b(rng), a(rng));
    const Vec3 out = rpyAngles(rpy(in.x(), in.y(), in.z()).linear());
    ASSERT_LT((out - in).cwiseAbs().maxCoeff(), 1e-9) << in.transpose();
  }
}

TEST(Transform, GimbalLockKeepsTheHintAndReproducesTheRotation) {
  for (double theta : {0.0, kPi}) {
    const Mat3 r = eul(0.4, theta, -1.1).linear();
    const Vec3 out = eulerAngles(r, 0.25);
    EXPECT_DOUBLE_EQ(out.x(), 0.25);
    EXPECT_TRUE(eul(out.x(), out.y(), out.z()).linear().isApprox(r, 1e-12)) << theta;
  }
  for (double theta : {kPi / 2, -kPi / 2}) {
    const Mat3 r = rpy(0.4, theta, -1.1).linear();
    const Vec3 out = rpyAngles(r, -0.5);
    EXPECT_DOUBLE_EQ(out.x(), -0.5);
    EXPECT_TRUE(rpy(out.x(), out.y(), out.z()).linear().isApprox(r, 1e-12)) << theta;
  }
}

TEST(Transform, PaulsDefinitionsOfEulerAndRpy) {
  // Euler: Rot(z,phi) Rot(y,theta) Rot(z,psi); RPY: Rot(z,phi) Rot(y,theta) Rot(x,psi).
  const Mat3 e = (Eigen::AngleAxisd(0.1, Vec3::UnitZ()) * Eigen::AngleAxisd(0.2, Vec3::UnitY()) *
                  Eigen::AngleAxisd(0.3, Vec3::UnitZ()))
                     .toRotationMatrix();
  const Mat3 r = (Eigen::AngleAxisd(0.1, Vec3::UnitZ()) * Eigen::AngleAxisd(0.2, Vec3::UnitY()) *
                  Eigen::AngleAxisd(0.3, Vec3::UnitX()))
                     .toRotationMatrix();
  EXPECT_TRUE(eul(0.1, 0.2, 0.3).linear().isApprox(e));
  EXPECT_TRUE(rpy(0.1, 0.2, 0.3).linear().isApprox(r));
}

TEST(Transform, HomogeneousCheck) {
  EXPECT_TRUE(isHomogeneous(eul(0.1, 0.2, 0.3).matrix()));
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m(0, 0) = 2;  // not orthonormal
  EXPECT_FALSE(isHomogeneous(m));
  m = Eigen::Matrix4d::Identity();
  m(0, 0) = -1;  // a reflection
  EXPECT_FALSE(isHomogeneous(m));
  m = Eigen::Matrix4d::Identity();
  m(3, 0) = 1;  // bad last row
  EXPECT_FALSE(isHomogeneous(m));
  m = Eigen::Matrix4d::Identity();
  m(0, 3) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(isHomogeneous(m));
}

TEST(Transform, AngleWrapping) {
  EXPECT_DOUBLE_EQ(wrapToPi(3 * kPi), kPi);
  EXPECT_DOUBLE_EQ(wrapToPi(-kPi), kPi);
  EXPECT_NEAR(wrapToPi(2 * kPi + 0.1), 0.1, 1e-15);
  EXPECT_NEAR(nearestEquivalent(0.1, 2 * kPi), 2 * kPi + 0.1, 1e-15);
  EXPECT_NEAR(nearestEquivalent(-3.0, 3.0), 2 * kPi - 3.0, 1e-15);
}

}  // namespace
}  // namespace rfms
