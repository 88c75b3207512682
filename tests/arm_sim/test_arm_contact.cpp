// The emulated arm touching its scene: a contact must never put energy into the arm, and a tool
// resting on the table must press on it with its weight.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "arm_sim/arm_core.hpp"
#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/text_proto.hpp"
#include "tests/support/arm_steps.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// Zero torque with the power on, renewed every period: the arm is free and moves under the
// tool's weight alone.
struct FreeArm {
  std::array<proto::TorqueCommand, kJoints> mail;
  std::array<const proto::TorqueCommand*, kJoints> pointers{};
  FreeArm() {
    for (std::size_t i = 0; i < mail.size(); ++i) {
      mail[i].set_power(true);
      pointers[i] = &mail[i];
    }
  }
  const std::array<const proto::TorqueCommand*, kJoints>& at(std::uint64_t k) {
    for (auto& m : mail) m.mutable_header()->set_period(k);
    return pointers;
  }
};

const JointVec kPose = (JointVec() << 0.1, -0.4, 0.3, 0.2, 1.3, 0.3).finished();

// The PUMA 260 with no mass but the tool's and no friction, so that everything the arm's energy
// does is owed to the contact: a 1 kg tool 60 mm out along the approach vector.
RobotModel massless() {
  RobotModel m = test::puma260();
  for (JointModel& j : m.joints) {
    j.link.mass = 0.0;
    j.link.first_moment = Vec3::Zero();
    j.coulomb = 0.0;
    j.viscous = 0.0;
  }
  return m;
}

// A plane `drop` below the tool's ball, with the given damping.
Scene sceneUnder(const RobotModel& model, double damping, double friction, double drop) {
  proto::Scene p;
  parseTextProto(
      "tool { mass_kg: 1 com_m { z: 0.06 } tip_m { z: 0.06 } tip_radius_m: 0.005 }\n"
      "sensor { force_torque { noise_n: 0 noise_nm: 0 bandwidth_hz: 10000 } }",
      p, "test");
  Scene s = sceneFromProto(p, "test");
  const Vec3 tip = (forwardKinematics(withTool(model, s.tool), kPose) * s.tool.frame).translation();
  SurfaceModel floor;
  floor.name = "floor";
  floor.pose.translation() = tip - Vec3(0, 0, s.tool.tip_radius + drop);
  floor.stiffness = 50000.0;
  floor.damping = damping;
  floor.friction = friction;
  s.surfaces.push_back(floor);
  return s;
}

struct Drop {
  std::vector<double> energy;  // J, every period
  std::vector<double> apexes;  // m: the ball's height above the floor at each apex between contacts
  int contacts = 0;            // contact onsets
  // The ball's vertical speed at the end, m/s, and whether it lies on the floor then. (Across
  // the floor it may still creep: nothing damps the massless arm turning about the ball but the
  // ball's own friction.)
  double final_sink = 0.0;
  bool resting = false;
};

Drop drop(double damping, double friction, double seconds) {
  const RobotModel base = massless();
  const Scene scene = sceneUnder(base, damping, friction, 0.01);
  const RobotModel model = withTool(base, scene.tool);
  ArmSimConfig c;
  c.q_initial = kPose;
  c.scene = scene;
  ArmCore arm(model, c);
  FreeArm free;
  Drop d;
  const double floor_z = scene.surfaces[0].pose.translation().z() + scene.tool.tip_radius;
  double prev_height = 1.0, prev_prev = 1.0;
  bool touching = false;
  for (int k = 0; k < static_cast<int>(seconds * 1000); ++k) {
    test::stepArm(arm, free.at(arm.period()));
    LinkFrames f;
    linkFrames(model, arm.q(), f);
    const Vec3 com = f[kJoints] * Vec3(0, 0, 0.06);
    const double kinetic = 0.5 * arm.qd().dot(massMatrix(model, arm.q()) * arm.qd());
    d.energy.push_back(kinetic - 1.0 * model.gravity.dot(com) + arm.contact().energy);
    const double height = arm.toolPose().translation().z() - floor_z;
    if (arm.contact().surface >= 0 && !touching) ++d.contacts;
    touching = arm.contact().surface >= 0;
    if (k >= 2 && prev_height > 0.0 && prev_height >= prev_prev && prev_height > height)
      d.apexes.push_back(prev_height);
    prev_prev = prev_height;
    prev_height = height;
    const Vec6 twist = jacobianBase(f) * arm.qd();
    const Vec3 lever = f[kJoints].linear() * scene.tool.frame.translation();
    d.final_sink = std::abs((twist.head<3>() + twist.tail<3>().cross(lever)).z());
    d.resting = touching;
  }
  return d;
}

