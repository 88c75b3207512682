// The contact model against what a spring, a damper and Coulomb's law give by hand, the scene
// loader's checks, and the tool's mass in the model against the Jacobian at its centre of mass.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "arm_sim/contact.hpp"
#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/scene.hpp"
#include "common/text_proto.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

Scene parse(const std::string& text) {
  proto::Scene p;
  parseTextProto(text, p, "test.scene");
  return sceneFromProto(p, "test.scene");
}

// A floor at z = 0 (k = 10000 N/m, c = 100 N s/m, mu = 0.5) and a ball of 5 mm.
const char* kFloor = R"(
  tool { tip_radius_m: 0.005 }
  surface { name: "floor" plane { normal { z: 1 } } stiffness_n_per_m: 10000 damping_n_s_per_m: 100 friction: 0.5 }
  slip_velocity_m_s: 0.001
)";

TEST(Contact, ABallAboveTheFloorFeelsNothing) {
  const Scene s = parse(kFloor);
  const ContactWrench w = contactWrench(s, {0.1, 0.2, 0.0051}, {0, 0, -1}, Vec3::Zero(), 0.0);
  EXPECT_EQ(w.force, Vec3::Zero());
  EXPECT_EQ(w.surface, -1);
  EXPECT_EQ(w.depth, 0.0);
}

TEST(Contact, TheNormalForceIsTheSpringPlusTheDamperAndNeverPulls) {
  const Scene s = parse(kFloor);
  // 1 mm deep, at rest: k d = 10 N up.
  ContactWrench w = contactWrench(s, {0, 0, 0.004}, Vec3::Zero(), Vec3::Zero(), 0.0);
  EXPECT_NEAR(w.force.z(), 10.0, 1e-9);
  EXPECT_NEAR(w.depth, 0.001, 1e-12);
  EXPECT_EQ(w.surface, 0);
  EXPECT_NEAR(w.energy, 0.5 * 10000 * 1e-6, 1e-12);
  // Pressing in at 50 mm/s adds c v = 5 N.
  w = contactWrench(s, {0, 0, 0.004}, {0, 0, -0.05}, Vec3::Zero(), 0.0);
  EXPECT_NEAR(w.force.z(), 15.0, 1e-9);
  // Leaving at 200 mm/s: k d - c v = -10 N would pull; the floor lets go instead.
  w = contactWrench(s, {0, 0, 0.004}, {0, 0, 0.2}, Vec3::Zero(), 0.0);
  EXPECT_EQ(w.force.z(), 0.0);
}

TEST(Contact, FrictionOpposesSlidingAndIsBoundedByMuN) {
  const Scene s = parse(kFloor);
  // 1 mm deep (N = 10 N) sliding along +x at 0.1 m/s, a hundred slip velocities: |F_t| -> mu N.
  ContactWrench w = contactWrench(s, {0, 0, 0.004}, {0.1, 0, 0}, Vec3::Zero(), 0.0);
  EXPECT_NEAR(w.force.x(), -0.5 * 10.0, 1e-6);
  EXPECT_NEAR(w.force.y(), 0.0, 1e-12);
  // Friction acts at the contact point, 5 mm below the centre: a moment about y of r F_t.
  EXPECT_NEAR(w.moment.y(), 0.005 * 0.5 * 10.0, 1e-9);
  // Slow sliding: smooth, and below mu N, pointing against the motion whatever its direction.
  for (double angle = 0.0; angle < 6.3; angle += 0.7) {
    for (double speed : {1e-7, 1e-4, 1e-3, 0.01}) {
      const Vec3 v(speed * std::cos(angle), speed * std::sin(angle), 0.0);
      w = contactWrench(s, {0, 0, 0.004}, v, Vec3::Zero(), 0.0);
      const Vec3 ft(w.force.x(), w.force.y(), 0.0);
      EXPECT_LE(ft.norm(), 0.5 * 10.0 + 1e-9);
      EXPECT_LE(ft.dot(v), 0.0);
    }
  }
  // The contact point's own sliding counts: a ball spinning about +y at 20 rad/s with its centre
  // still slides its bottom point at -0.1 m/s along x, and friction pushes it along +x.
  w = contactWrench(s, {0, 0, 0.004}, Vec3::Zero(), {0, 20, 0}, 0.0);
  EXPECT_NEAR(w.force.x(), 5.0, 1e-6);
}

TEST(Contact, AMovingSurfaceCarriesItsGeometryAndDragsWhatRestsOnIt) {
  const Scene s = parse(R"(
    tool { tip_radius_m: 0 }
    surface { plane { normal { z: 1 } } stiffness_n_per_m: 10000 damping_n_s_per_m: 0 friction: 0.5
              velocity_m_s { x: 0.1 z: 0.01 } }
  )");
  // At t = 2 s the plane has risen 20 mm: a point 19 mm up is 1 mm deep.
  ContactWrench w = contactWrench(s, {0, 0, 0.019}, {0.1, 0, 0.01}, Vec3::Zero(), 2.0);
  EXPECT_NEAR(w.force.z(), 10.0, 1e-9);
  EXPECT_NEAR(w.force.x(), 0.0, 1e-12);  // moving with the conveyor: nothing slides
  // Held still on it, the point is dragged along +x at mu N.
  w = contactWrench(s, {0, 0, 0.019}, {0, 0, 0.01}, Vec3::Zero(), 2.0);
  EXPECT_NEAR(w.force.x(), 5.0, 1e-6);
}

