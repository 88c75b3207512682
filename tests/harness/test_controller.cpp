// The whole controller in one process: the manual's example task, path accuracy, transitions,
// emergencies and their aftermath, refusals, determinism.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>

#include "common/kinematics.hpp"
#include "common/transform.hpp"
#include "harness/task_runner.hpp"
#include "harness/tracking_scenarios.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

const RobotModel& puma() { return test::puma260(); }

// Powers up, calibrates and returns once the controller holds.
void calibrate(Harness& h) { ASSERT_TRUE(test::calibrate(h)); }

void accept(Harness& h, const proto::TaskRequest& r) {
  const proto::TaskReply reply = h.request(r);
  EXPECT_TRUE(reply.accepted()) << reply.reason();
  if (!reply.accepted()) throw std::runtime_error("refused: " + reply.reason());
}

TEST(Controller, TheManualsExampleTaskEndsAtHome) {
  Harness h(puma(), proto::ControllerSettings{});
  const RunSummary s = runTask(h, parseTaskFile(kExampleTask, "example"), RunOptions{});
  EXPECT_FALSE(s.script.emergency) << summaryText(s);
  ASSERT_GE(s.script.states.size(), 3u);
  EXPECT_EQ(s.script.states[0], proto::RT_CALIB);
  EXPECT_EQ(s.script.states[1], proto::RT_HOLD);
  EXPECT_EQ(s.script.states[2], proto::RT_SETP);
  ASSERT_EQ(s.script.moves.size(), 2u);
  EXPECT_TRUE(s.succeeded()) << summaryText(s);
  EXPECT_LT(s.final_position_error_mm, 0.1) << summaryText(s);
  EXPECT_TRUE(s.script.refused.empty()) << summaryText(s);
}

// The manual's shapes of position equation (A.5 §2.1): T6 on the right-hand side, a tool named by
// TL, transforms on both sides. The Cartesian line is the tool tip's: 300 mm down while the hand
// tips by 20 degrees, so the wrist swings while the tip goes straight.
TEST(Controller, EquationsWrittenAsTheManualDoesRunWithTheToolTipOnItsLine) {
  Harness h(puma(), proto::ControllerSettings{});
  const RunSummary s = runTask(h,
                               parseTaskFile("units mm deg\n"
                                             "transform grip trans 0 0 100\n"
                                             "transform top rpy 320 -126.24 280 0 90 0\n"
                                             "transform down trans 0 0 -300\n"
                                             "transform tip rpy 0 0 0 0 20 0\n"
                                             "position p_top righty,down,flip top = T6 grip TL grip\n"
                                             "position p_bottom righty,down,flip down top tip = T6 grip TL grip\n"
                                             "motion reach joint 3 0.5\n"
                                             "motion line cartesian 3 0.3\n"
                                             "move p_top reach\n"
                                             "move p_bottom line\n",
                                             "manual-forms.task"),
                               RunOptions{});
  EXPECT_TRUE(s.succeeded()) << summaryText(s);
  EXPECT_LT(s.final_position_error_mm, 0.1) << summaryText(s);
  // The runner measures the tool tip against the tip's line (trajectory.segmentTool()).
  EXPECT_LT(s.max_setpoint_deviation_mm, 0.5) << summaryText(s);
  EXPECT_LT(s.max_path_deviation_mm, 2.0) << summaryText(s);
  std::printf("tool tip off its line: setpoints %.4f mm, arm %.4f mm\n", s.max_setpoint_deviation_mm,
              s.max_path_deviation_mm);
}

// `at T` holds the statements that follow until T seconds after the task's statements began.
TEST(Controller, AtSendsTheRestOfTheTaskAtItsTime) {
  Harness h(puma(), proto::ControllerSettings{});
  std::map<std::string, std::uint64_t> entered;
  RunOptions o;
  o.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply&) {
    if (r.has_transform()) entered[r.transform().name()] = k;
  };
  runTask(h,
          parseTaskFile("transform a trans 0 0 0\nat 0.25\ntransform b trans 0 0 0\nat 0.1\n"
                        "transform c trans 0 0 0\n",
                        "t.task"),
          o);
  ASSERT_EQ(entered.size(), 3u);
  EXPECT_EQ(entered["b"] - entered["a"], 250u);  // 0.25 s at 1 ms
  EXPECT_EQ(entered["c"], entered["b"]);         // a time already past holds nothing
}

