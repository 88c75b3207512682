// Today's industrial arms (deploy/robots/kr6_r700_sixx, irb2400, lrmate200id, gp7) against oracles
// written by others: Orocos KDL built by kdl_parser from a URDF of the makers' joint origins and
// axes (tests/data/urdf/) for forward kinematics and the Jacobian, and KDL's Levenberg–Marquardt
// search from many starts for how many inverse kinematics solutions a pose has. The closed form's
// own round trip (every branch back to its pose) runs on 10,000 random poses per arm.
#include <gtest/gtest.h>

#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainiksolverpos_lma.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <kdl_parser/kdl_parser.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/robot_model_loader.hpp"
#include "common/transform.hpp"
#include "oracle/kdl_chain.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

constexpr double kPi = std::numbers::pi;

struct Arm {
  const char* name;
  JointVec urdf_sign;  // the URDF's joint angle per model angle (the model files' headers say why)
};

const Arm kArms[] = {
    {"kr6_r700_sixx", (JointVec() << -1, 1, 1, 1, 1, -1).finished()},
    {"irb2400", JointVec::Ones()},
    {"lrmate200id", (JointVec() << 1, 1, 1, 1, 1, -1).finished()},
    {"gp7", (JointVec() << 1, 1, 1, 1, 1, -1).finished()},
};

RobotModel modelOf(const Arm& arm) {
  return loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/" + arm.name + ".textproto");
}

KDL::Chain urdfChain(const Arm& arm) {
  KDL::Tree tree;
  const std::string path = std::string(RFMS_SOURCE_DIR) + "/tests/data/urdf/" + arm.name + ".urdf";
  EXPECT_TRUE(kdl_parser::treeFromFile(path, tree)) << path;
  KDL::Chain chain;
  EXPECT_TRUE(tree.getChain("base_link", "tool0", chain));
  EXPECT_EQ(chain.getNrOfJoints(), static_cast<unsigned>(kJoints));
  return chain;
}

KDL::JntArray kdlJoints(const JointVec& q) {
  KDL::JntArray a(kJoints);
  for (int i = 0; i < kJoints; ++i) a(i) = q[i];
  return a;
}

Transform fromKdl(const KDL::Frame& f) {
  Transform t = Transform::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) t.linear()(r, c) = f.M(r, c);
    t.translation()[r] = f.p(r);
  }
  return t;
}

double poseError(const Transform& a, const Transform& b) {
  return std::max((a.translation() - b.translation()).cwiseAbs().maxCoeff(),
                  (a.linear() - b.linear()).cwiseAbs().maxCoeff());
}

class IndustrialArm : public ::testing::TestWithParam<Arm> {};

