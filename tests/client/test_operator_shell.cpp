// What a line typed at rfms-client shell asks for, what it completes, and the status line.
#include <gtest/gtest.h>

#include <algorithm>

#include "client/operator_shell.hpp"
#include "common/mail_codec.hpp"
#include "common/transform.hpp"

namespace rfms {
namespace {

TEST(OperatorShell, CommandsAreTheTaskFilesStatementsSpelledAsThere) {
  OperatorShell sh;
  ShellLine l = sh.interpret("jog 2 + counts 400");
  ASSERT_EQ(l.kind, ShellLine::kRequest) << l.error;
  EXPECT_EQ(l.request.control().command(), proto::CC_JOG);
  EXPECT_EQ(l.request.control().joint(), 2);
  EXPECT_EQ(l.request.control().counts(), 400);
  l = sh.interpret("jog 1 +");  // on until hold or stop
  EXPECT_EQ(l.request.control().counts(), 0);
  EXPECT_EQ(sh.interpret("emergency-stop").request.control().command(), proto::CC_EMERGENCY_STOP);
  EXPECT_EQ(sh.interpret("power-off").request.control().command(), proto::CC_POWER_OFF);
  EXPECT_EQ(sh.interpret("calibrate").request.control().command(), proto::CC_CALIBRATE);
  EXPECT_EQ(sh.interpret("  ").kind, ShellLine::kNothing);
  EXPECT_EQ(sh.interpret("# a note").kind, ShellLine::kNothing);
  EXPECT_EQ(sh.interpret("wait").kind, ShellLine::kWait);
  EXPECT_EQ(sh.interpret("status").kind, ShellLine::kStatus);
  EXPECT_EQ(sh.interpret("quit").kind, ShellLine::kQuit);
  // The shell's spellings of old are refused as the task file refuses them, naming the new.
  EXPECT_EQ(sh.interpret("estop").error, "'estop' is now 'emergency-stop'");
  EXPECT_NE(sh.interpret("step 3 -").error.find("'step' is now a jog with its size"), std::string::npos);
  EXPECT_NE(sh.interpret("control hold").error.find("is now 'hold'"), std::string::npos);
}

TEST(OperatorShell, TheWristJogsAlongAnAxisOnOrByAStepInTheUnitsTypedSoFar) {
  OperatorShell sh;
  ShellLine l = sh.interpret("jog z - distance 1");
  ASSERT_EQ(l.kind, ShellLine::kRequest) << l.error;
  EXPECT_EQ(l.request.control().axis(), proto::JA_Z);
  EXPECT_NEAR(l.request.control().distance(), 0.001, 1e-15);
  l = sh.interpret("jog tool ry + angle 1");
  ASSERT_EQ(l.kind, ShellLine::kRequest) << l.error;
  EXPECT_TRUE(l.request.control().tool_frame());
  EXPECT_NEAR(l.request.control().angle(), 3.141592653589793 / 180, 1e-15);
  l = sh.interpret("jog tool x -");
  ASSERT_EQ(l.kind, ShellLine::kRequest) << l.error;
  EXPECT_EQ(l.request.control().distance(), 0.0);  // on until stop
  sh.interpret("units m rad");
  EXPECT_NEAR(sh.interpret("jog x + distance 0.002").request.control().distance(), 0.002, 1e-15);
  const auto axes = sh.completions("jog", 1, "r");
  EXPECT_EQ(axes, (std::vector<std::string>{"rx", "ry", "rz"}));
  EXPECT_EQ(sh.completions("jog", 3, "c"), std::vector<std::string>{"counts"});
}

TEST(OperatorShell, TaskLinesUseTheUnitsTypedSoFarAndBadLinesSayWhy) {
  OperatorShell sh;
  ShellLine l = sh.interpret("transform t trans 100 0 0");
  ASSERT_EQ(l.kind, ShellLine::kRequest);
  Transform t;
  ASSERT_TRUE(decode(l.request.transform().value(), t));
  EXPECT_NEAR(t.translation().x(), 0.1, 1e-12);  // mm by default
  EXPECT_EQ(sh.interpret("units m rad").kind, ShellLine::kNothing);
  ASSERT_TRUE(decode(sh.interpret("transform t trans 1 0 0").request.transform().value(), t));
  EXPECT_NEAR(t.translation().x(), 1.0, 1e-12);
  EXPECT_NE(sh.interpret("mve a b").error.find("unknown statement 'mve'"), std::string::npos);
  EXPECT_NE(sh.interpret("jog 2 + 40").error.find("jog size '40'"), std::string::npos);
  EXPECT_NE(sh.interpret("jog 9 +").error.find("1..6"), std::string::npos);
  EXPECT_NE(sh.interpret("hold now").error.find("unexpected 'now'"), std::string::npos);
  EXPECT_EQ(sh.interpret("at 3").kind, ShellLine::kError);
  EXPECT_EQ(sh.interpret("units cm deg").kind, ShellLine::kError);
}

TEST(OperatorShell, CompletesCommandsAndTheNamesItSawAccepted) {
  OperatorShell sh;
  EXPECT_EQ(sh.completions("", 0, "ca"), std::vector<std::string>{"calibrate"});
  const auto m = sh.completions("", 0, "mo");
  EXPECT_EQ(m.size(), 2u);  // motion, move
  sh.accepted(sh.interpret("position home righty,down,flip T6 = t2").request);
  sh.accepted(sh.interpret("motion mj joint 2 0.2").request);
  EXPECT_EQ(sh.completions("move", 1, "ho"), std::vector<std::string>{"home"});
  EXPECT_EQ(sh.completions("move", 2, "m"), std::vector<std::string>{"mj"});
  EXPECT_TRUE(sh.completions("move", 1, "x").empty());
}

TEST(OperatorShell, TheStatusLineFitsAndNamesAnEmergency) {
  const ArmStatus s{.state = ArmState::kEmgcy,
                    .reason = EmergencyReason::kOperator,
                    .reason_node = ClusterNode::kSupervisor,
                    .t6 = trans(0.2032, -0.12623, 0.2032),
                    .task = "shell"};
  const std::string line = statusLine(s, 200);
  EXPECT_NE(line.find("RFMS EMGCY"), std::string::npos) << line;
  EXPECT_NE(line.find("T6 203.2 -126.2 203.2 mm"), std::string::npos) << line;
  EXPECT_NE(line.find("task shell"), std::string::npos) << line;
  EXPECT_NE(line.find("(emergency stop requested, supervisor)"), std::string::npos) << line;
  EXPECT_LE(statusLine(s, 40).size(), 40u);
  ArmStatus runaway = s;
  runaway.reason = EmergencyReason::kForceRunaway;
  runaway.reason_axis = "tool x";
  EXPECT_NE(statusLine(runaway, 300).find(", along tool x, supervisor)"), std::string::npos)
      << statusLine(runaway, 300);
}

// Issue 57: the top line says how the last step ended: the shell's words for its own step, or
// the controller's reason a jog stopped short (rfms-client watch, which took no step).
TEST(OperatorShell, TheStatusLineSaysHowTheLastStepEnded) {
  ArmStatus s{.state = ArmState::kManu, .t6 = trans(0.2032, -0.12623, 0.2032)};
  s.jog_stopped = "the solution lies outside the joint limits";
  EXPECT_NE(statusLine(s, 300).find("last jog stopped short: the solution lies outside the joint limits"),
            std::string::npos)
      << statusLine(s, 300);
  const std::string step = "step: 1.6 mm of 20.0 mm along z; stopped short: the solution lies outside the joint limits";
  const std::string line = statusLine(s, 300, step);
  EXPECT_NE(line.find("last step: 1.6 mm of 20.0 mm along z; stopped short"), std::string::npos) << line;
  EXPECT_EQ(line.find("last jog stopped short"), std::string::npos) << line;
  s.jog_stopped.clear();
  EXPECT_EQ(statusLine(s, 300).find("last"), std::string::npos) << statusLine(s, 300);
}

// Issue 57: a step that ended short answered "ok"; the shell now says what it made of what was
// asked, and why it stopped short.
TEST(OperatorShell, AJogStepIsToldByHowItEnded) {
  OperatorShell shell;
  const proto::TaskRequest step = shell.interpret("jog z + distance 20").request;
  ASSERT_TRUE(isJogStep(step));
  EXPECT_FALSE(isJogStep(shell.interpret("jog z +").request));
  EXPECT_FALSE(isJogStep(shell.interpret("calibrate").request));
  ArmStatus before, after;
  before.t6 = trans(0.2032, -0.12623, 0.2032);
  after.t6 = trans(0.2032, -0.12623, 0.2048);
  after.jog_stopped = "the solution lies outside the joint limits";
  EXPECT_EQ(jogStepEnd(step.control(), before, after),
            "step: 1.6 mm of 20.0 mm along z; stopped short: the solution lies outside the joint limits");
  after.t6 = trans(0.2032, -0.12623, 0.2232);
  after.jog_stopped.clear();
  EXPECT_EQ(jogStepEnd(step.control(), before, after), "step: 20.0 mm of 20.0 mm along z");
  const proto::TaskRequest joint = shell.interpret("jog 2 + angle 5").request;
  ASSERT_TRUE(isJogStep(joint));
  before.angles = {0, 0, 0, 0, 0, 0};
  after.angles = {0, 0.0872665, 0, 0, 0, 0};
  EXPECT_EQ(jogStepEnd(joint.control(), before, after), "step: joint 2 turned 5.00 deg of 5.00 deg");
}

}  // namespace
}  // namespace rfms
