// rfms-model urdf read back by the ROS world's own parsers: urdfdom for the joints' limits and
// kdl_parser for the chain, whose forward kinematics and inverse dynamics must be the model's.
#include <gtest/gtest.h>
#include <urdf_parser/urdf_parser.h>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl_parser/kdl_parser.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/files.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

struct Written {
  test::Outcome run;
  std::string text;
};

Written writeUrdf(const std::string& robot) {
  const fs::path dir = test::makeUniqueDir("rfms-urdf");
  const fs::path out = dir / "robot.urdf";
  Written w{test::runCommand(RFMS_MODEL_EXE, "urdf " + robot + " -o " + out.string()), ""};
  if (fs::exists(out)) w.text = test::readFile(out);
  fs::remove_all(dir);
  return w;
}

JointVec randomState(const RobotModel& m, std::mt19937& rng, double scale = 1.0) {
  JointVec q;
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = m.joints[static_cast<std::size_t>(i)];
    q[i] = scale == 0.0 ? std::uniform_real_distribution<double>(j.q_min, j.q_max)(rng)
                        : std::uniform_real_distribution<double>(-scale, scale)(rng);
  }
  return q;
}

KDL::JntArray kdl(const JointVec& v) {
  KDL::JntArray a(kJoints);
  for (int i = 0; i < kJoints; ++i) a(i) = v[i];
  return a;
}

KDL::Chain chainOf(const std::string& urdf) {
  KDL::Tree tree;
  EXPECT_TRUE(kdl_parser::treeFromString(urdf, tree));
  KDL::Chain chain;
  EXPECT_TRUE(tree.getChain("base_link", "t6", chain));
  EXPECT_EQ(chain.getNrOfJoints(), static_cast<unsigned>(kJoints));
  return chain;
}

// base_link -> t6 of the URDF is T6 at 100 random states within the limits.
void expectTheSameKinematics(const RobotModel& model, const KDL::Chain& chain) {
  KDL::ChainFkSolverPos_recursive fk(chain);
  std::mt19937 rng(7);
  for (int n = 0; n < 100; ++n) {
    const JointVec q = randomState(model, rng, 0.0);
    KDL::Frame f;
    ASSERT_GE(fk.JntToCart(kdl(q), f), 0);
    const Transform t = forwardKinematics(model, q);
    for (int r = 0; r < 3; ++r) {
      EXPECT_NEAR(f.p(r), t.translation()[r], 1e-9);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(f.M(r, c), t.linear()(r, c), 1e-9) << "state " << n;
    }
  }
}

TEST(Urdf, ThePuma560sChainMovesAndWeighsAsTheModel) {
  const std::string robot = std::string(RFMS_ROBOTS_DIR) + "/puma560.textproto";
  const RobotModel model = loadRobotModel(robot);
  const Written w = writeUrdf(robot);
  ASSERT_EQ(w.run.code, 0) << w.run.err;
  EXPECT_EQ(w.run.err, "");  // a physical parameter set: nothing left out
  const KDL::Chain chain = chainOf(w.text);
  expectTheSameKinematics(model, chain);
  // Inverse dynamics: URDF has no rotor inertia, so the chain's torques plus I_a qdd are ours.
  const Vec3 g = model.gravity;
  KDL::ChainIdSolver_RNE id(chain, KDL::Vector(g.x(), g.y(), g.z()));
  std::mt19937 rng(11);
  for (int n = 0; n < 100; ++n) {
    const JointVec q = randomState(model, rng, 0.0), qd = randomState(model, rng, 2.0),
                   qdd = randomState(model, rng, 5.0);
    KDL::JntArray tau(kJoints);
    const KDL::Wrenches none(chain.getNrOfSegments(), KDL::Wrench::Zero());
    ASSERT_GE(id.CartToJnt(kdl(q), kdl(qd), kdl(qdd), none, tau), 0);
    const JointVec ours = inverseDynamics(model, q, qd, qdd);
    for (int i = 0; i < kJoints; ++i) {
      const double rotor = model.joints[static_cast<std::size_t>(i)].rotor_inertia * qdd[i];
      EXPECT_NEAR(tau(i) + rotor, ours[i], 1e-9) << "state " << n << ", joint " << i + 1;
    }
  }
}

