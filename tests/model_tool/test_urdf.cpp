// rfms-model urdf read back by the ROS world's own parsers: urdfdom for the joints' limits and
// kdl_parser for the chain, whose forward kinematics and inverse dynamics must be the model's.
#include <gtest/gtest.h>
#include <urdf_parser/urdf_parser.h>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl_parser/kdl_parser.hpp>

#include <filesystem>
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

}  // namespace
}  // namespace rfms
