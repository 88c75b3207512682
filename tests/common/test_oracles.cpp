// The dynamics code against closed forms from the sources, each derived there by Lagrange's
// method — an algorithm independent of the Newton–Euler and compound-link code under test.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "common/crba.hpp"
#include "common/rne.hpp"

namespace rfms {
namespace {

constexpr double kPi = std::numbers::pi;
using Mat3x3 = Eigen::Matrix3d;

// A six-joint model whose joints 4..6 are massless and of zero length, so that the first joints
// form the chain of a textbook example.
RobotModel emptyModel(const Vec3& gravity) {
  RobotModel m;
  m.name = "oracle";
  m.gravity = gravity;
  for (auto& j : m.joints) {
    j.q_min = -kPi;
    j.q_max = kPi;
  }
  return m;
}

// Thin uniform rod of mass m and length l lying along -x from its frame's origin (the frame sits at
// the rod's far end, as Paul's DH frames do): first moment and inertia about that origin.
LinkInertia rodEndingAtOrigin(double m, double l) {
  LinkInertia link;
  link.mass = m;
  link.first_moment = Vec3(-m * l / 2, 0, 0);
  link.inertia = Mat3x3::Zero();
  link.inertia(1, 1) = link.inertia(2, 2) = m * l * l / 3;
  return link;
}

// Horn, Hirokawa & Vazirani, "Dynamics of a Three Degree of Freedom Kinematic Chain" (MIT AIM-478,
// 1977): an upright column of inertia I1, then two thin rods (m2, l2) and (m3, l3) with no offsets;
// theta2 is measured from the vertical. Their kinetic energies are
//   K1 = I1 th1'^2 / 2,   K2 = m2 l2^2 (s2^2 th1'^2 + th2'^2) / 6,
//   K3 = m3/2 [(l2^2 s2^2 + l2 l3 s2 s23 + l3^2 s23^2 / 3) th1'^2 + l2^2 th2'^2
//              + l2 l3 c3 th2' (th2' + th3') + l3^2 (th2' + th3')^2 / 3]
// and the potential is P = g (m2 l2 c2 / 2 + m3 (l2 c2 + l3 c23 / 2)).
struct HornChain {
  double i1 = 0.7, m2 = 3.0, l2 = 0.5, m3 = 2.0, l3 = 0.4, g = 9.81;

  Mat3x3 mass(const Vec3& th) const {
    const double s2 = std::sin(th[1]), s23 = std::sin(th[1] + th[2]), c3 = std::cos(th[2]);
    Mat3x3 m = Mat3x3::Zero();
    m(0, 0) = i1 + m2 * l2 * l2 * s2 * s2 / 3 + m3 * (l2 * l2 * s2 * s2 + l2 * l3 * s2 * s23 + l3 * l3 * s23 * s23 / 3);
    m(1, 1) = m2 * l2 * l2 / 3 + m3 * (l2 * l2 + l2 * l3 * c3 + l3 * l3 / 3);
    m(1, 2) = m(2, 1) = m3 * (l2 * l3 * c3 / 2 + l3 * l3 / 3);
    m(2, 2) = m3 * l3 * l3 / 3;
    return m;
  }
  // dM/dtheta_k, differentiated by hand.
  std::array<Mat3x3, 3> massDerivatives(const Vec3& th) const {
    const double s2 = std::sin(th[1]), c2 = std::cos(th[1]);
    const double s23 = std::sin(th[1] + th[2]), c23 = std::cos(th[1] + th[2]), s3 = std::sin(th[2]);
    std::array<Mat3x3, 3> d{Mat3x3::Zero(), Mat3x3::Zero(), Mat3x3::Zero()};
    d[1](0, 0) = 2 * m2 * l2 * l2 * s2 * c2 / 3 +
                 m3 * (2 * l2 * l2 * s2 * c2 + l2 * l3 * (c2 * s23 + s2 * c23) + 2 * l3 * l3 * s23 * c23 / 3);
    d[2](0, 0) = m3 * (l2 * l3 * s2 * c23 + 2 * l3 * l3 * s23 * c23 / 3);
    d[2](1, 1) = -m3 * l2 * l3 * s3;
    d[2](1, 2) = d[2](2, 1) = -m3 * l2 * l3 * s3 / 2;
    return d;
  }
  Vec3 gravity(const Vec3& th) const {  // dP/dtheta
    const double s2 = std::sin(th[1]), s23 = std::sin(th[1] + th[2]);
    return Vec3(0, -g * (m2 * l2 * s2 / 2 + m3 * (l2 * s2 + l3 * s23 / 2)), -g * m3 * l3 * s23 / 2);
  }
  // Lagrange: tau_i = M_ij th''_j + sum_jk (dM_ij/dth_k - dM_jk/dth_i / 2) th'_j th'_k + dP/dth_i
  Vec3 torque(const Vec3& th, const Vec3& thd, const Vec3& thdd) const {
    const auto d = massDerivatives(th);
    Vec3 c = Vec3::Zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) c[i] += (d[k](i, j) - 0.5 * d[i](j, k)) * thd[j] * thd[k];
    return mass(th) * thdd + c + gravity(th);
  }