// A 300 mm vertical line in front of the PUMA 260, the tool pointing forward (well away from the
// wrist singularity), reached first by a joint move.
class PathAccuracy : public ::testing::TestWithParam<bool> {};

TEST_P(PathAccuracy, ThreeHundredMillimetreLineInThreeSeconds) {
  const bool serial = GetParam();
  proto::ControllerSettings config;
  config.set_serial_ik(serial);
  Harness h(puma(), config);
  calibrate(h);
  const Transform top = trans(0.22, -0.12624, 0.28) * rot(Axis::kY, 1.5707963267948966);
  const Transform bottom = trans(0.0, 0.0, -0.30) * top;
  accept(h, test::request(test::transformDef("top", top)));
  accept(h, test::request(test::transformDef("bottom", bottom)));
  accept(h, test::request(test::positionDef("p_top", {true, false, true}, {"T6"}, {"top"})));
  accept(h, test::request(test::positionDef("p_bottom", {true, false, true}, {"T6"}, {"bottom"})));
  accept(h, test::request(test::motionDef("reach", false, 3.0, 0.5)));
  accept(h, test::request(test::motionDef("line", true, 3.0, 0.3)));
  accept(h, test::moveRequest("p_top", "reach"));
  const proto::TaskReply line = h.request(test::moveRequest("p_bottom", "line"));
  ASSERT_TRUE(line.accepted()) << line.reason();

  // FK of the joints' PIK setpoints, and of the arm itself, against the ideal line, throughout
  // the Cartesian move (its start and stop transitions lie on the same line).
  double setpoint_deviation = 0.0, arm_deviation = 0.0, following = 0.0;
  int samples = 0;
  const Vec3 a = top.translation(), b = bottom.translation();
  const auto distance = [&](const Vec3& p) { return (p - a).cross(b - a).norm() / (b - a).norm(); };
  h.on_period = [&](const PeriodMail& m) {
    if (h.supervisor().trajectory().currentMove() != line.move_id() || !m.smail->new_setpoint()) return;
    JointVec setpoints;
    for (int i = 0; i < kJoints; ++i) {
      setpoints[i] = m.jmail[static_cast<std::size_t>(i)]->setpoint();
      following = std::max(following, std::abs(m.jmail[static_cast<std::size_t>(i)]->servo_error()));
    }
    setpoint_deviation = std::max(setpoint_deviation, distance(forwardKinematics(puma(), setpoints).translation()));
    arm_deviation = std::max(arm_deviation, distance(forwardKinematics(puma(), h.arm().q()).translation()));
    ++samples;
  };
  ASSERT_TRUE(h.runUntil(
      [&] {
        return h.supervisor().trajectory().atRest() && h.supervisor().trajectory().queued() == 0 &&
               h.period() > 100 + 3600 + 3600;
      },
      20000));
  EXPECT_GT(samples, 3000);
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_SETP);
  EXPECT_LE(setpoint_deviation * 1e3, 0.5);
  RecordProperty("setpoint_deviation_mm", std::to_string(setpoint_deviation * 1e3));
  RecordProperty("arm_deviation_mm", std::to_string(arm_deviation * 1e3));
  RecordProperty("max_following_error_rad", std::to_string(following));
  std::printf("%s IK: FK(setpoints) off the line by at most %.4f mm; the arm by %.4f mm; servo error %.5f rad\n",
              serial ? "serial" : "parallel", setpoint_deviation * 1e3, arm_deviation * 1e3, following);
  EXPECT_LT(following, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Ik, PathAccuracy, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Serial" : "Parallel"; });

// The emergency's aftermath: power off, the brakes stop the arm, a reset returns to IDLE.
void expectSafeStopAndReset(Harness& h) {
  EXPECT_TRUE(h.runUntil([&] { return !h.arm().powered() && h.arm().qd().norm() == 0.0; }, 3000))
      << "powered " << h.arm().powered() << " qd " << h.arm().qd().transpose();
  const JointVec rest = h.arm().q();
  h.runUntil([] { return false; }, 500);
  EXPECT_EQ(h.arm().q(), rest);                          // held by the brakes
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_EMGCY);  // latched
  accept(h, test::controlRequest(proto::CC_RESET));
  h.step();
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_IDLE);
}