TEST(Urdf, TheJointsCarryTheModelsNamesAndLimits) {
  const std::string robot = std::string(RFMS_ROBOTS_DIR) + "/puma560.textproto";
  const RobotModel model = loadRobotModel(robot);
  const urdf::ModelInterfaceSharedPtr parsed = urdf::parseURDF(writeUrdf(robot).text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->getName(), model.name);
  for (const JointModel& j : model.joints) {
    const urdf::JointConstSharedPtr u = parsed->getJoint(j.name);
    ASSERT_TRUE(u) << j.name;
    EXPECT_EQ(u->type, urdf::Joint::REVOLUTE);
    EXPECT_EQ(u->limits->lower, j.q_min);  // written with 17 digits: the same doubles
    EXPECT_EQ(u->limits->upper, j.q_max);
    EXPECT_EQ(u->limits->velocity, j.qd_max);
    EXPECT_EQ(u->limits->effort, j.tau_max);
  }
  EXPECT_TRUE(parsed->getLink("t6"));
}

// The PUMA 260's identified parameters regroup a first moment onto a massless link: URDF cannot
// hold that, and the tool says so, naming the link; the kinematics are still exact.
TEST(Urdf, ThePuma260sRegroupedLinkIsNamedAndItsKinematicsAreExact) {
  const std::string robot = std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto";
  const Written w = writeUrdf(robot);
  ASSERT_EQ(w.run.code, 0) << w.run.err;
  EXPECT_NE(w.run.err.find("link 4"), std::string::npos) << w.run.err;
  EXPECT_NE(w.run.err.find("has no URDF form"), std::string::npos) << w.run.err;
  expectTheSameKinematics(loadRobotModel(robot), chainOf(w.text));
}

// rfms-model import: a URDF's chain as a model file, written where the test can load it.
struct Imported {
  test::Outcome run;
  std::string text;
};

Imported importUrdf(const std::string& urdf_text, const std::string& options = "") {
  const fs::path dir = test::makeUniqueDir("rfms-import");
  std::ofstream(dir / "arm.urdf") << urdf_text;
  const fs::path out = dir / "arm.textproto";
  Imported r{
      test::runCommand(RFMS_MODEL_EXE, "import " + (dir / "arm.urdf").string() + " " + options + " -o " + out.string()),
      ""};
  if (fs::exists(out)) r.text = test::readFile(out);
  fs::remove_all(dir);
  return r;
}

double poseGap(const Transform& a, const Transform& b) {
  return std::max((a.translation() - b.translation()).cwiseAbs().maxCoeff(),
                  (a.linear() - b.linear()).cwiseAbs().maxCoeff());
}

class UrdfRoundTrip : public ::testing::TestWithParam<const char*> {};

