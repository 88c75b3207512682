// The compliant wrist of the report's appendix A.1 in the emulated arm: the tool is a body of its
// own on six springs. It hangs by its weight and the reading says so; alone on its springs it
// neither gains nor loses energy; dropped onto a table with the arm held still, its bounces decay.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "arm_sim/arm_core.hpp"
#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/sensed_wrench.hpp"
#include "common/text_proto.hpp"
#include "tests/support/arm_steps.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

const JointVec kPose = (JointVec() << 0.1, -0.4, 0.3, 0.2, 1.3, 0.3).finished();
const std::array<const proto::TorqueCommand*, kJoints> kNoCommands{};  // the power off: the brakes hold

Scene wristScene(const std::string& wrist) {
  proto::Scene p;
  parseTextProto(
      "tool { mass_kg: 0.5 com_m { z: 0.03 } inertia_kgm2 { xx: 2e-4 yy: 2e-4 zz: 5e-5 } tip_m { z: 0.06 } "
      "tip_radius_m: 0.005 }\nsensor { compliant_wrist { " +
          wrist + " } }",
      p, "test");
  return sceneFromProto(p, "test");
}

ArmSimConfig heldAt(const Scene& scene) {
  ArmSimConfig c;
  c.q_initial = kPose;
  c.scene = scene;
  return c;
}

// The tool body's energy: its motion, its height, what the wrist's and the contact's springs hold.
double energy(const ArmCore& arm, const Scene& scene, const Vec3& gravity) {
  const ToolBody& b = arm.toolBody();
  const Mat3 r = b.r.toRotationMatrix();
  const double m = scene.tool.inertia.mass;
  return 0.5 * m * b.v.squaredNorm() + 0.5 * b.w.dot(r * scene.tool.inertia_at_com * r.transpose() * b.w) -
         m * gravity.dot(b.x) + arm.wristLoad().energy + arm.contact().energy;
}

TEST(CompliantWrist, TheToolHangsOnItsSpringsByItsWeightAndTheReadingSaysSo) {
  const RobotModel model = withTool(test::puma260(), wristScene("").tool);
  const Scene scene = wristScene("");
  ArmCore arm(model, heldAt(scene));
  for (int k = 0; k < 500; ++k) test::stepArm(arm, kNoCommands);
  const Transform t6 = forwardKinematics(model, arm.q());
  // The springs carry the weight: the body sits m g / K below its rest on the flange.
  const Vec3 sag = arm.toolBody().x - t6 * scene.tool.com;
  EXPECT_LT((sag - 0.5 * model.gravity / 4000.0).norm(), 1e-7) << sag.transpose();
  EXPECT_NEAR(arm.toolBody().v.norm(), 0.0, 1e-9);

  proto::ArmSensors s;
  arm.sense(s);
  // The arm sends the potentiometers' angles, in whole counts of their converters (1e-5 rad), and
  // not the deflection: the controller finds that through the linkage.
  ASSERT_EQ(s.wrist_angle_size(), 6);
  EXPECT_EQ(s.deflection_size(), 0);
  EXPECT_EQ(s.wrench_size(), 0);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(s.wrist_angle(i) / 1e-5, std::round(s.wrist_angle(i) / 1e-5), 1e-6);
  Vec6 d;
  ASSERT_TRUE(sensedWristDeflection(s, scene.wrist, scene.tool, d));
  EXPECT_LT((d - arm.wristLoad().deflection).head<3>().norm(), 5e-6) << (d - arm.wristLoad().deflection).transpose();
  // Read through the springs, less the tool's weight: no contact, to the reading's noise (2e-5 rad
  // a potentiometer, a few micrometres and some 10 mN through the linkage) and resolution.
  const Vec6 contact =
      contactFromReading(scene.tool, model.gravity, t6, wrenchFromDeflection(scene.wrist, scene.tool, d));
  EXPECT_LT(contact.head<3>().norm(), 0.05) << contact.transpose();
  EXPECT_LT(contact.tail<3>().norm(), 0.005) << contact.transpose();
  // Over 2000 periods still: the reading's noise along each axis, as the linkage passes it on.
  Vec3 sum = Vec3::Zero(), squares = Vec3::Zero();
  const int n = 2000;
  for (int k = 0; k < n; ++k) {
    test::stepArm(arm, kNoCommands);
    arm.sense(s);
    ASSERT_TRUE(sensedWristDeflection(s, scene.wrist, scene.tool, d));
    const Vec3 e = (d - arm.wristLoad().deflection).head<3>();
    sum += e;
    squares += e.cwiseProduct(e);
  }
  const Vec3 mean = sum / n, sd = (squares / n - mean.cwiseProduct(mean)).cwiseSqrt();
  EXPECT_LT(sd.maxCoeff(), 3e-6) << sd.transpose();
  EXPECT_LT(mean.cwiseAbs().maxCoeff(), 2e-7) << "unbiased";
  RecordProperty("noise_um", std::to_string(1e6 * sd.norm() / std::sqrt(3.0)));
}