// Sets up a long joint move so that faults can be injected while the arm moves.
std::uint64_t startLongMove(Harness& h) {
  JointVec target = h.supervisor().observedAngles();
  target[0] += 0.6;
  target[1] += 0.3;
  accept(h, test::request(test::transformDef("far", forwardKinematics(puma(), target))));
  accept(h, test::request(test::positionDef("p_far", OpwIk(puma()).configOf(target), {"T6"}, {"far"})));
  accept(h, test::request(test::motionDef("slow", false, 6.0, 0.5)));
  const proto::TaskReply r = h.request(test::moveRequest("p_far", "slow"));
  EXPECT_TRUE(r.accepted()) << r.reason();
  h.runUntil([] { return false; }, 2000);
  return r.move_id();
}

TEST(Controller, EmergencyOnFollowingError) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  startLongMove(h);
  h.arm().setExternalWrench((Vec6() << 0, 0, -400, 0, 0, 0).finished());  // more than the shoulder can hold
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_EMGCY; }, 1000));
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_FOLLOWING_ERROR);
  h.arm().setExternalWrench(Vec6::Zero());
  expectSafeStopAndReset(h);
}

TEST(Controller, EmergencyOnJointLimit) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  accept(h, test::controlRequest(proto::CC_JOG, 5, 1));  // jog the wrist bend past +100 deg
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_EMGCY; }, 20000));
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_JOINT_LIMIT);
  EXPECT_EQ(h.supervisor().emergencyNode(), proto::NODE_JOINT5);
  EXPECT_GT(h.arm().q()[4], puma().joints[4].q_max);
  expectSafeStopAndReset(h);
}

proto::TaskRequest jogRequest(int joint, int direction, int counts, double angle = 0.0) {
  proto::TaskRequest r = test::controlRequest(proto::CC_JOG, joint, direction);
  r.mutable_control()->set_counts(counts);
  r.mutable_control()->set_angle(angle);
  return r;
}

// RFMS's order, manual -> calibration -> set-point: an operator jogs a joint from IDLE, before
// any index is known, by encoder counts; the step ends and the joint holds there; then
// calibration starts from MANU.
TEST(Controller, AStepJogBeforeCalibrationMovesByCountsAndHolds) {
  Harness h(puma(), proto::ControllerSettings{});
  h.runUntil([] { return false; }, 10);
  const double per_count = 2.0 * std::numbers::pi / puma().joints[1].counts_per_rev;
  EXPECT_EQ(h.request(jogRequest(2, 1, 0, 0.05)).code(), proto::RC_NOT_CALIBRATED);
  EXPECT_EQ(h.request(jogRequest(2, 1, 10, 0.05)).code(), proto::RC_INVALID);
  const JointVec all_before = h.arm().q();
  const double before = all_before[1];
  accept(h, jogRequest(2, -1, 2000));
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_MANU; }, 10));
  h.runUntil([] { return false; }, 2000);  // 500 periods of stepping and time to settle
  const double moved = h.arm().q()[1] - before;
  EXPECT_NEAR(moved, -2000 * per_count, 40 * per_count) << "moved " << moved / per_count << " counts";
  // Held there: no further motion.
  h.runUntil([] { return false; }, 500);
  EXPECT_NEAR(h.arm().q()[1] - before, moved, 5 * per_count);
  for (int i = 0; i < kJoints; ++i) {
    if (i == 1) continue;
    EXPECT_NEAR(h.arm().q()[i], all_before[i], 0.002) << "joint " << i + 1;
  }
  accept(h, test::controlRequest(proto::CC_CALIBRATE));
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000));
}

// After calibration a step may be an angle; a continuous jog runs on until hold.
TEST(Controller, AStepJogByAngleAndAContinuousJogUntilHold) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  const double step = 5.0 * std::numbers::pi / 180.0;
  const JointVec before = h.arm().q();
  accept(h, jogRequest(3, 1, 0, step));
  h.runUntil([] { return false; }, 3000);
  EXPECT_NEAR(h.arm().q()[2] - before[2], step, 0.002);
  for (int i = 0; i < kJoints; ++i) {
    if (i == 2) continue;
    // Not jogged; the shoulder gives a few mrad while the forearm's weight moves over it.
    EXPECT_NEAR(h.arm().q()[i], before[i], 0.01) << "joint " << i + 1;
  }
  // Continuous: still moving after the time a step of the same size would have taken.
  const double start = h.arm().q()[2];
  accept(h, jogRequest(3, -1, 0));
  h.runUntil([] { return false; }, 1000);
  const double after_1s = h.arm().q()[2];
  h.runUntil([] { return false; }, 1000);
  EXPECT_LT(h.arm().q()[2], after_1s - 0.01);
  EXPECT_LT(after_1s, start - 0.01);
  accept(h, test::controlRequest(proto::CC_HOLD));
  h.runUntil([] { return false; }, 500);
  const double held = h.arm().q()[2];
  h.runUntil([] { return false; }, 1000);
  EXPECT_NEAR(h.arm().q()[2], held, 0.002);
}