TEST_P(IndustrialArm, ForwardKinematicsAndJacobianAreKdlsFromTheMakersJointOriginsAndAxes) {
  const Arm& arm = GetParam();
  const RobotModel model = modelOf(arm);
  const KDL::Chain chain = urdfChain(arm);
  KDL::ChainFkSolverPos_recursive fk(chain);
  KDL::ChainJntToJacSolver jac(chain);
  std::mt19937_64 rng(55);
  double worst_fk = 0, worst_jac = 0;
  for (int n = 0; n < 1000; ++n) {
    const JointVec q = test::randomConfiguration(model, rng);
    const JointVec q_urdf = q.cwiseProduct(arm.urdf_sign);
    KDL::Frame f;
    ASSERT_GE(fk.JntToCart(kdlJoints(q_urdf), f), 0);
    worst_fk = std::max(worst_fk, poseError(forwardKinematics(model, q), fromKdl(f)));
    KDL::Jacobian j(kJoints);
    ASSERT_GE(jac.JntToJac(kdlJoints(q_urdf), j), 0);
    // d/dq of the model's angle is the URDF's column times the sign.
    const Mat6 theirs = j.data * arm.urdf_sign.asDiagonal();
    worst_jac = std::max(worst_jac, (jacobianBase(model, q) - theirs).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst_fk, 1e-12);
  EXPECT_LT(worst_jac, 1e-12);
  std::printf("%s: forward kinematics within %.1e m, Jacobian within %.1e of KDL over 1000 states\n", arm.name,
              worst_fk, worst_jac);
}

TEST_P(IndustrialArm, EveryBranchOfTenThousandPosesReturnsToItsPoseAndTheOwnBranchToItsAngles) {
  const RobotModel model = modelOf(GetParam());
  const OpwIk ik(model);
  std::mt19937_64 rng(56);
  std::array<int, kIkBranches> usable_per_branch{};
  double worst = 0;
  for (int n = 0; n < 10000; ++n) {
    JointVec q = test::randomConfiguration(model, rng);
    const Transform t6 = forwardKinematics(model, q);
    IkBranches all;
    ik.solveAll(t6, q, all);
    const IkSolution& own = all[branchIndex(ik.configOf(q))];
    if (own.status == IkStatus::kWristSingular) continue;  // theta4 + theta6 alone: held, not q's
    ASSERT_EQ(own.status, IkStatus::kOk) << q.transpose();
    ASSERT_LT((own.q - q).cwiseAbs().maxCoeff(), 1e-7) << q.transpose();
    for (int k = 0; k < kIkBranches; ++k) {
      const IkSolution& s = all[k];
      if (!usable(s.status)) continue;
      ++usable_per_branch[k];
      worst = std::max(worst, poseError(forwardKinematics(model, s.q), t6));
      ASSERT_LE(poseError(forwardKinematics(model, s.q), t6), 1e-10) << branchConfig(k).toString();
      ASSERT_EQ(ik.configOf(s.q), branchConfig(k)) << q.transpose();
      // The serial solution of that branch is the same angles, up to a turn: a joint with more than
      // a turn of range may find two equivalents equally near q, and rounding picks one.
      const IkSolution serial = ik.solveSerial(t6, branchConfig(k), q);
      double gap = 0;
      for (int i = 0; i < kJoints; ++i) gap = std::max(gap, std::abs(wrapToPi(serial.q[i] - s.q[i])));
      ASSERT_LT(gap, 1e-9) << branchConfig(k).toString() << "\n all    " << s.q.transpose() << "\n serial "
                           << serial.q.transpose() << "\n q      " << q.transpose();
    }
  }
  std::printf("%s: worst round trip %.1e m; usable per branch:", GetParam().name, worst);
  for (int k = 0; k < kIkBranches; ++k) std::printf(" %d", usable_per_branch[k]);
  std::printf("\n");
  // Each wrist branch of at least two arm branches comes up often. (Not all four: the IRB 2400's
  // joint 3 spans -60..65 deg, so its elbow has one side for each side of the waist.)
  int often = 0;
  for (int k = 0; k < kIkBranches; ++k) often += usable_per_branch[k] > 100 ? 1 : 0;
  EXPECT_GE(often, 4);
}

TEST_P(IndustrialArm, TheClosedFormFindsAsManySolutionsAsANumericalSearchFromManyStarts) {
  // Limits wide open, so that both count the pose's solutions, not the joints' ranges.
  RobotModel model = modelOf(GetParam());
  const RobotModel limited = model;
  for (JointModel& j : model.joints) j.q_min = -4 * kPi, j.q_max = 4 * kPi;
  const OpwIk ik(model);
  const KDL::Chain chain = oracle::kdlChain(model);  // the solver keeps a reference to it
  KDL::ChainIkSolverPos_LMA lma(chain, 1e-12, 2000);
  std::mt19937_64 rng(57);
  for (int n = 0; n < 12; ++n) {
    const JointVec q = test::randomConfiguration(limited, rng);
    const Transform t6 = forwardKinematics(model, q);
    IkBranches all;
    const int closed = ik.solveAll(t6, q, all);
    KDL::Frame goal;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) goal.M(r, c) = t6.linear()(r, c);
      goal.p(r) = t6.translation()[r];
    }
    // Every solution the search reaches (to its own precision, ~1e-8) must be one of the closed
    // form's branches, and every branch must be reached by some start.
    std::array<bool, kIkBranches> reached{};
    int strays = 0;
    for (int start = 0; start < 200; ++start) {
      JointVec guess;
      for (int i = 0; i < kJoints; ++i) guess[i] = std::uniform_real_distribution<double>(-kPi, kPi)(rng);
      KDL::JntArray out(kJoints);
      lma.CartToJnt(kdlJoints(guess), goal, out);  // judged below by the pose it reaches
      JointVec s;
      for (int i = 0; i < kJoints; ++i) s[i] = out(i);
      if (poseError(forwardKinematics(model, s), t6) > 1e-6) continue;  // a start that did not converge
      bool matched = false;
      for (int k = 0; k < kIkBranches; ++k) {
        if (!usable(all[k].status)) continue;
        double gap = 0;
        for (int i = 0; i < kJoints; ++i) gap = std::max(gap, std::abs(wrapToPi(all[k].q[i] - s[i])));
        if (gap < 1e-4) reached[k] = matched = true;
      }
      strays += matched ? 0 : 1;
    }
    EXPECT_EQ(strays, 0) << GetParam().name << " q=" << q.transpose();
    int found = 0;
    for (bool r : reached) found += r ? 1 : 0;
    EXPECT_EQ(found, closed) << GetParam().name << " q=" << q.transpose();
  }
}

INSTANTIATE_TEST_SUITE_P(Arms, IndustrialArm, ::testing::ValuesIn(kArms),
                         [](const ::testing::TestParamInfo<Arm>& p) { return std::string(p.param.name); });