  // The same chain in Paul's DH frames: alpha1 = -90 deg puts joint 2's positive sense where
  // Horn's is, and theta2 = Horn's theta2 - 90 deg (Horn measures from the vertical).
  RobotModel model() const {
    RobotModel m = emptyModel(Vec3(0, 0, -g));
    m.joints[0].dh = DhParams{-kPi / 2, 0, 0, 0};
    m.joints[0].link.inertia(1, 1) = i1;  // the column's axis is y_1
    m.joints[1].dh = DhParams{0, l2, 0, -kPi / 2};
    m.joints[1].link = rodEndingAtOrigin(m2, l2);
    m.joints[2].dh = DhParams{0, l3, 0, 0};
    m.joints[2].link = rodEndingAtOrigin(m3, l3);
    return m;
  }
};

TEST(Oracle, HornThreeLinkChainClosedForm) {
  const HornChain horn;
  const RobotModel model = horn.model();
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int n = 0; n < 1000; ++n) {
    JointVec q = JointVec::Zero(), qd = JointVec::Zero(), qdd = JointVec::Zero();
    for (int i = 0; i < 3; ++i) q[i] = u(rng), qd[i] = u(rng), qdd[i] = u(rng);
    const Vec3 expected = horn.torque(q.head<3>(), qd.head<3>(), qdd.head<3>());
    const JointVec tau = inverseDynamics(model, q, qd, qdd);
    ASSERT_LT((tau.head<3>() - expected).cwiseAbs().maxCoeff(), 1e-12) << q.transpose();
    ASSERT_LT(tau.tail<3>().cwiseAbs().maxCoeff(), 1e-12);
    JointMat m;
    JointVec g;
    massMatrixAndGravity(model, q, m, g);
    ASSERT_LT((m.topLeftCorner<3, 3>() - horn.mass(q.head<3>())).cwiseAbs().maxCoeff(), 1e-12);
    ASSERT_LT((g.head<3>() - horn.gravity(q.head<3>())).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(Oracle, HornLinkTwoTorquesAsPrinted) {
  // Horn's torques for link 2 alone (m3 = 0, I1 = 0, no gravity):
  //   T12 = m2 l2^2 / 3 (s2^2 th1'' + 2 s2 c2 th1' th2'),  T22 = m2 l2^2 / 3 (th2'' - s2 c2 th1'^2).
  HornChain horn;
  horn.m3 = 0;
  horn.i1 = 0;
  horn.g = 0;
  const RobotModel model = horn.model();
  const JointVec q = (JointVec() << 0.3, 0.8, 0, 0, 0, 0).finished();
  const JointVec qd = (JointVec() << 1.1, -0.7, 0, 0, 0, 0).finished();
  const JointVec qdd = (JointVec() << 0.4, 0.9, 0, 0, 0, 0).finished();
  const double k = horn.m2 * horn.l2 * horn.l2 / 3, s2 = std::sin(q[1]), c2 = std::cos(q[1]);
  const JointVec tau = inverseDynamics(model, q, qd, qdd);
  EXPECT_NEAR(tau[0], k * (s2 * s2 * qdd[0] + 2 * s2 * c2 * qd[0] * qd[1]), 1e-13);
  EXPECT_NEAR(tau[1], k * (qdd[1] - s2 * c2 * qd[0] * qd[0]), 1e-13);
}

TEST(Oracle, OneJointArmOfTheLagrangeEulerSlides) {
  // Xiao's slides, "One joint arm with point mass m at the end of a link of length l", gravity
  // (0, -9.8, 0): L = m l^2 th'^2 / 2 - 9.8 m l sin(th), so tau = m l^2 th'' + 9.8 m l cos(th).
  // (The slide prints "- 9.8 m l cos(th)" in its last line; its own Lagrangian gives the plus sign,
  // and the physics agrees: holding the arm horizontal, th = 0, needs a positive torque.)
  const double m = 2.5, l = 0.8;
  RobotModel model = emptyModel(Vec3(0, -9.8, 0));
  model.joints[0].dh = DhParams{0, l, 0, 0};
  model.joints[0].link = LinkInertia{m, Vec3::Zero(), Mat3x3::Zero()};  // point mass at the end
  for (double th : {-1.0, 0.0, 0.5, 2.0}) {
    JointVec q = JointVec::Zero(), qdd = JointVec::Zero();
    q[0] = th;
    qdd[0] = 1.7;
    EXPECT_NEAR(inverseDynamics(model, q, JointVec::Zero(), qdd)[0], m * l * l * 1.7 + 9.8 * m * l * std::cos(th),
                1e-12);
  }
}

TEST(Oracle, TwoLinkPlanarArmByLagrange) {
  // Point masses m1, m2 at the ends of links l1, l2 turning about parallel vertical-plane axes,
  // gravity along -y (the two-link example worked by Lagrange–Euler in the sources):
  //   M = [m1 l1^2 + m2 (l1^2 + 2 l1 l2 c2 + l2^2),  m2 (l1 l2 c2 + l2^2);  .,  m2 l2^2]
  //   h = [-m2 l1 l2 s2 (2 th1' th2' + th2'^2),  m2 l1 l2 s2 th1'^2]
  //   G = [(m1 + m2) g l1 c1 + m2 g l2 c12,  m2 g l2 c12]
  const double m1 = 1.5, m2 = 0.9, l1 = 0.6, l2 = 0.45, g = 9.81;
  RobotModel model = emptyModel(Vec3(0, -g, 0));
  model.joints[0].dh = DhParams{0, l1, 0, 0};
  model.joints[0].link = LinkInertia{m1, Vec3::Zero(), Mat3x3::Zero()};
  model.joints[1].dh = DhParams{0, l2, 0, 0};
  model.joints[1].link = LinkInertia{m2, Vec3::Zero(), Mat3x3::Zero()};
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int n = 0; n < 1000; ++n) {
    const double q1 = u(rng), q2 = u(rng), qd1 = u(rng), qd2 = u(rng), qdd1 = u(rng), qdd2 = u(rng);
    const double c1 = std::cos(q1), c2 = std::cos(q2), s2 = std::sin(q2), c12 = std::cos(q1 + q2);
    const double m11 = m1 * l1 * l1 + m2 * (l1 * l1 + 2 * l1 * l2 * c2 + l2 * l2);
    const double m12 = m2 * (l1 * l2 * c2 + l2 * l2), m22 = m2 * l2 * l2;
    const double t1 = m11 * qdd1 + m12 * qdd2 - m2 * l1 * l2 * s2 * (2 * qd1 * qd2 + qd2 * qd2) +
                      (m1 + m2) * g * l1 * c1 + m2 * g * l2 * c12;
    const double t2 = m12 * qdd1 + m22 * qdd2 + m2 * l1 * l2 * s2 * qd1 * qd1 + m2 * g * l2 * c12;
    JointVec q = JointVec::Zero(), qd = JointVec::Zero(), qdd = JointVec::Zero();
    q.head<2>() << q1, q2;
    qd.head<2>() << qd1, qd2;
    qdd.head<2>() << qdd1, qdd2;
    const JointVec tau = inverseDynamics(model, q, qd, qdd);
    ASSERT_NEAR(tau[0], t1, 1e-11);
    ASSERT_NEAR(tau[1], t2, 1e-11);
    const JointMat m = massMatrix(model, q);
    ASSERT_NEAR(m(0, 0), m11, 1e-12);
    ASSERT_NEAR(m(0, 1), m12, 1e-12);
    ASSERT_NEAR(m(1, 1), m22, 1e-12);
  }
}

}  // namespace
}  // namespace rfms