proto::TaskRequest axisJogRequest(proto::JogAxis axis, int direction, double size, bool tool = false) {
  proto::TaskRequest r = test::controlRequest(proto::CC_JOG, 0, direction);
  r.mutable_control()->set_axis(axis);
  r.mutable_control()->set_tool_frame(tool);
  if (axis >= proto::JA_RX)
    r.mutable_control()->set_angle(size);
  else
    r.mutable_control()->set_distance(size);
  return r;
}

// After calibration the wrist jogs along an axis: off the home position's wrist singularity (a
// step of joint 5 first), a 5 mm step down the base's z ends 5 mm lower with the orientation kept;
// a continuous turn stops on stop; a joint's step may follow, and a continuous jog along the
// tool's x goes on until stop. Before calibration, or with counts, it is refused with the reason.
TEST(Controller, TheWristJogsAlongAnAxisOfTheBaseOrTheTool) {
  Harness h(puma(), proto::ControllerSettings{});
  const auto in = [&](proto::RtState s) { return h.supervisor().rtstate() == s; };
  h.runUntil([] { return false; }, 10);
  EXPECT_EQ(h.request(axisJogRequest(proto::JA_Z, -1, 0.005)).code(), proto::RC_NOT_CALIBRATED);
  calibrate(h);
  proto::TaskRequest counts = axisJogRequest(proto::JA_Z, -1, 0.0);
  counts.mutable_control()->set_counts(10);
  EXPECT_EQ(h.request(counts).code(), proto::RC_INVALID);
  accept(h, jogRequest(5, 1, 0, 0.35));
  h.runUntil([] { return false; }, 3000);

  const Transform before = forwardKinematics(puma(), h.arm().q());
  accept(h, axisJogRequest(proto::JA_Z, -1, 0.005));  // from MANU, the joint's step ended
  h.runUntil([] { return false; }, 1500);             // 0.5 s of jog, then settling
  const Transform after = forwardKinematics(puma(), h.arm().q());
  EXPECT_NEAR((after.translation() - before.translation() - Vec3(0, 0, -0.005)).norm(), 0.0, 2e-4);
  EXPECT_TRUE(after.linear().isApprox(before.linear(), 2e-3));
  EXPECT_TRUE(in(proto::RT_SETP));
  EXPECT_FALSE(h.supervisor().trajectory().stoppedShort()) << h.supervisor().trajectory().stoppedWhy();

  accept(h, axisJogRequest(proto::JA_RZ, 1, 0.0));  // a continuous turn, stopped
  h.runUntil([] { return false; }, 200);
  accept(h, test::controlRequest(proto::CC_STOP));
  ASSERT_TRUE(h.runUntil([&] { return in(proto::RT_HOLD); }, 5000));
  accept(h, jogRequest(6, 1, 0, 0.05));
  ASSERT_TRUE(h.runUntil([&] { return in(proto::RT_MANU); }, 10));
  h.runUntil([] { return false; }, 1000);
  const Transform turned = forwardKinematics(puma(), h.arm().q());
  accept(h, axisJogRequest(proto::JA_X, 1, 0.0, true));
  h.runUntil([] { return false; }, 2000);
  EXPECT_TRUE(h.supervisor().trajectory().jogging()) << h.supervisor().trajectory().stoppedWhy();
  accept(h, test::controlRequest(proto::CC_STOP));
  ASSERT_TRUE(h.runUntil([&] { return in(proto::RT_HOLD); }, 2000));
  h.runUntil([] { return false; }, 500);
  const Vec3 moved = forwardKinematics(puma(), h.arm().q()).translation() - turned.translation();
  EXPECT_NEAR(moved.norm(), 0.02, 0.002);                           // 2 s at 10 mm/s
  EXPECT_GT(moved.normalized().dot(turned.linear().col(0)), 0.99);  // along the tool's x
}