// Facts from outside: three of the 30 flange poses M. Johnson published for the FANUC LR Mate
// 200iD (github.com/mattj23/lrmate-200id, test_cases/r30ib_forward_kinematics.json at 78304a9):
// joint values as entered on the R-30iB controller (deg; J3 read against the horizontal) and the
// flange's pose in the controller's world frame (mm; at J2's height, 330 mm above our base),
// generated from a DH model checked against RoboDK and a real arm. Our angle is the controller's
// with J3 + J2 for the third (the J2/J3 interaction) and -J6 for the sixth (docs/arms.md).
TEST(PublishedPoses, TheLrMate200iDsControllerFlangePosesAreOurs) {
  struct Case {
    std::array<double, 6> joints_deg;
    std::array<double, 12> x_y_z_p;  // the flange's x, y and z axes, then its origin (mm)
  };
  const Case cases[] = {
      {{17.795304119777708, 9.63529729650715, 40.3284447668726, 41.9839869496418, 50.29966354151829,
        53.881649348808025},
       {-0.42918435783060316, 0.7574045048077612, -0.4920764199699502, -0.9020426820537509, -0.3872015344263884,
        0.19077204064308287, -0.04604114189296839, 0.5257503094005371, 0.8493920328201997, 318.11589386239353,
        145.34934793767331, 636.7796296820055}},
      {{20.63796843683733, 43.1397243310845, 55.05694273319494, 29.665779715975674, 13.775742025969212,
        2.2083197495325146},
       {-0.9409292785054759, 0.1946798810024597, 0.2770412185650949, -0.10975124008827693, -0.9493666891328625,
        0.29437655284344916, 0.32032289669995495, 0.24658190018282927, 0.914653272203175, 436.2966556321629,
        174.39823366682805, 608.6228601543556}},
      {{41.91594587983654, 59.778440136944376, 11.905550466812873, 19.526726322980927, 19.742308831048405,
        5.871320638379727},
       {-0.6483462864176445, -0.03193035175811393, 0.7606757164028921, 0.5146844750701732, -0.7546171757358583,
        0.40700467958756553, 0.5610231581763718, 0.6553879543606517, 0.5056872998887456, 532.8210829205959,
        490.4790517736791, 309.9161489920663}},
  };
  const RobotModel model = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/lrmate200id.textproto");
  const OpwIk ik(model);
  for (const Case& c : cases) {
    JointVec j;
    for (int i = 0; i < kJoints; ++i) j[i] = c.joints_deg[static_cast<std::size_t>(i)] * kPi / 180.0;
    const JointVec q = (JointVec() << j[0], j[1], j[2] + j[1], j[3], j[4], -j[5]).finished();
    Transform theirs = Transform::Identity();
    for (int col = 0; col < 3; ++col)
      for (int row = 0; row < 3; ++row) theirs.linear()(row, col) = c.x_y_z_p[static_cast<std::size_t>(3 * col + row)];
    theirs.translation() = Vec3(c.x_y_z_p[9], c.x_y_z_p[10], c.x_y_z_p[11] + 330.0) / 1000.0;
    EXPECT_LT(poseError(forwardKinematics(model, q), theirs), 1e-12) << q.transpose();
    // And the closed form finds the controller's angles among the pose's branches.
    IkBranches all;
    ik.solveAll(theirs, q, all);
    EXPECT_LT((all[branchIndex(ik.configOf(q))].q - q).cwiseAbs().maxCoeff(), 1e-9) << q.transpose();
  }
}

TEST(OpwIk, ThePumasArePumasStill) {
  // The PUMA form needs no turned axis: the same solver, the same numbers as before it took the
  // other arms (the PUMA tests in test_ik_puma.cpp hold it to its pre-OPW results' definitions).
  for (const RobotModel* m : {&test::puma260(), &test::puma560()}) {
    const OpwIk ik(*m);
    const JointVec q = (JointVec() << 0.3, -0.4, 0.5, 0.6, 0.7, 0.8).finished();
    IkBranches all;
    ik.solveAll(forwardKinematics(*m, q), q, all);
    EXPECT_LT((all[branchIndex(ik.configOf(q))].q - q).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(OpwIk, AnArmOutsideTheFamilyIsRefusedNamingTheJoint) {
  auto refusal = [](const RobotModel& m) {
    try {
      OpwIk ik(m);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const RobotModel model = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/kr6_r700_sixx.textproto");
  RobotModel offset_wrist = model;
  offset_wrist.joints[4].dh.a = 0.01;
  EXPECT_NE(refusal(offset_wrist).find("joint 5: a5 must be 0"), std::string::npos) << refusal(offset_wrist);
  RobotModel twisted = model;
  twisted.joints[1].dh.setAlpha(kPi / 4);
  EXPECT_NE(refusal(twisted).find("joint 2: alpha = 45"), std::string::npos) << refusal(twisted);
}

}  // namespace
}  // namespace rfms