TEST(ArmContact, AnElasticContactKeepsTheArmsEnergy) {
  const Drop d = drop(0.0, 0.0, 1.0);
  ASSERT_GE(d.contacts, 2) << "the tool should bounce on the floor";
  const auto [lo, hi] = std::minmax_element(d.energy.begin(), d.energy.end());
  // A 1 kg tool dropped 10 mm: 0.098 J change hands; RK4 keeps the sum to a thousandth of that.
  EXPECT_LT(*hi - *lo, 1e-4) << "energy from " << *lo << " to " << *hi << " J";
}

TEST(ArmContact, ADampedContactOnlyTakesEnergyAndTheBouncesDecay) {
  // The drop test: the tool falls 10 mm on the floor, with friction, and the arm's energy never
  // rises (beyond the integrator's 1e-6 J), each bounce is lower than the last, and it settles on it.
  const Drop d = drop(30.0, 0.3, 2.0);
  for (std::size_t k = 1; k < d.energy.size(); ++k)
    ASSERT_LE(d.energy[k], d.energy[k - 1] + 1e-6) << "energy rose in period " << k;
  ASSERT_GE(d.apexes.size(), 3u) << "expected several bounces";
  for (std::size_t i = 1; i < d.apexes.size(); ++i) EXPECT_LT(d.apexes[i], d.apexes[i - 1]) << "bounce " << i;
  EXPECT_LT(d.energy.back(), d.energy.front() - 0.05);
  EXPECT_TRUE(d.resting);
  EXPECT_LT(d.final_sink, 1e-4);
}

TEST(ArmContact, AToolRestingOnTheTablePressesWithTheWeightTheJointsDoNotHold) {
  // The PUMA 260 held against its own weight by the joints, the tool's weight left to the floor:
  // once still, the floor carries the tool's 1 kg, 9.81 N, and the force sensor between flange and
  // tool feels nothing of it. (Without joint friction, which would hold a still arm anywhere
  // within its Coulomb band and take a share of the weight.)
  RobotModel base = test::puma260();
  for (JointModel& j : base.joints) j.coulomb = 0.0;
  const Scene scene = sceneUnder(base, 300.0, 0.3, 0.002);
  const RobotModel model = withTool(base, scene.tool);
  ArmSimConfig c;
  c.q_initial = kPose;
  c.scene = scene;
  ArmCore arm(model, c);
  std::array<proto::TorqueCommand, kJoints> mail;
  std::array<const proto::TorqueCommand*, kJoints> pointers{};
  for (int k = 0; k < 3000; ++k) {
    // Gravity compensation without the tool, and light damping.
    const JointVec tau = gravityTorques(base, arm.q()) - 0.5 * arm.qd();
    for (std::size_t i = 0; i < mail.size(); ++i) {
      mail[i].set_power(true);
      mail[i].set_torque(tau[static_cast<int>(i)]);
      mail[i].mutable_header()->set_period(arm.period());
      pointers[i] = &mail[i];
    }
    test::stepArm(arm, pointers);
  }
  ASSERT_EQ(arm.contact().surface, 0);
  EXPECT_NEAR(arm.contact().force.z(), 9.81, 0.01);
  EXPECT_NEAR(Vec3(arm.contact().force.x(), arm.contact().force.y(), 0).norm(), 0.0, 0.01);
  EXPECT_LT(arm.qd().norm(), 1e-3);
  const Vec6& w = arm.forceSensor()->reading();
  EXPECT_LT(w.head<3>().norm(), 0.01) << w.transpose();
  EXPECT_LT(w.tail<3>().norm(), 0.001) << w.transpose();
}

}  // namespace
}  // namespace rfms