// At the home position the wrist is singular (theta5 = 0): turning the hand there swings joints
// 4 and 6 around it. Each jog along the tool's axes stops short, saying why, rather than driving
// the wrist into a following-error emergency.
TEST(Controller, JogsAtTheWristSingularityStopShortInsteadOfAnEmergency) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  for (int axis = proto::JA_X; axis <= proto::JA_RZ; ++axis)
    for (int direction : {-1, 1}) {
      const proto::TaskReply r = h.request(axisJogRequest(static_cast<proto::JogAxis>(axis), direction, 0.0, true));
      h.runUntil([] { return false; }, 500);
      ASSERT_NE(h.supervisor().rtstate(), proto::RT_EMGCY)
          << "tool axis " << axis << " " << direction << ": " << describe(h.supervisor().emergencyReason());
      accept(h, test::controlRequest(proto::CC_STOP));
      ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 5000)) << r.reason();
    }
}

class SilentNode : public ::testing::TestWithParam<proto::Node> {};

TEST_P(SilentNode, IsAnEmergencyNamingItWithinTheWatchdogPeriod) {
  proto::ControllerSettings config;
  Harness h(puma(), config);
  calibrate(h);
  startLongMove(h);
  const std::uint64_t silenced_at = h.period();
  h.silence(GetParam());
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_EMGCY; }, 100));
  EXPECT_LE(h.period() - silenced_at, static_cast<std::uint64_t>(config.watchdog_periods()) + 2);
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_NODE_SILENT);
  EXPECT_EQ(h.supervisor().emergencyNode(), GetParam());
  expectSafeStopAndReset(h);
}

INSTANTIATE_TEST_SUITE_P(Nodes, SilentNode, ::testing::Values(proto::NODE_JOINT3, proto::NODE_MATH, proto::NODE_ARM),
                         [](const auto& p) { return proto::Node_Name(p.param).substr(5); });

// Every other emergency reason and every control, end to end in the controller (issue 15). Each
// ends with the arm at rest; where the power goes off, the brakes hold it there.
bool inState(Harness& h, proto::RtState s) { return h.supervisor().rtstate() == s; }

// At rest under the servo: how far any joint wanders in a second, after half a second to settle
// (rad). Its friction-limited hunting is a few mrad/s, so velocity is the wrong test of rest.
double heldWithin(Harness& h) {
  h.runUntil([] { return false; }, 500);
  JointVec lo = h.arm().q(), hi = lo;
  h.runUntil(
      [&] {
        lo = lo.cwiseMin(h.arm().q());
        hi = hi.cwiseMax(h.arm().q());
        return false;
      },
      1000);
  return (hi - lo).maxCoeff();
}

TEST(Controller, AnOperatorsEmergencyStopMidMove) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  startLongMove(h);
  accept(h, test::controlRequest(proto::CC_EMERGENCY_STOP));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_EMGCY); }, 5));
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_OPERATOR);
  EXPECT_EQ(h.supervisor().emergencyNode(), proto::NODE_SUPERVISOR);
  EXPECT_EQ(h.supervisor().trajectory().queued(), 0);
  expectSafeStopAndReset(h);
}

TEST(Controller, StopMidMoveComesToRestAndHoldsWithThePowerOn) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  startLongMove(h);
  ASSERT_GT(h.arm().qd().norm(), 0.05);  // moving
  accept(h, test::controlRequest(proto::CC_STOP));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_HOLD); }, 5000));
  EXPECT_EQ(h.supervisor().trajectory().queued(), 0);
  EXPECT_LT(heldWithin(h), 2e-4);
  EXPECT_TRUE(h.arm().powered());
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_HOLD);
}

// A run that requires a log, whose log stops writing mid-move: the arm comes to rest as on a stop
// and holds there; no move is taken any more.
TEST(Controller, ARunThatRequiresALogComesToRestWhenTheLogStops) {
  proto::ControllerSettings settings;
  settings.mutable_log()->set_required(true);
  Harness h(puma(), settings);
  calibrate(h);
  startLongMove(h);
  ASSERT_GT(h.arm().qd().norm(), 0.05);
  h.logStopped("cannot write log run.mcap: No space left on device");
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_HOLD); }, 5000));
  EXPECT_LT(heldWithin(h), 2e-4);
  const proto::TaskReply r = h.request(test::moveRequest("p_far", "slow"));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_LOG_STOPPED) << r.reason();
  EXPECT_NE(r.reason().find("No space left on device)"), std::string::npos) << r.reason();
}

