#include <gtest/gtest.h>

#include <fstream>
#include <numbers>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

std::string shippedText(const char* name) {
  std::ifstream in(std::string(RFMS_ROBOTS_DIR) + "/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The loader's message for `text`, which must be refused.
std::string refusal(const std::string& text) {
  try {
    parseRobotModel(text, "broken.textproto");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the model was accepted";
  return "";
}

std::string replaceOnce(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// Mistyped exponents the loader used to take as a model (issue 15): each is refused naming its
// field and line, and a mass of 1e30 kg is no longer blamed on the mass matrix.
TEST(RobotModelLoader, ValuesBeyondAnyArmAreRefusedNamingTheField) {
  const std::string text = shippedText("puma260.textproto");
  std::string why = refusal(replaceOnce(text, "counts_per_joint_rev: 100000", "counts_per_joint_rev: 1e300"));
  EXPECT_NE(why.find("counts_per_joint_rev"), std::string::npos) << why;
  why = refusal(replaceOnce(text, "max_torque_nm: 30", "max_torque_nm: 1e-300"));
  EXPECT_NE(why.find("max_torque_nm"), std::string::npos) << why;
  why = refusal(replaceOnce(text, "mass_kg: 0 }", "mass_kg: 1e30 }"));
  EXPECT_NE(why.find("mass_kg"), std::string::npos) << why;
  EXPECT_EQ(why.find("positive definite"), std::string::npos) << why;
}

TEST(RobotModelLoader, LoadsThePuma260OfTheReport) {
  const RobotModel& m = test::puma260();
  EXPECT_EQ(m.name, "puma260");
  EXPECT_DOUBLE_EQ(m.joints[1].dh.a, 0.2032);
  EXPECT_DOUBLE_EQ(m.joints[2].dh.d, 0.12624);
  EXPECT_DOUBLE_EQ(m.joints[3].dh.d, 0.2032);
  EXPECT_DOUBLE_EQ(m.joints[2].dh.alpha(), -std::numbers::pi / 2);
  EXPECT_DOUBLE_EQ(m.joints[5].link.mass, 2.768114);               // m6
  EXPECT_DOUBLE_EQ(m.joints[3].link.first_moment.y(), -0.382190);  // y4, without a mass
  EXPECT_DOUBLE_EQ(m.joints[3].link.mass, 0.0);
  EXPECT_DOUBLE_EQ(m.joints[3].link.inertia(0, 0), 0.079781);  // ad4
  EXPECT_DOUBLE_EQ(m.joints[0].rotor_inertia, 0.091631);       // ia1
  EXPECT_DOUBLE_EQ(m.joints[1].coulomb, 1.38928);              // fs2
  EXPECT_DOUBLE_EQ(m.joints[5].viscous, 0.030363);             // ds6
  EXPECT_DOUBLE_EQ(m.gravity.z(), -9.81);
}

TEST(RobotModelLoader, AboutComIsMovedToTheFrameOrigin) {
  // PUMA 560 link 2: m = 17.4 kg, c = (-0.3638, 0.006, 0.2275) m, Ixx about the centre 0.13.
  const LinkInertia& l = test::puma560().joints[1].link;
  EXPECT_NEAR(l.first_moment.x(), 17.4 * -0.3638, 1e-12);
  EXPECT_NEAR(l.inertia(0, 0), 0.13 + 17.4 * (0.006 * 0.006 + 0.2275 * 0.2275), 1e-12);
  EXPECT_NEAR(l.inertia(0, 1), -17.4 * -0.3638 * 0.006, 1e-12);
}

TEST(RobotModelLoader, SyntaxErrorsNameTheLine) {
  const std::string text = replaceOnce(shippedText("puma260.textproto"), "gear_ratio: 80", "gear_ration: 80");
  const std::string why = refusal(text);
  EXPECT_TRUE(std::regex_search(why, std::regex(R"(^broken\.textproto:\d+:\d+: .*gear_ration)"))) << why;
}

TEST(RobotModelLoader, BadValuesNameTheFieldLineAndJoint) {
  const std::string text =
      replaceOnce(shippedText("puma260.textproto"), "rotor_inertia_kgm2: 0.030843", "rotor_inertia_kgm2: -1");
  const std::string why = refusal(text);
  EXPECT_TRUE(std::regex_search(
      why,
      std::regex(
          R"(^broken\.textproto:\d+:\d+: joints\[2\]\.drive\.rotor_inertia_kgm2 \(joint 3\): must be >= 0 and <= 10000, got -1)")))
      << why;
}

TEST(RobotModelLoader, MissingFieldsAreNamed) {
  const std::string text = replaceOnce(shippedText("puma260.textproto"), "max_torque_nm: 30", "");
  const std::string why = refusal(text);
  EXPECT_NE(why.find("joints[0].limits.max_torque_nm (joint 1): missing"), std::string::npos) << why;

  const std::string no_link = replaceOnce(shippedText("puma560.textproto"), "link {\n    about_com {  # Corke, link 1",
                                          "xlink {\n    about_com {");
  EXPECT_NE(refusal(no_link).find("xlink"), std::string::npos);
}

TEST(RobotModelLoader, WrongJointCountAndLimits) {
  EXPECT_NE(refusal("name: \"x\" joints { }").find("expected exactly 6 joints, found 1"), std::string::npos);
  const std::string inverted =
      replaceOnce(shippedText("puma260.textproto"), "min_deg: -160 max_deg: 160", "min_deg: 160 max_deg: -160");
  EXPECT_NE(refusal(inverted).find("joints[0].limits.max_deg (joint 1): must be > 160"), std::string::npos);
  const std::string index_outside =
      replaceOnce(shippedText("puma260.textproto"), "index_angle_deg: -5", "index_angle_deg: 60");
  EXPECT_NE(refusal(index_outside).find("joints[1].encoder.index_angle_deg"), std::string::npos);
}

TEST(RobotModelLoader, NonPhysicalInertiaIsRefused) {
  // A negative inertia about the centre of mass is caught where it is written ...
  const std::string negative =
      replaceOnce(shippedText("puma560.textproto"), "inertia_kgm2 { xx: 0.13 yy: 0.524 zz: 0.539 }",
                  "inertia_kgm2 { xx: 0.13 yy: -5 zz: 0.539 }");
  EXPECT_NE(refusal(negative).find("positive semi-definite"), std::string::npos);
  // ... and one that only shows in the assembled arm by the mass-matrix check.
  const std::string text = replaceOnce(shippedText("puma260.textproto"), "inertia_kgm2 { xx: 0.079781 zz: 0.077761 }",
                                       "inertia_kgm2 { xx: -5 zz: 0.077761 }");
  EXPECT_NE(refusal(text).find("mass matrix is not positive definite"), std::string::npos) << refusal(text);
}

TEST(RobotModelLoader, MissingFileIsNamed) {
  EXPECT_THROW(
      {
        try {
          loadRobotModel("/nonexistent/robot.textproto");
        } catch (const ConfigError& e) {
          EXPECT_NE(std::string(e.what()).find("/nonexistent/robot.textproto"), std::string::npos);
          throw;
        }
      },
      ConfigError);
}

TEST(RobotModelLoader, ABareNameIsAShippedModelAndAnUnknownOneListsThem) {
  EXPECT_EQ(loadRobotModel("gp7").name, "gp7");
  EXPECT_EQ(robotModelPath("gp7"), std::string(RFMS_ROBOTS_DIR) + "/gp7.textproto");
  EXPECT_EQ(robotModelPath("./gp7"), "./gp7");  // a folder: a file, as written
  try {
    loadRobotModel("kr16");
    ADD_FAILURE() << "a model that is not shipped loaded";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("robot model 'kr16': no such file, and no shipped model of that name"), std::string::npos)
        << what;
    EXPECT_NE(what.find("irb2400, kr6_r700_sixx, lrmate200id, puma260, puma560"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace rfms