// Without noise the potentiometers' angles, read back through the linkage, are the deflection the
// springs are drawn to, to the converters' counts: while a table pushed 3 mm into the tool's ball
// throws it about on its springs.
TEST(CompliantWrist, ThePotentiometersAnglesReadBackAsTheDeflection) {
  Scene scene = wristScene("noise_rad: 0 resolution_rad: 1e-7");
  const RobotModel model = withTool(test::puma260(), scene.tool);
  {
    const ArmCore probe(model, heldAt(scene));
    SurfaceModel table;
    table.name = "table";
    table.pose.translation() = probe.toolPose().translation() - Vec3(0.002, 0, scene.tool.tip_radius - 0.003);
    table.pose.linear() = Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix();  // a slope: it turns the tool too
    table.stiffness = 50000.0;
    table.damping = 20.0;
    scene.surfaces.push_back(table);
  }
  ArmCore arm(model, heldAt(scene));
  double worst_along = 0.0, worst_about = 0.0, largest = 0.0, largest_turn = 0.0;
  for (int k = 0; k < 300; ++k) {
    test::stepArm(arm, kNoCommands);
    proto::ArmSensors s;
    arm.sense(s);
    Vec6 d;
    ASSERT_TRUE(sensedWristDeflection(s, scene.wrist, scene.tool, d));
    const Vec6 truth = arm.wristLoad().deflection;
    worst_along = std::max(worst_along, (d - truth).head<3>().cwiseAbs().maxCoeff());
    worst_about = std::max(worst_about, (d - truth).tail<3>().cwiseAbs().maxCoeff());
    largest = std::max(largest, truth.head<3>().norm());
    largest_turn = std::max(largest_turn, truth.tail<3>().norm());
  }
  EXPECT_GT(largest, 2e-3) << "the table throws the tool millimetres on its springs";
  EXPECT_GT(largest_turn, 1e-3) << "and turns it";
  EXPECT_LT(worst_along, 2e-8);
  EXPECT_LT(worst_about, 2e-7);
}

// A table into the ball at the start, the arm braked: the contact throws the tool up on its
// springs. Without damping anywhere the energy stays what it was, to the integrator's error at
// each contact's onset; with it, it only falls, and the tool comes to rest on the table.
struct Bounce {
  std::vector<double> energy;
  int onsets = 0;
  double final_speed = 0.0;
};

Bounce bounce(double wrist_damping, double table_damping, double overlap, int periods) {
  const std::string damping = "damping_n_s_per_m: " + std::to_string(wrist_damping) +
                              " damping_nm_s_per_rad: " + std::to_string(wrist_damping / 2500.0) + " noise_rad: 0";
  Scene scene = wristScene(damping);
  const RobotModel model = withTool(test::puma260(), scene.tool);
  {
    const ArmCore probe(model, heldAt(scene));
    SurfaceModel table;
    table.name = "table";
    table.pose.translation() = probe.toolPose().translation() - Vec3(0, 0, scene.tool.tip_radius - overlap);
    table.stiffness = 50000.0;
    table.damping = table_damping;
    table.friction = 0.0;
    scene.surfaces.push_back(table);
  }
  ArmCore arm(model, heldAt(scene));
  Bounce b;
  bool touching = true;
  for (int k = 0; k < periods; ++k) {
    test::stepArm(arm, kNoCommands);
    b.energy.push_back(energy(arm, scene, model.gravity));
    const bool now = arm.contact().depth > 0.0;
    if (now && !touching) ++b.onsets;
    touching = now;
  }
  b.final_speed = arm.toolBody().v.norm();
  return b;
}

TEST(CompliantWrist, WithoutDampingTheToolKeepsItsEnergyOnItsSpringsAndTheTable) {
  // 1 mm into the table: the contact's spring holds 25 mJ, and the tool bounces on and off it.
  const Bounce b = bounce(0.0, 0.0, 0.001, 1000);
  EXPECT_GT(b.onsets, 3);
  const auto [lo, hi] = std::minmax_element(b.energy.begin(), b.energy.end());
  EXPECT_LT(*hi - b.energy.front(), 1e-5) << "gained, from " << b.energy.front() << " J";
  EXPECT_LT(b.energy.front() - *lo, 2e-4) << "lost, from " << b.energy.front() << " J";  // under 1 % of 25 mJ
}

TEST(CompliantWrist, DroppedOnTheTableWithTheArmHeldTheBouncesDecay) {
  const Bounce b = bounce(50.0, 300.0, 0.003, 2000);
  for (std::size_t k = 1; k < b.energy.size(); ++k) ASSERT_LE(b.energy[k], b.energy[k - 1] + 1e-9) << "period " << k;
  EXPECT_LT(b.energy.back(), b.energy.front() - 1e-3);
  EXPECT_LT(b.final_speed, 1e-4);
}