TEST(Controller, PowerOffMidMoveLetsTheBrakesStopTheArm) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  startLongMove(h);
  accept(h, test::controlRequest(proto::CC_POWER_OFF));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_IDLE); }, 5));
  EXPECT_TRUE(h.runUntil([&] { return !h.arm().powered() && h.arm().qd().norm() == 0.0; }, 3000));
  const JointVec rest = h.arm().q();
  h.runUntil([] { return false; }, 500);
  EXPECT_EQ(h.arm().q(), rest);
}

TEST(Controller, FreeCompensatesGravityAndHoldTakesTheArmBack) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  accept(h, test::controlRequest(proto::CC_FREE));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_FREE); }, 5));
  const JointVec start = h.arm().q();
  h.runUntil([] { return false; }, 1000);
  EXPECT_TRUE(h.arm().powered());
  // Gravity compensated: the arm does not fall (unpowered, the shoulder would drop at once).
  EXPECT_LT((h.arm().q() - start).cwiseAbs().maxCoeff(), 0.05) << (h.arm().q() - start).transpose();
  accept(h, test::controlRequest(proto::CC_HOLD));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_HOLD); }, 5));
  EXPECT_LT(heldWithin(h), 2e-4);
}

// Powers up `model`'s arm and calibrates it, which must end in the emergency `reason` naming
// `node`, then at rest, braked, and reset.
void expectEmergencyOnCalibrating(const RobotModel& model, proto::EmergencyReason reason, proto::Node node) {
  Harness h(model, proto::ControllerSettings{});
  h.runUntil([] { return false; }, 10);
  accept(h, test::controlRequest(proto::CC_CALIBRATE));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_EMGCY); }, 60000));
  EXPECT_EQ(h.supervisor().emergencyReason(), reason);
  EXPECT_EQ(h.supervisor().emergencyNode(), node);
  expectSafeStopAndReset(h);
}

// An elbow whose drive is too weak to hold the forearm: the joint's torque stays at its limit while
// the error is still small, and saturation is named before following error.
TEST(Controller, SaturationIsAnEmergencyNamingTheJoint) {
  RobotModel weak = puma();
  weak.joints[2].tau_max = 0.5;
  expectEmergencyOnCalibrating(weak, proto::ER_SATURATION, proto::NODE_JOINT3);
}

// An index pulse further than calibration searches (0.5 rad each way): calibration gives up and
// names the joint.
TEST(Controller, AnIndexPulseOutOfReachIsACalibrationEmergency) {
  RobotModel far = puma();
  far.joints[3].index_angle += 0.8;
  expectEmergencyOnCalibrating(far, proto::ER_CALIBRATION, proto::NODE_JOINT4);
}

// A move checked and accepted whose frame then moves before it starts (a transform redefined by a
// sensor while an earlier move runs): the line to the new place crosses the cylinder around the
// base axis that the shoulder offset keeps the wrist centre out of. The trajectory meets the hole
// while moving, and that is an emergency.
TEST(Controller, AFrameMovedBehindTheShouldersBlindSpotIsAnEmergencyWhenTheLineMeetsIt) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  const JointVec here = h.supervisor().observedAngles();
  const auto turned = [&](double deg) {
    JointVec q = here;
    q[0] += deg * std::numbers::pi / 180.0;
    return forwardKinematics(puma(), q);
  };
  const ArmConfig config = OpwIk(puma()).configOf(here);
  accept(h, test::request(test::transformDef("first", turned(20.0))));
  accept(h, test::request(test::transformDef("then", turned(40.0))));
  accept(h, test::request(test::positionDef("p_first", config, {"T6"}, {"first"})));
  accept(h, test::request(test::positionDef("p_then", config, {"T6"}, {"then"})));
  accept(h, test::request(test::motionDef("line", true, 2.0, 0.5)));
  accept(h, test::moveRequest("p_first", "line"));
  accept(h, test::moveRequest("p_then", "line"));
  h.runUntil([] { return false; }, 200);
  ASSERT_EQ(h.supervisor().rtstate(), proto::RT_SETP);
  // From 20 to 150 deg the chord passes the axis at r cos 65 deg: inside the offset here.
  accept(h, test::request(test::transformDef("then", turned(150.0))));
  ASSERT_TRUE(h.runUntil([&] { return inState(h, proto::RT_EMGCY); }, 8000));
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_UNREACHABLE);
  EXPECT_EQ(h.supervisor().emergencyNode(), proto::NODE_SUPERVISOR);
  expectSafeStopAndReset(h);
}