// model -> rfms-model urdf -> rfms-model import -> the same forward kinematics, and the same
// gravity torques where the URDF carries the masses (every shipped arm but the PUMA 260, whose
// regrouped first moments have no URDF form).
TEST_P(UrdfRoundTrip, TheImportedModelMovesAsTheModelItCameFrom) {
  const std::string robot = std::string(RFMS_ROBOTS_DIR) + "/" + GetParam() + ".textproto";
  const RobotModel model = loadRobotModel(robot);
  const Written urdf = writeUrdf(robot);
  ASSERT_EQ(urdf.run.code, 0) << urdf.run.err;
  const Imported back = importUrdf(urdf.text, "--tip t6");
  ASSERT_EQ(back.run.code, 0) << back.run.err;
  RobotModel imported = parseRobotModel(back.text, "imported");
  imported.gravity = model.gravity;  // a URDF has no gravity (Corke's PUMA 560 takes 9.81)
  std::mt19937 rng(58);
  double worst = 0.0;
  for (int n = 0; n < 1000; ++n) {
    const JointVec q = randomState(model, rng, 0.0);
    worst = std::max(worst, poseGap(forwardKinematics(imported, q), forwardKinematics(model, q)));
    if (std::string(GetParam()) != "puma260") {
      ASSERT_LT((gravityTorques(imported, q) - gravityTorques(model, q)).cwiseAbs().maxCoeff(), 1e-9) << q.transpose();
    }
  }
  EXPECT_LT(worst, 1e-12);
  for (int i = 0; i < kJoints; ++i) {
    EXPECT_NEAR(imported.joints[i].q_min, model.joints[i].q_min, 1e-12);
    EXPECT_NEAR(imported.joints[i].q_max, model.joints[i].q_max, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, UrdfRoundTrip,
                         ::testing::Values("puma260", "puma560", "kr6_r700_sixx", "irb2400", "lrmate200id", "gp7"));

// The makers' joint origins and axes (tests/data/urdf/) imported: the model's T6 is the URDF's
// tool0 for the same joint angles (joint 1 read negated where its axis points down).
TEST(UrdfImport, AnIndustrialArmsUrdfMovesAsKdlReadsIt) {
  for (const char* arm : {"kr6_r700_sixx", "irb2400", "lrmate200id", "gp7"}) {
    const std::string text = test::readFile(std::string(RFMS_SOURCE_DIR) + "/tests/data/urdf/" + arm + ".urdf");
    const Imported back = importUrdf(text);
    ASSERT_EQ(back.run.code, 0) << arm << back.run.err;
    const RobotModel model = parseRobotModel(back.text, arm);
    KDL::Tree tree;
    ASSERT_TRUE(kdl_parser::treeFromString(text, tree));
    KDL::Chain chain;
    ASSERT_TRUE(tree.getChain("base_link", "tool0", chain));
    KDL::ChainFkSolverPos_recursive fk(chain);
    const double sign1 = std::string(arm) == "kr6_r700_sixx" ? -1.0 : 1.0;  // A1 turns about -z
    std::mt19937 rng(59);
    for (int n = 0; n < 1000; ++n) {
      const JointVec q = randomState(model, rng, 0.0);
      JointVec theirs = q;
      theirs[0] *= sign1;
      KDL::Frame f;
      ASSERT_GE(fk.JntToCart(kdl(theirs), f), 0);
      Transform t = Transform::Identity();
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) t.linear()(r, c) = f.M(r, c);
        t.translation()[r] = f.p(r);
      }
      ASSERT_LT(poseGap(forwardKinematics(model, q), t), 1e-12) << arm << " q=" << q.transpose();
    }
  }
}

// What the controller cannot run is refused, naming what breaks it, and nothing is written.
TEST(UrdfImport, WhatTheControllerCannotRunIsRefusedNamingTheJoint) {
  const std::string kr6 = test::readFile(std::string(RFMS_SOURCE_DIR) + "/tests/data/urdf/kr6_r700_sixx.urdf");
  auto refusal = [&](const std::string& from, const std::string& to) {
    std::string text = kr6;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const Imported r = importUrdf(text);
    EXPECT_EQ(r.run.code, 2) << r.run.out;
    EXPECT_TRUE(r.text.empty());
    return r.run.err;
  };
  EXPECT_NE(refusal("<joint name=\"joint_a3\" type=\"revolute\">", "<joint name=\"joint_a3\" type=\"prismatic\">")
                .find("joint 'joint_a3' is prismatic"),
            std::string::npos);
  EXPECT_NE(refusal("<joint name=\"joint_a6\" type=\"revolute\">", "<joint name=\"joint_a6\" type=\"fixed\">")
                .find("5 moving joints from 'base_link' to 'tool0'"),
            std::string::npos);
  // The wrist's centre moved off axis 5: not a spherical wrist.
  EXPECT_NE(
      refusal("<origin xyz=\"0.365 0 0\" rpy=\"0 0 0\"/>", "<origin xyz=\"0.365 0.02 0\" rpy=\"0 0 0\"/>")
          .find("cannot run this arm: joint 5: d5 must be 0 for a spherical wrist (axes 4, 5 and 6 meeting at one "
                "point) (URDF joint 'joint_a5')"),
      std::string::npos);
  EXPECT_NE(refusal("<link name=\"tool0\"/>",
                    "<link name=\"tool0\"/>\n  <link name=\"finger\"/>\n  <joint name=\"finger_joint\" "
                    "type=\"revolute\"><parent link=\"link_6\"/><child link=\"finger\"/><axis xyz=\"0 0 1\"/><limit "
                    "lower=\"0\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>")
                .find("link 'link_6' branches: joint 'finger_joint'"),
            std::string::npos);
  EXPECT_NE(refusal("<origin xyz=\"0 0 0.4\" rpy=\"0 0 0\"/>", "<origin xyz=\"0.1 0 0.4\" rpy=\"0 0 0\"/>")
                .find("joint 1: its axis must be the base frame's z axis (a DH table has no base transform; move the "
                      "base link onto it) (URDF joint 'joint_a1')"),
            std::string::npos);
}

}  // namespace
}  // namespace rfms