TEST(CompliantWrist, ATooLightToolIsRefusedByName) {
  proto::Scene p;
  parseTextProto("tool { mass_kg: 0.01 inertia_kgm2 { xx: 1e-4 yy: 1e-4 zz: 1e-4 } }\nsensor { compliant_wrist { } }",
                 p, "light");
  std::string why;
  try {
    sceneFromProto(p, "light.textproto");
  } catch (const ConfigError& e) {
    why = e.what();
  }
  EXPECT_EQ(why, "light.textproto: tool.mass_kg: a tool on a compliant wrist needs at least 0.05 kg");
}

// The wrist's fields are checked as every scene field is, and what the integrator cannot follow is
// refused by name rather than left to blow up (a 0.5 N m s/rad damper on a 2e-5 kg m^2 probe did).
TEST(CompliantWrist, SpringsAndDampersTheArmCannotIntegrateAreRefusedByName) {
  const auto refusal = [](const std::string& wrist) {
    proto::Scene p;
    parseTextProto("tool { mass_kg: 0.25 inertia_kgm2 { xx: 1e-4 yy: 1e-4 zz: 2e-5 } }\nsensor { compliant_wrist { " +
                       wrist + " } }",
                   p, "wrist");
    try {
      sceneFromProto(p, "w.textproto");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(""), "accepted");
  EXPECT_EQ(refusal("damping_nm_s_per_rad: 0.5"),
            "w.textproto: sensor.compliant_wrist.damping_nm_s_per_rad: at most 4000 times the tool's least principal "
            "inertia (kg m^2), got 0.5");
  EXPECT_NE(refusal("stiffness_nm_per_rad: 1000").find("stiffness_nm_per_rad: at most 1e7 times"), std::string::npos);
  EXPECT_NE(refusal("damping_n_s_per_m: 2000").find("damping_n_s_per_m: at most 4000 times"), std::string::npos);
  EXPECT_NE(refusal("resolution_rad: 0").find("resolution_rad: must be"), std::string::npos);
  // The potentiometers read angles: a file written when they read lengths is told so.
  EXPECT_EQ(refusal("resolution_m: 1e-6"),
            "w.textproto: sensor.compliant_wrist.resolution_m: retired: the wrist's potentiometers read the angles of "
            "its linkage; give resolution_rad and noise_rad, each potentiometer's");
  EXPECT_NE(refusal("travel_rad: nan").find("travel_rad: must be"), std::string::npos);
}

// The controller reads either sensor through one function: the force/torque sensor's wrench as it
// is, the wrist's deflection through its springs, K d at the centre of mass and K_r a.
TEST(CompliantWrist, ItsDeflectionReadsAsTheWrenchItsSpringsPutOnTheFlange) {
  const Scene scene = wristScene("");
  proto::ArmSensors s;
  for (const double d : {0.001, -0.002, 0.0025, 0.01, 0.0, -0.02}) s.add_deflection(d);
  Vec6 w;
  ASSERT_TRUE(sensedFlangeWrench(s, &scene.wrist, scene.tool, w));
  const Vec3 force(4.0, -8.0, 10.0);  // 4000 N/m times d
  EXPECT_TRUE(w.head<3>().isApprox(force, 1e-12)) << w.transpose();
  EXPECT_TRUE(w.tail<3>().isApprox(Vec3(1.0, 0.0, -2.0) + scene.tool.com.cross(force), 1e-12)) << w.transpose();
  const Vec6 springs = w;
  EXPECT_FALSE(sensedFlangeWrench(s, nullptr, scene.tool, w));  // a deflection without its wrist says nothing
  proto::ArmSensors ft;
  for (int i = 0; i < 6; ++i) ft.add_wrench(i + 1.0);
  ASSERT_TRUE(sensedFlangeWrench(ft, nullptr, scene.tool, w));
  EXPECT_EQ(w, (Vec6() << 1, 2, 3, 4, 5, 6).finished());
  EXPECT_FALSE(sensedFlangeWrench(proto::ArmSensors(), &scene.wrist, scene.tool, w));
  // An arm of today sends the angles, and they read through the linkage as the same wrench.
  Vec6 angles = Vec6::Zero();
  const Vec6 deflection = (Vec6() << 0.001, -0.002, 0.0025, 0.01, 0.0, -0.02).finished();
  const Vec3 a = deflection.tail<3>();
  Transform moved = Transform::Identity();
  moved.linear() = Eigen::AngleAxisd(std::asin(a.norm()), a.normalized()).toRotationMatrix();
  moved.translation() = scene.tool.com + deflection.head<3>() - moved.linear() * scene.tool.com;
  ASSERT_TRUE(anglesForDisplacement(scene.wrist.linkage, moved, angles, 20));
  proto::ArmSensors today;
  for (double x : angles) today.add_wrist_angle(x);
  Vec6 w2;
  ASSERT_TRUE(sensedFlangeWrench(today, &scene.wrist, scene.tool, w2));
  EXPECT_TRUE(w2.isApprox(springs, 1e-9)) << w2.transpose() << " against " << springs.transpose();
}

}  // namespace
}  // namespace rfms