// The target of a running move redefined 10 mm away (harness/tracking_scenarios.hpp): the setpoint
// takes the change at no more than the wrist speed limit allows, the joints' following error stays
// of the size the move itself gives, and the arm ends on the new target. Unfiltered, the same update
// makes the setpoint jump by millimetres in one period.
TEST(Controller, ATargetRedefinedMidMoveIsTakenWithoutAJumpOrAFollowingErrorSpike) {
  const StepUpdateFigures f = runStepUpdate(puma(), proto::ControllerSettings{});
  ASSERT_FALSE(f.emergency);
  EXPECT_LE(f.largest_step_mm, f.limit_mm);
  EXPECT_LT(f.following_deg, 0.25);
  EXPECT_LT(f.end_error_mm, 0.1);
  proto::ControllerSettings unfiltered;
  unfiltered.mutable_tracking()->set_filter(false);
  const StepUpdateFigures raw = runStepUpdate(puma(), unfiltered);
  EXPECT_GT(raw.largest_step_mm, 1.0);
  EXPECT_GT(raw.following_deg, 4 * f.following_deg);
}

// An object on a 20 mm circle updated at 200 Hz: one tracking move keeps the arm on it within
// half a millimetre; short moves queued one after another, as before tracking motions, trail it
// by millimetres.
TEST(Controller, ATrackingMoveKeepsTheArmOnAnObjectGoingRoundACircle) {
  const CircleFigures track = runCircle(puma(), proto::ControllerSettings{}, CircleMethod::kTrack, 4.0);
  ASSERT_FALSE(track.emergency);
  EXPECT_LT(track.trail_p99_mm, 0.5);
  const CircleFigures segments = runCircle(puma(), proto::ControllerSettings{}, CircleMethod::kSegments, 4.0);
  ASSERT_FALSE(segments.emergency);
  EXPECT_GT(segments.trail_p50_mm, 1.0);
}

TEST(Controller, UnreachableTargetIsRefusedBeforeTheArmMoves) {
  Harness h(puma(), proto::ControllerSettings{});
  calibrate(h);
  accept(h, test::request(test::transformDef("far", trans(0.6, 0.0, 0.1))));
  accept(h, test::request(test::positionDef("p_far", {true, false, true}, {"T6"}, {"far"})));
  accept(h, test::request(test::motionDef("m", false, 2.0, 0.2)));
  h.runUntil([] { return false; }, 1000);  // settled in HOLD
  const JointVec before = h.arm().q();
  const proto::TaskReply r = h.request(test::moveRequest("p_far", "m"));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.code(), proto::RC_UNREACHABLE) << r.reason();
  EXPECT_EQ(h.supervisor().trajectory().queued(), 0);
  h.runUntil([] { return false; }, 500);
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_HOLD);
  EXPECT_LT((h.arm().q() - before).cwiseAbs().maxCoeff(), 2e-4);  // holding, not moving
}

std::string runFingerprint() {
  Harness h(puma(), proto::ControllerSettings{});
  std::string all;
  h.on_period = [&](const PeriodMail& m) {
    std::string s;
    m.smail->SerializeToString(&s);
    all += s;
    m.mmail->SerializeToString(&s);
    all += s;
    m.parcel->SerializeToString(&s);
    all += s;
    m.sensors->SerializeToString(&s);
    all += s;
    for (int i = 0; i < kJoints; ++i) {
      m.jmail[static_cast<std::size_t>(i)]->SerializeToString(&s);
      all += s;
      m.torque[static_cast<std::size_t>(i)]->SerializeToString(&s);
      all += s;
    }
  };
  const RunSummary summary = runTask(h, parseTaskFile(kExampleTask, "example"), RunOptions{});
  EXPECT_TRUE(summary.succeeded());
  return all;
}

TEST(Controller, TheSameTaskTwiceGivesIdenticalMailboxes) {
  const std::string first = runFingerprint(), second = runFingerprint();
  EXPECT_GT(first.size(), 1000000u);
  EXPECT_TRUE(first == second);
}

}  // namespace
}  // namespace rfms
