// The force sensor's reading through the whole controller: from the arm's sensor mail to the
// supervisor's estimate of what the world does to the tool.
#include <gtest/gtest.h>

#include "common/kinematics.hpp"
#include "common/mail_names.hpp"
#include "common/task_file.hpp"
#include "harness/harness.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

TEST(ForceSensing, TheSupervisorSeesTheToolsWeightAndNoContactInTheAir) {
  const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto");
  ASSERT_EQ(scene.sensor, SensorKind::kForceTorque);
  Harness h(test::puma260(), proto::ControllerSettings{}, scene);
  ASSERT_TRUE(test::calibrate(h));
  h.runUntil([] { return false; }, 500);
  const SupervisorCore& s = h.supervisor();
  ASSERT_TRUE(s.sensesForce());
  // The raw reading carries the probe's 0.25 kg: 2.45 N, in T6's axes.
  EXPECT_NEAR(s.sensedWrench().head<3>().norm(), 0.25 * 9.81, 0.3);
  // Less the tool's weight, nothing touches it: within the sensor's noise (0.05 N per channel).
  Vec3 mean = Vec3::Zero();
  const int n = 200;
  for (int k = 0; k < n; ++k) {
    h.step();
    mean += s.contactWrench().head<3>() / n;
  }
  EXPECT_LT(mean.norm(), 0.02) << mean.transpose();
  EXPECT_EQ(s.wrenchSaturated(), 0u);
}

TEST(ForceSensing, WithoutASensorTheSupervisorReportsNone) {
  Harness h(test::puma260(), proto::ControllerSettings{});
  h.runUntil([] { return false; }, 20);
  EXPECT_FALSE(h.supervisor().sensesForce());
  EXPECT_EQ(h.supervisor().contactWrench(), Vec6::Zero());
}

// The default scene's table top is at z = -200 mm; its probe's 5 mm ball touches it when the tool
// point is at -195 mm. The probe leans 30 degrees from vertical (rpy 0 150 0: as low as the model's
// joint ranges let it point here), so the tool point is 52 mm below T6 and 30 mm ahead of it. A
// guarded move from 23 mm above down to 27 mm into the table, at 25 mm/s.
struct Guarded {
  bool completed = false, guarded = false, missed = false, emergency = false;
  Transform contact = Transform::Identity();
  Vec3 tool_at_trip = Vec3::Zero();  // the emulated arm's own tool point then (the truth)
  Vec3 force_at_trip = Vec3::Zero();
  double force_after = 0.0;  // N, 1 s later, the arm held where it met the force
};

// `reach` and `touch` name the motions' kinds: a touch of the reach's kind blends out of it.
Guarded guardedTouch(double guard_n, const std::string& scene_file = "table.textproto",
                     const std::string& into_z_mm = "-170", const std::string& reach = "joint",
                     const std::string& touch = "cartesian") {
  const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/" + scene_file);
  Harness h(test::puma260(), proto::ControllerSettings{}, scene);
  EXPECT_TRUE(test::calibrate(h));
  const std::string task =
      "units mm deg\n"
      "transform above rpy 220 -130 -120 0 150 0\n"
      "transform into rpy 220 -130 " +
      into_z_mm +
      " 0 150 0\n"
      "position p_above righty,down,flip T6 = above\n"
      "position p_into righty,down,flip T6 = into\n"
      "motion reach " +
      reach + " 2 0.4\n" + "motion touch " + touch + " 2 0.2 guard " + std::to_string(guard_n) + "\n";
  for (const TaskStatement& st : parseTaskFile(task, "guarded"))
    EXPECT_TRUE(h.request(st.request).accepted()) << st.line;
  proto::TaskRequest m;
  m.mutable_move()->set_position("p_above");
  m.mutable_move()->set_motion("reach");
  EXPECT_TRUE(h.request(m).accepted());
  m.mutable_move()->set_position("p_into");
  m.mutable_move()->set_motion("touch");
  const std::uint64_t id = h.request(m).move_id();
  Guarded g;
  h.on_period = [&](const PeriodMail& mail) {
    for (int i = 0; i < mail.supervisor->event_count; ++i) {
      const SupervisorEvent& e = mail.supervisor->events[static_cast<std::size_t>(i)];
      if (e.move_id != id) continue;
      g.completed |= e.kind == SupervisorEvent::kMoveCompleted;
      g.missed |= e.guard_missed;
      if (e.guarded) {
        g.guarded = true;
        g.contact = e.contact_pose;
        g.tool_at_trip = h.arm().toolPose().translation();
        g.force_at_trip = e.contact_force;
      }
    }
  };
  h.runUntil([&] { return g.completed || h.supervisor().rtstate() == proto::RT_EMGCY; }, 20000);
  h.runUntil([] { return false; }, 1000);
  g.emergency = h.supervisor().rtstate() == proto::RT_EMGCY;
  g.force_after = h.supervisor().contactWrench().head<3>().norm();
  return g;
}

