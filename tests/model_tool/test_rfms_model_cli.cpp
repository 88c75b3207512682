#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "common/crba.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/run_command.hpp"

namespace rfms {
namespace {

using test::Outcome;

Outcome rfmsModel(const std::string& args) { return test::runCommand(RFMS_MODEL_EXE, args); }

std::vector<double> numbers(const std::string& s) {
  static const std::regex number(R"(-?\d+(\.\d+)?([eE][-+]?\d+)?)");
  std::vector<double> v;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator(); ++it)
    v.push_back(std::stod(it->str()));
  return v;
}

const RobotModel& puma260() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  return m;
}

const JointVec kQ = (JointVec() << 0.1, -0.4, 0.3, 0.5, -0.6, 0.7).finished();
const char* kQText = "0.1,-0.4,0.3,0.5,-0.6,0.7";

TEST(RfmsModelCli, FkPrintsTheTransformRowByRow) {
  const Outcome r = rfmsModel(std::string("fk --json --q ") + kQText);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(std::regex_match(r.out, std::regex(R"(\{"T":\[(\[[^\[\]]+\],){3}\[[^\[\]]+\]\]\}\n)"))) << r.out;
  const auto v = numbers(r.out);
  ASSERT_EQ(v.size(), 16u);
  const Eigen::Matrix4d t = forwardKinematics(puma260(), kQ).matrix();
  for (int i = 0; i < 16; ++i) EXPECT_DOUBLE_EQ(v[static_cast<std::size_t>(i)], t(i / 4, i % 4));
}

TEST(RfmsModelCli, JacobianHasSixRowsOfSix) {
  const Outcome r = rfmsModel(std::string("jacobian --json --q ") + kQText);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("{\"J\":[[", 0), 0u) << r.out;
  const auto v = numbers(r.out);
  ASSERT_EQ(v.size(), 36u);
  const Mat6 j = jacobianBase(puma260(), kQ);
  for (int i = 0; i < 36; ++i) EXPECT_DOUBLE_EQ(v[static_cast<std::size_t>(i)], j(i / 6, i % 6));
}

TEST(RfmsModelCli, IkRoundTripsThroughFk) {
  const Eigen::Matrix4d t = forwardKinematics(puma260(), kQ).matrix();
  std::string flat;
  for (int i = 0; i < 16; ++i) {
    char b[40];
    std::snprintf(b, sizeof b, "%s%.17g", i ? "," : "", t(i / 4, i % 4));
    flat += b;
  }
  const std::string config = OpwIk(puma260()).configOf(kQ).toString();
  const Outcome r = rfmsModel("ik --json --config " + config + " --T " + flat);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("{\"q\":[", 0), 0u) << r.out;
  const auto v = numbers(r.out);
  ASSERT_EQ(v.size(), 6u);
  JointVec q;
  for (int i = 0; i < 6; ++i) q[i] = v[static_cast<std::size_t>(i)];
  EXPECT_LT((forwardKinematics(puma260(), q).matrix() - t).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((q - kQ).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(RfmsModelCli, DynamicsPrintsEveryTerm) {
  const Outcome r =
      rfmsModel(std::string("dynamics --json --q ") + kQText + " --qd 1,2,3,-1,-2,-3 --qdd 0.5,0,0,0,0,1");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(std::regex_match(
      r.out,
      std::regex(
          R"(\{"tau":\[[^\]]+\],"M":\[(\[[^\]]+\],?){6}\],"g":\[[^\]]+\],"c":\[[^\]]+\],"friction":\[[^\]]+\]\}\n)")))
      << r.out;
  const auto v = numbers(r.out);
  ASSERT_EQ(v.size(), 6u + 36u + 6u + 6u + 6u);
  const JointVec qd = (JointVec() << 1, 2, 3, -1, -2, -3).finished();
  const JointVec qdd = (JointVec() << 0.5, 0, 0, 0, 0, 1).finished();
  const JointVec tau = inverseDynamics(puma260(), kQ, qd, qdd);
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(v[static_cast<std::size_t>(i)], tau[i]);
  EXPECT_DOUBLE_EQ(v[6], massMatrix(puma260(), kQ)(0, 0));
}

TEST(RfmsModelCli, BadInputExitsTwoWithAReason) {
  Outcome r = rfmsModel("fk --q 1,2,3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("expected 6"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  r = rfmsModel("ik --T 1,0,0,5,0,1,0,0,0,0,1,0,0,0,0,1 --config righty,up,noflip");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("out of reach"), std::string::npos) << r.err;

  r = rfmsModel("ik --T 2,0,0,0.2,0,1,0,0,0,0,1,0.2,0,0,0,1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a homogeneous transform"), std::string::npos) << r.err;

  r = rfmsModel("ik --config sideways --T 1,0,0,0.2,0,1,0,-0.12624,0,0,1,0.2032,0,0,0,1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--config"), std::string::npos) << r.err;

  r = rfmsModel("fk --q 0,0,0,0,0,0 --robot /nonexistent.textproto");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent.textproto"), std::string::npos) << r.err;

  r = rfmsModel("frobnicate");
  EXPECT_EQ(r.code, 2);
}

TEST(RfmsModelCli, HelpAndDemo) {
  Outcome r = rfmsModel("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("dynamics"), std::string::npos);
  r = rfmsModel("demo");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("matches home"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rfms
