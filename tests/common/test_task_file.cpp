#include <gtest/gtest.h>

#include <numbers>

#include "common/error.hpp"
#include "common/mail_codec.hpp"
#include "common/task_file.hpp"
#include "common/transform.hpp"

namespace rfms {
namespace {

std::string refusal(const std::string& text) {
  try {
    parseTaskFile(text, "t.task");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

TEST(TaskFile, TheManualsExampleParses) {
  const auto task = parseTaskFile(kExampleTask, "example");
  ASSERT_EQ(task.size(), 8u);
  Transform t2;
  ASSERT_TRUE(decode(task[0].request.transform().value(), t2));
  EXPECT_TRUE(t2.isApprox(trans(0.2032, -0.12623, 0.2032)));
  const auto& home = task[1].request.position();
  EXPECT_EQ(home.lhs(0), "T6");
  EXPECT_EQ(home.rhs(0), "t2");
  EXPECT_TRUE(home.config().righty() && !home.config().up() && home.config().flip());
  EXPECT_EQ(task[4].request.motion().compliance(), 4u);  // z
  EXPECT_EQ(task[6].request.move().position(), "home");
}

TEST(TaskFile, ForgetNamesAKindAndAName) {
  const auto task = parseTaskFile("forget transform a\nforget position p\nforget motion m\n", "t");
  ASSERT_EQ(task.size(), 3u);
  EXPECT_EQ(task[0].request.forget().kind(), proto::Forget::FK_TRANSFORM);
  EXPECT_EQ(task[0].request.forget().name(), "a");
  EXPECT_EQ(task[1].request.forget().kind(), proto::Forget::FK_POSITION);
  EXPECT_EQ(task[2].request.forget().kind(), proto::Forget::FK_MOTION);
  EXPECT_EQ(refusal("forget frame a\n"), "t.task:1: forget 'frame': expected transform, position or motion");
  EXPECT_EQ(refusal("forget motion\n"), "t.task:1: expected the name to forget");
  EXPECT_EQ(refusal("forget motion m n\n"), "t.task:1: unexpected 'n' at the end of the line");
}

TEST(TaskFile, UnitsAnglesAndForms) {
  const auto task = parseTaskFile(
      "units m rad\n"
      "transform a rpy 1 2 3 0.1 0.2 0.3\n"
      "units mm deg\n"
      "transform b eul 100 0 0 90 0 0  # comment\n"
      "position p lefty,up,noflip Z T6 tool = a b TL tool\n"
      "motion m cartesian 2 0.5 compliance x,rz\n"
      "jog 3 -\n"
      "wait\n",
      "t");
  Transform a, b;
  ASSERT_TRUE(decode(task[0].request.transform().value(), a));
  ASSERT_TRUE(decode(task[1].request.transform().value(), b));
  EXPECT_TRUE(a.isApprox(trans(1, 2, 3) * rpy(0.1, 0.2, 0.3)));
  EXPECT_TRUE(b.isApprox(trans(0.1, 0, 0) * eul(std::numbers::pi / 2, 0, 0)));
  EXPECT_EQ(task[2].request.position().lhs_size(), 3);
  EXPECT_EQ(task[2].request.position().tool(), "tool");
  EXPECT_EQ(task[3].request.motion().compliance(), 0x21u);
  EXPECT_EQ(task[4].request.control().direction(), -1);
  EXPECT_EQ(task[5].kind, TaskStatement::kWait);
}

TEST(TaskFile, AJogIsContinuousOrOneStepOfCountsOrAnAngle) {
  const auto task = parseTaskFile("jog 2 +\njog 2 + counts 400\njog 3 - angle 5\n", "t");
  EXPECT_EQ(task[0].request.control().counts(), 0);
  EXPECT_EQ(task[0].request.control().angle(), 0.0);
  EXPECT_EQ(task[1].request.control().counts(), 400);
  EXPECT_NEAR(task[2].request.control().angle(), 5 * std::numbers::pi / 180, 1e-15);
  EXPECT_EQ(task[2].request.control().direction(), -1);
  EXPECT_NE(refusal("jog 2 + counts 2.5\n").find("whole number"), std::string::npos);
  EXPECT_NE(refusal("jog 2 + angle -3\n").find("positive angle"), std::string::npos);
  EXPECT_NE(refusal("jog 2 + speed 3\n").find("jog size 'speed'"), std::string::npos);
}

TEST(TaskFile, AJogAlongAnAxisOfTheBaseOrTheToolTakesADistanceOrAnAngle) {
  const auto task = parseTaskFile(
      "jog z - distance 5\n"
      "jog tool rx + angle 2\n"
      "jog y +\n",
      "t");
  EXPECT_EQ(task[0].request.control().axis(), proto::JA_Z);
  EXPECT_EQ(task[0].request.control().joint(), 0);
  EXPECT_EQ(task[0].request.control().direction(), -1);
  EXPECT_NEAR(task[0].request.control().distance(), 0.005, 1e-15);
  EXPECT_FALSE(task[0].request.control().tool_frame());
  EXPECT_EQ(task[1].request.control().axis(), proto::JA_RX);
  EXPECT_TRUE(task[1].request.control().tool_frame());
  EXPECT_NEAR(task[1].request.control().angle(), 2 * std::numbers::pi / 180, 1e-15);
  EXPECT_EQ(task[2].request.control().distance(), 0.0);  // on until stop
  EXPECT_NE(refusal("jog tool 3 +\n").find("expected an axis"), std::string::npos);
  EXPECT_NE(refusal("jog w +\n").find("is not a number"), std::string::npos);
  EXPECT_NE(refusal("jog x + distance -2\n").find("positive length"), std::string::npos);
  // A step's size fits what it moves.
  EXPECT_NE(refusal("jog z - counts 2\n").find("jog counts: for a joint"), std::string::npos);
  EXPECT_NE(refusal("jog 2 + distance 5\n").find("jog distance: for x, y or z"), std::string::npos);
  EXPECT_NE(refusal("jog rz + distance 5\n").find("jog distance: for x, y or z"), std::string::npos);
  EXPECT_NE(refusal("jog x + angle 3\n").find("jog angle: for a joint or rx"), std::string::npos);
}

TEST(TaskFile, AMotionTracksWhenItSaysSoWithOrWithoutCompliance) {
  const auto task = parseTaskFile(
      "motion a cartesian 0.5 0.1 track\n"
      "motion b cartesian 0.5 0.1 compliance z track\n"
      "motion c joint 0.5 0.1 track compliance x\n"
      "motion d joint 0.5 0.1\n",
      "t");
  EXPECT_TRUE(task[0].request.motion().track());
  EXPECT_TRUE(task[1].request.motion().track());
  EXPECT_EQ(task[1].request.motion().compliance(), 4u);
  EXPECT_TRUE(task[2].request.motion().track());
  EXPECT_EQ(task[2].request.motion().compliance(), 1u);
  EXPECT_FALSE(task[3].request.motion().track());
  EXPECT_NE(refusal("motion a cartesian 0.5 0.1 track track\n").find("expected 'compliance', 'force'"),
            std::string::npos);
  EXPECT_NE(refusal("motion a cartesian 0.5 0.1 compliance z compliance x\n").find("expected 'compliance', 'force'"),
            std::string::npos);
  EXPECT_NE(refusal("motion a cartesian 0.5 0.1 follow\n").find("got 'follow'"), std::string::npos);
}

TEST(TaskFile, AMotionUnderForceControl) {
  const auto task = parseTaskFile(
      "units m rad\n"
      "motion press cartesian 2 0.5 force z -10 frame tool law pi 2 30 damping z 40 compliance x\n"
      "motion soft cartesian 2 0.5 stiffness rx 3 damping rx 0.1 law pd 1 0.01\n",
      "t.task");
  const proto::DefineMotion& m = task[0].request.motion();
  EXPECT_EQ(m.compliance(), 0x5u);  // z by its force, x named
  ASSERT_TRUE(m.has_force());
  EXPECT_EQ(m.force().frame(), proto::CF_TOOL);
  EXPECT_EQ(m.force().force_axes(), 0x4u);
  ASSERT_EQ(m.force().force_size(), 6);
  EXPECT_EQ(m.force().force(2), -10.0);
  EXPECT_EQ(m.force().damping(2), 40.0);
  EXPECT_EQ(m.force().law(), proto::FL_PI);
  EXPECT_EQ(m.force().kp(), 2.0);
  EXPECT_EQ(m.force().ki(), 30.0);
  const proto::DefineMotion& soft = task[1].request.motion();
  EXPECT_EQ(soft.compliance(), 0x8u);
  EXPECT_EQ(soft.force().force_axes(), 0u);
  EXPECT_EQ(soft.force().stiffness(3), 3.0);
  EXPECT_EQ(soft.force().law(), proto::FL_PD);
  EXPECT_EQ(soft.force().kv(), 0.01);
  // The manual's pattern stays as it was: no force control at all.
  EXPECT_FALSE(parseTaskFile("motion m cartesian 2 0.5 compliance z\n", "t").front().request.motion().has_force());

  EXPECT_NE(refusal("motion m cartesian 2 0.5 force q 1\n").find("force axis 'q'"), std::string::npos);
  EXPECT_NE(refusal("motion m cartesian 2 0.5 force z\n").find("expected force"), std::string::npos);
  EXPECT_NE(refusal("motion m cartesian 2 0.5 force z 1 force z 2\n").find("force z is given twice"),
            std::string::npos);
  EXPECT_NE(refusal("motion m cartesian 2 0.5 law x 1\n").find("force law 'x'"), std::string::npos);
  EXPECT_NE(refusal("motion m cartesian 2 0.5 frame world\n").find("frame 'world'"), std::string::npos);
  EXPECT_NE(refusal("motion m cartesian 2 0.5 stiffness z ten\n").find("not a number"), std::string::npos);
}

TEST(TaskFile, ForcesMomentsStiffnessAndDampingFollowTheFilesUnits) {
  const auto task = parseTaskFile(
      "units mm deg N\n"
      "motion a cartesian 2 0.5 force z -10 force rz 500 guard 3\n"
      "motion b cartesian 2 0.5 stiffness x 2 damping x 0.04 stiffness ry 100 damping ry 1\n"
      "units m rad lbf\n"
      "motion c cartesian 2 0.5 force x 2 force rx 1 stiffness y 10 guard 1\n"
      "units m rad\n"
      "motion d cartesian 2 0.5 stiffness z 2000 force rz 0.5\n",
      "t.task");
  const double deg = std::numbers::pi / 180, lbf = 4.4482216152605;
  const proto::ForceControl& a = task[0].request.motion().force();
  EXPECT_EQ(a.force(2), -10.0);         // N
  EXPECT_NEAR(a.force(5), 0.5, 1e-15);  // N mm: 0.5 N m
  EXPECT_EQ(task[0].request.motion().guard_n(), 3.0);
  const proto::ForceControl& b = task[1].request.motion().force();
  EXPECT_NEAR(b.stiffness(0), 2000.0, 1e-9);      // N/mm
  EXPECT_NEAR(b.damping(0), 40.0, 1e-12);         // N s/mm
  EXPECT_NEAR(b.stiffness(4), 0.1 / deg, 1e-12);  // N mm/deg in N m/rad
  EXPECT_NEAR(b.damping(4), 1e-3 / deg, 1e-15);   // N mm s/deg in N m s/rad
  const proto::ForceControl& c = task[2].request.motion().force();
  EXPECT_NEAR(c.force(0), 2 * lbf, 1e-12);
  EXPECT_NEAR(c.force(3), lbf, 1e-12);           // lbf m
  EXPECT_NEAR(c.stiffness(1), 10 * lbf, 1e-12);  // lbf/m
  EXPECT_NEAR(task[2].request.motion().guard_n(), lbf, 1e-12);
  EXPECT_EQ(task[3].request.motion().force().stiffness(2), 2000.0);  // SI needs no force unit named
  EXPECT_EQ(task[3].request.motion().force().force(5), 0.5);

  // A file whose units make a moment, a stiffness or a damping read otherwise than task files once
  // read them (SI whatever the units) must name its force unit: refused, saying so.
  EXPECT_EQ(refusal("units mm deg\nmotion m cartesian 2 0.5 stiffness z 2000\n"),
            "t.task:2: stiffness z: under 'units mm deg' it is in N/mm; name the force unit to say so, 'units mm "
            "deg N' (task files once read it in SI)");
  EXPECT_NE(refusal("motion m cartesian 2 0.5 force rz 0.5\n").find("force rz: under 'units mm deg' it is in N mm"),
            std::string::npos);
  EXPECT_NE(refusal("units m deg\nmotion m cartesian 2 0.5 damping rx 1\n").find("N m s/deg"), std::string::npos);
  // Forces along an axis and guards read as they always did.
  EXPECT_EQ(parseTaskFile("motion m cartesian 2 0.5 force z -10 guard 5\n", "t")[0].request.motion().force().force(2),
            -10.0);
  EXPECT_NE(refusal("units mm deg kgf\n").find("force unit 'kgf': expected N or lbf"), std::string::npos);
}

TEST(TaskFile, SpellingsTheLanguageOnceHadAreRefusedNamingTheirReplacement) {
  const auto task = parseTaskFile("calibrate\nhold\nfree\nstop\nreset\npower-off\nemergency-stop\n", "t");
  const proto::ControlCommand want[] = {proto::CC_CALIBRATE,     proto::CC_HOLD,  proto::CC_FREE,
                                        proto::CC_STOP,          proto::CC_RESET, proto::CC_POWER_OFF,
                                        proto::CC_EMERGENCY_STOP};
  ASSERT_EQ(task.size(), 7u);
  for (std::size_t i = 0; i < task.size(); ++i) EXPECT_EQ(task[i].request.control().command(), want[i]) << i;

  EXPECT_EQ(refusal("control calibrate\n"),
            "t.task:1: 'control calibrate' is now 'calibrate': a command is a "
            "statement of its own");
  EXPECT_EQ(refusal("control emergency_stop\n"),
            "t.task:1: 'control emergency_stop' is now 'emergency-stop': a "
            "command is a statement of its own");
  EXPECT_EQ(refusal("control jog 2 +\n"), "t.task:1: 'control jog' is now 'jog': a command is a statement of its own");
  EXPECT_EQ(refusal("estop\n"), "t.task:1: 'estop' is now 'emergency-stop'");
  EXPECT_EQ(refusal("emergency_stop\n"), "t.task:1: 'emergency_stop' is now 'emergency-stop'");
  EXPECT_EQ(refusal("power_off\n"), "t.task:1: 'power_off' is now 'power-off'");
  EXPECT_NE(refusal("step 2 + counts 5\n").find("'step' is now a jog with its size"), std::string::npos);
  EXPECT_EQ(refusal("position p righty,down,flip T6 = a tool g\n"),
            "t.task:1: 'tool' in a position equation is now 'TL', the manual's name: '... = OBJ TL GRIP'");
  EXPECT_EQ(retiredWord("estop"), "'emergency-stop'");
  EXPECT_EQ(retiredWord("jog"), "");
  EXPECT_NE(refusal("calibrate now\n").find("unexpected 'now'"), std::string::npos);
}

TEST(TaskFile, OneLineOnItsOwnGivesItsRequestOrTheReasonAlone) {
  const proto::TaskRequest jog = parseTaskLine("jog tool z - distance 3   # down");
  EXPECT_EQ(jog.control().command(), proto::CC_JOG);
  EXPECT_NEAR(jog.control().distance(), 0.003, 1e-15);
  EXPECT_TRUE(jog.control().tool_frame());
  EXPECT_EQ(parseTaskLine("emergency-stop").control().command(), proto::CC_EMERGENCY_STOP);
  auto reason = [](const std::string& line) {
    try {
      parseTaskLine(line);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reason("jog 9 +"), "jog: the joint must be a whole number 1..6");
  EXPECT_EQ(reason("estop"), "'estop' is now 'emergency-stop'");
  EXPECT_EQ(reason("wait"), "'wait' asks the controller for nothing on its own");
  EXPECT_NE(reason("").find("no statement"), std::string::npos);
}

TEST(TaskFile, ErrorsNameTheLine) {
  EXPECT_EQ(refusal("\n\nmve home m\n"),
            "t.task:3: unknown statement 'mve': expected units, transform, position, motion, move, wait, at, forget, "
            "jog, calibrate, hold, free, stop, reset, power-off or emergency-stop");
  EXPECT_NE(refusal("transform a trans 1 2 x\n").find("t.task:1: z: 'x' is not a number"), std::string::npos);
  EXPECT_NE(refusal("motion m jnt 2 0.2\n").find("expected joint or cartesian"), std::string::npos);
  EXPECT_NE(refusal("position p righty,down T6 = a\n").find("configuration"), std::string::npos);
  EXPECT_NE(refusal("position p righty,down,flip T6 a\n").find("'='"), std::string::npos);
  EXPECT_NE(refusal("motion m joint 2 0.2 compliance q\n").find("compliance 'q'"), std::string::npos);
  EXPECT_NE(refusal("move a b c\n").find("unexpected 'c'"), std::string::npos);
  EXPECT_NE(refusal("units cm deg\n").find("length unit 'cm'"), std::string::npos);
  EXPECT_NE(refusal("at -1\n").find("t.task:1: at -1"), std::string::npos);
  // 2.9 used to jog joint 2, and 9999999999 to convert out of int's range (undefined behaviour).
  for (const char* joint : {"2.9", "9999999999", "0", "7", "-1e300"})
    EXPECT_NE(refusal(std::string("jog ") + joint + " +\n").find("t.task:1: jog: the joint must be a whole number"),
              std::string::npos)
        << joint;
  EXPECT_NE(refusal("at soon\n").find("'soon' is not a number"), std::string::npos);
}

TEST(TaskFile, AtHoldsTheStatementsThatFollowUntilItsTime) {
  const auto task = parseTaskFile("transform a trans 0 0 0\nat 2.5\ntransform b trans 0 0 0\n", "t.task");
  ASSERT_EQ(task.size(), 3u);
  EXPECT_EQ(task[1].kind, TaskStatement::kAt);
  EXPECT_EQ(task[1].at_s, 2.5);
  EXPECT_EQ(task[1].line, 2);
}

}  // namespace
}  // namespace rfms