TEST(Contact, ABoxPushesOutThroughTheNearestFaceEdgeOrCorner) {
  const Scene s = parse(R"(
    tool { tip_radius_m: 0.01 }
    surface { box { centre_m { x: 1 } size_m { x: 0.2 y: 0.4 z: 0.1 } } stiffness_n_per_m: 1000 damping_n_s_per_m: 0 friction: 0 }
  )");
  auto push = [&](const Vec3& c) { return contactWrench(s, c, Vec3::Zero(), Vec3::Zero(), 0.0); };
  // Above the top face (z = 0.05), 2 mm deep.
  EXPECT_TRUE(push({1.05, 0.1, 0.058}).force.isApprox(Vec3(0, 0, 2.0), 1e-9));
  // Beside the +y face (y = 0.2).
  EXPECT_TRUE(push({0.95, 0.208, 0.0}).force.isApprox(Vec3(0, 2.0, 0), 1e-9));
  // Off the edge x = 1.1, z = 0.05, along the diagonal.
  const Vec3 edge = push(Vec3(1.1, 0.0, 0.05) + 0.008 * Vec3(1, 0, 1).normalized()).force;
  EXPECT_TRUE(edge.isApprox(2.0 * Vec3(1, 0, 1).normalized(), 1e-9)) << edge.transpose();
  // Centre inside, 10 mm below the top face: out through the top, depth r + 10 mm.
  EXPECT_TRUE(push({1.0, 0.0, 0.04}).force.isApprox(Vec3(0, 0, 20.0), 1e-9));
  // Clear of it.
  EXPECT_EQ(push({1.0, 0.0, 0.07}).force, Vec3::Zero());
}

TEST(Contact, ATurnedBoxTurnsItsNormals) {
  const Scene s = parse(R"(
    tool { tip_radius_m: 0 }
    surface { box { size_m { x: 1 y: 1 z: 1 } rpy { roll_deg: 90 } } stiffness_n_per_m: 1000 damping_n_s_per_m: 0 friction: 0 }
  )");
  // Roll 90 deg, Rot(z, 90): the box's x face now faces +y. A point just inside it.
  const ContactWrench w = contactWrench(s, {0.0, 0.499, 0.0}, Vec3::Zero(), Vec3::Zero(), 0.0);
  EXPECT_TRUE(w.force.isApprox(Vec3(0, 1.0, 0), 1e-9)) << w.force.transpose();
}

TEST(Scene, TheDefaultSceneLoadsWithATableBelowTheHomePosition) {
  const Scene s = loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto");
  ASSERT_EQ(s.surfaces.size(), 1u);
  EXPECT_EQ(s.surfaces[0].name, "table");
  EXPECT_GT(s.tool.inertia.mass, 0.0);
  // Straight below the manual's home position trans(203.2, -126.23, 203.2) mm, the table's top.
  const Penetration p = penetration(s.surfaces[0], {0.2032, -0.12623, -0.1999}, 0.0, 0.0);
  EXPECT_TRUE(p.normal.isApprox(Vec3::UnitZ()));
  EXPECT_NEAR(p.depth, -0.0001, 1e-9);
}

TEST(Scene, BadFieldsAreRefusedByName) {
  auto refusal = [](const std::string& text) {
    try {
      parse(text);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("surface { plane { point_m { z: 0 } } }").find("surface[0].plane.normal"), std::string::npos);
  EXPECT_NE(refusal("surface { name: \"x\" }").find("has no shape"), std::string::npos);
  EXPECT_NE(refusal("surface { plane { normal { z: 1 } } stiffness_n_per_m: -5 }").find("stiffness_n_per_m"),
            std::string::npos);
  EXPECT_NE(refusal("surface { box { size_m { x: 1 y: 0 z: 1 } } }").find("box.size_m"), std::string::npos);
  EXPECT_NE(refusal("tool { mass_kg: 1e30 }").find("tool.mass_kg"), std::string::npos);
  EXPECT_NE(refusal("tool { inertia_kgm2 { xx: -1 } }").find("positive semi-definite"), std::string::npos);
  EXPECT_NE(refusal("tool { tip_m { z: nan } }").find("tool.tip_m"), std::string::npos);
  EXPECT_NE(refusal("surface { plane { normal { z: 1 } } friction: inf }").find("friction"), std::string::npos);
  EXPECT_NE(refusal("bogus: 1").find("test.scene:1"), std::string::npos);
}

TEST(Scene, TheToolsWeightIsCarriedByTheJointsAsJTransposeOfItsWeight) {
  const RobotModel& bare = test::puma260();
  const Scene s = parse("tool { mass_kg: 1.5 com_m { x: 0.01 y: -0.02 z: 0.05 } }");
  const RobotModel tooled = withTool(bare, s.tool);
  const JointVec q = (JointVec() << 0.3, -0.7, 0.5, 0.4, -0.9, 1.1).finished();
  // The tool's weight acting at its centre of mass, through the Jacobian of that point.
  LinkFrames f;
  linkFrames(bare, q, f);
  Mat6 j = jacobianBase(f);
  const Vec3 lever = f[kJoints].linear() * Vec3(0.01, -0.02, 0.05);
  for (int i = 0; i < kJoints; ++i) j.block<3, 1>(0, i) += j.block<3, 1>(3, i).cross(lever);
  const JointVec expected = -j.topRows<3>().transpose() * (1.5 * bare.gravity);
  const JointVec extra = gravityTorques(tooled, q) - gravityTorques(bare, q);
  EXPECT_TRUE(extra.isApprox(expected, 1e-9)) << extra.transpose() << "\n" << expected.transpose();
}

}  // namespace
}  // namespace rfms
