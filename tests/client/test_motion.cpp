// The client library's Motion, Force and Jog build the requests the task file's statements would:
// one vocabulary, whichever way a user writes it.
#include <gtest/gtest.h>

#include <numbers>

#include "client/motion_request.hpp"
#include "common/task_file.hpp"

namespace rfms {
namespace {

TEST(ClientMotion, AForceBuildsWhatTheTaskFileSays) {
  const Force f = Force().press(kZ, -10.0).damp(kZ, 40.0).spring(kRx, 3.0).inToolFrame().law(ForceLaw::kPI, 2.0, 30.0);
  const proto::DefineMotion m =
      parseTaskFile(
          "units m rad\nmotion m cartesian 2 0.5 force z -10 damping z 40 stiffness rx 3 frame tool law pi 2 30\n", "t")
          .front()
          .request.motion();
  const proto::DefineMotion built = motionRecordOf("m", Motion::cartesian(2, 0.5).withForce(f));
  EXPECT_EQ(built.SerializeAsString(), m.SerializeAsString());
  EXPECT_THROW(Force().press(static_cast<CartesianAxis>(kX | kY), 1.0), std::invalid_argument);
}

TEST(ClientMotion, OneMotionComposesWhatTheTaskFileCombines) {
  const char* const text =
      "units m rad\n"
      "motion a cartesian 20 0.5 compliance z\n"
      "motion b cartesian 0.5 0.1 compliance x track\n"
      "motion c cartesian 2 0.2 guard 5 compensate 0.5\n"
      "motion d joint 3 0.4\n"
      "motion e cartesian 2 0.2 compensate 1 rate 0.004 lead 0.01 lag 0\n";
  const std::vector<TaskStatement> task = parseTaskFile(text, "t");
  const Motion built[] = {Motion::cartesian(20, 0.5).complying(kZ),
                          Motion::cartesian(0.5, 0.1).tracking().complying(kX),
                          Motion::cartesian(2, 0.2).guarded(5).compensating(0.5), Motion::joint(3, 0.4),
                          Motion::cartesian(2, 0.2).compensating(1, {.rate_s = 0.004, .lead_s = 0.01, .lag_s = 0.0})};
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(motionRecordOf(task[i].request.motion().name(), built[i]).SerializeAsString(),
              task[i].request.motion().SerializeAsString())
        << text;
}

TEST(ClientMotion, AJogBuildsWhatTheTaskFilesJogSays) {
  const std::pair<const char*, Jog> cases[] = {
      {"jog 2 +", Jog::ofJoint(2, 1)},
      {"jog 2 + counts 400", Jog::ofJoint(2, 1).counts(400)},
      {"jog 3 - angle 5", Jog::ofJoint(3, -1).angle(5 * std::numbers::pi / 180)},
      {"jog z - distance 3", Jog::along(kZ, -1).distance(0.003)},
      {"jog tool rx + angle 2", Jog::along(kRx, 1).inToolFrame().angle(2 * std::numbers::pi / 180)},
      {"jog tool y +", Jog::along(kY, 1).inToolFrame()}};
  for (const auto& [line, jog] : cases) {
    const proto::Control parsed = parseTaskLine(line).control();
    const proto::Control built = jogControlOf(jog);
    EXPECT_EQ(built.command(), parsed.command()) << line;
    EXPECT_EQ(built.joint(), parsed.joint()) << line;
    EXPECT_EQ(built.axis(), parsed.axis()) << line;
    EXPECT_EQ(built.direction(), parsed.direction()) << line;
    EXPECT_EQ(built.tool_frame(), parsed.tool_frame()) << line;
    EXPECT_EQ(built.counts(), parsed.counts()) << line;
    EXPECT_NEAR(built.angle(), parsed.angle(), 1e-15) << line;
    EXPECT_NEAR(built.distance(), parsed.distance(), 1e-15) << line;
  }
}

}  // namespace
}  // namespace rfms