TEST(GuardedMove, StopsWhereTheProbeMeetsTheTableAndReportsWhere) {
  const Guarded g = guardedTouch(5.0);
  ASSERT_FALSE(g.emergency);
  ASSERT_TRUE(g.completed);
  ASSERT_TRUE(g.guarded);
  // The force that ended it is the guard's, pushing up (the table's on the tool), within a
  // period's growth at 20 mm/s into 50 N/mm.
  EXPECT_GE(g.force_at_trip.norm(), 5.0);
  EXPECT_LT(g.force_at_trip.norm(), 7.0);
  EXPECT_GT(g.force_at_trip.z(), 0.9 * g.force_at_trip.norm());
  // Where: the tool point at the table's top plus the ball, a few tenths of a millimetre in.
  EXPECT_NEAR(g.contact.translation().z(), -0.195, 0.0005);
  EXPECT_NEAR(g.contact.translation().x(), 0.250, 0.001);
  // Held where it met the force, the arm does not push on: the position servo is far softer than
  // the table, and the reference stands where the contact was light.
  EXPECT_LT(g.force_after, 5.0);
  RecordProperty("force_after_n", std::to_string(g.force_after));
}

// On the compliant wrist the tool sits where its springs let it: the contact point reported is
// the deflected tool's, the ball's centre on the table top plus its radius. (Taken from the
// flange's pose alone, it was up to 0.74 mm off.)
TEST(GuardedMove, OnTheWristTheContactPointIsTheDeflectedTools) {
  const Guarded g = guardedTouch(5.0, "wrist_table.textproto");
  ASSERT_TRUE(g.guarded);
  EXPECT_NEAR(g.contact.translation().z(), -0.195, 0.0002);
  // Read through the potentiometers and the linkage, against where the emulated arm has the tool:
  // within what the ball moves in a period (25 um at 25 mm/s) and the readings' noise.
  EXPECT_LT((g.contact.translation() - g.tool_at_trip).norm(), 0.00005)
      << 1e3 * g.contact.translation().transpose() << " mm against " << 1e3 * g.tool_at_trip.transpose();
  RecordProperty("contact_z_mm", std::to_string(1e3 * g.contact.translation().z()));
  RecordProperty("off_truth_mm", std::to_string(1e3 * (g.contact.translation() - g.tool_at_trip).norm()));
}

// A guarded move that ends where its path ends has found nothing to touch: it is flagged, and a
// task's run counts it as failed.
TEST(GuardedMove, OneThatNeverTouchesIsFlagged) {
  const Guarded g = guardedTouch(5.0, "table.textproto", "-130");  // its path ends 13 mm above the table
  ASSERT_TRUE(g.completed);
  EXPECT_FALSE(g.guarded);
  EXPECT_TRUE(g.missed);
  EXPECT_TRUE(guardedTouch(5.0).guarded);
  EXPECT_FALSE(guardedTouch(5.0).missed);
}

// Issue 57: a guarded move that starts by blending out of the move before it (both joint moves,
// or both Cartesian) was reported completed when it touched nothing, since at its start the
// generator's current move was still the other one, whose guard is none.
TEST(GuardedMove, OneThatBlendsOutOfTheMoveBeforeAndNeverTouchesIsFlaggedToo) {
  for (const std::string kind : {"joint", "cartesian"}) {
    const Guarded g = guardedTouch(5.0, "table.textproto", "-130", kind, kind);
    ASSERT_TRUE(g.completed) << kind;
    EXPECT_FALSE(g.guarded) << kind;
    EXPECT_TRUE(g.missed) << kind << ": a guarded move that blended in and touched nothing";
  }
}

TEST(GuardedMove, AGuardIsRefusedWithoutASensorOrAboveTheForceLimit) {
  Harness bare(test::puma260(), proto::ControllerSettings{});
  proto::TaskRequest r = parseTaskFile("motion m cartesian 2 0.2 guard 5\n", "t").front().request;
  const proto::TaskReply none = bare.request(r);
  EXPECT_FALSE(none.accepted());
  EXPECT_EQ(none.code(), proto::RC_SCENE_LACKS) << none.reason();
  Harness sensed(test::puma260(), proto::ControllerSettings{},
                 loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto"));
  r.mutable_motion()->set_guard_n(80.0);
  const proto::TaskReply over = sensed.request(r);
  EXPECT_FALSE(over.accepted());
  EXPECT_EQ(over.code(), proto::RC_INVALID) << over.reason();
  EXPECT_NE(over.reason().find("force limit"), std::string::npos) << over.reason();
  r.mutable_motion()->set_guard_n(5.0);
  EXPECT_TRUE(sensed.request(r).accepted());
}

TEST(ForceLimit, PressingHarderThanTheLimitIsAnEmergencyNamingTheForce) {
  // An unguarded move 27 mm into the table: the contact force passes 60 N within a millimetre or two.
  const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto");
  Harness h(test::puma260(), proto::ControllerSettings{}, scene);
  ASSERT_TRUE(test::calibrate(h));
  for (const TaskStatement& st : parseTaskFile("units mm deg\n"
                                               "transform above rpy 220 -130 -120 0 150 0\n"
                                               "transform into rpy 220 -130 -170 0 150 0\n"
                                               "position p_above righty,down,flip T6 = above\n"
                                               "position p_into righty,down,flip T6 = into\n"
                                               "motion reach joint 2 0.4\n"
                                               "motion push cartesian 2 0.2\n"
                                               "move p_above reach\n"
                                               "move p_into push\n",
                                               "push"))
    ASSERT_TRUE(h.request(st.request).accepted()) << st.line;
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_EMGCY; }, 20000));
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_FORCE_LIMIT);
  EXPECT_EQ(h.supervisor().emergencyNode(), proto::NODE_ARM);
  EXPECT_STREQ(describe(proto::ER_FORCE_LIMIT), "contact force above its limit (force sensor)");
}

}  // namespace
}  // namespace rfms
