// A.1's deflection compensation on the whole arm (Eq. 15): a 1 kg tool on a compliant wrist of
// K = 4000 N/m sags 2.45 mm under its weight. A stationary move at the manual's home with
// `compensate K1` moves the flange back by K1 of the measured deflection, so that the tool point
// is off the path by (1 - K1) of it: X/F = (1 - K1) / K.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/task_file.hpp"
#include "common/text_proto.hpp"
#include "harness/harness.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

Scene heavyToolOnAWrist() {
  proto::Scene p;
  parseTextProto(
      "tool { mass_kg: 1 com_m { z: 0.03 } inertia_kgm2 { xx: 4e-4 yy: 4e-4 zz: 8e-5 } tip_m { z: 0.06 } }\n"
      "sensor { compliant_wrist { stiffness_n_per_m: 4000 damping_n_s_per_m: 100 damping_nm_s_per_rad: 0.05 } }",
      p, "heavy tool");
  return sceneFromProto(p, "heavy tool");
}

struct Held {
  bool ok = false;
  double off_path_mm = 0.0;  // the tool point's distance from the path's over the move's last second, mean
  double sag_mm = 0.0;       // the wrist's deflection as read then, mean
};

Held holdWith(const std::string& compensate) {
  const Scene scene = heavyToolOnAWrist();
  Harness h(test::puma260(), proto::ControllerSettings{}, scene);
  EXPECT_TRUE(test::calibrate(h));
  const std::string task =
      "units mm deg\ntransform t2 trans 203.2 -126.23 203.2\n"
      "position home righty,down,flip T6 = t2 TL T6\nmotion reach joint 2 0.2\n"
      "motion hold cartesian 4 0.5" +
      compensate + "\nmove home reach\n";
  for (const TaskStatement& st : parseTaskFile(task, "hold")) {
    const proto::TaskReply r = h.request(st.request);
    EXPECT_TRUE(r.accepted()) << st.line << ": " << r.reason();
  }
  const SupervisorCore& s = h.supervisor();
  EXPECT_TRUE(h.runUntil([&] { return s.trajectory().currentMove() != 0; }, 100));
  EXPECT_TRUE(h.runUntil([&] { return s.trajectory().currentMove() == 0; }, 10000));
  proto::TaskRequest m;
  m.mutable_move()->set_position("home");
  m.mutable_move()->set_motion("hold");
  const std::uint64_t id = h.request(m).move_id();
  EXPECT_NE(id, 0u);
  Held held;
  std::vector<double> off, sag;
  bool ended = false;
  h.on_period = [&](const PeriodMail& mail) {
    if (s.trajectory().currentMove() == id && s.trajectory().state() != proto::TS_S0) {
      const Vec3 path = (s.trajectory().pose() * scene.tool.frame).translation();
      off.push_back(1e3 * (h.arm().toolPose().translation() - path).norm());
      sag.push_back(1e3 * h.arm().wristLoad().deflection.head<3>().norm());
    }
    for (int i = 0; i < mail.supervisor->event_count; ++i) {
      const SupervisorEvent& e = mail.supervisor->events[static_cast<std::size_t>(i)];
      if (e.move_id == id && e.kind == SupervisorEvent::kMoveCompleted) ended = true;
    }
  };
  h.runUntil([&] { return ended || s.rtstate() == proto::RT_EMGCY; }, 10000);
  held.ok = ended && off.size() > 1000;
  if (!held.ok) return held;
  // The move's last second: the arm at rest on the path's end.
  held.off_path_mm = std::accumulate(off.end() - 1000, off.end(), 0.0) / 1000.0;
  held.sag_mm = std::accumulate(sag.end() - 1000, sag.end(), 0.0) / 1000.0;
  return held;
}

TEST(DeflectionCompensation, TakesBackK1OfTheWristsSagUnderTheToolsWeight) {
  const double sag_mm = 1e3 * 9.81 / 4000.0;  // 2.45 mm
  const Held none = holdWith(""), half = holdWith(" compensate 0.5"), all = holdWith(" compensate 1");
  for (const Held* held : {&none, &half, &all}) {
    ASSERT_TRUE(held->ok);
    EXPECT_NEAR(held->sag_mm, sag_mm, 0.05);  // the wrist carries the tool's weight whatever K1
  }
  EXPECT_NEAR(none.off_path_mm, sag_mm, 0.1);
  EXPECT_NEAR(half.off_path_mm, 0.5 * sag_mm, 0.1);
  EXPECT_LT(all.off_path_mm, 0.1);
  RecordProperty("off_path_mm_k0", std::to_string(none.off_path_mm));
  RecordProperty("off_path_mm_k05", std::to_string(half.off_path_mm));
  RecordProperty("off_path_mm_k1", std::to_string(all.off_path_mm));
}

// Compensation needs the wrist it reads, is a gain of 0 .. 1, and is for position control: each
// refusal says so and defines nothing.
TEST(DeflectionCompensation, IsRefusedWithoutAWristOutOfRangeOrUnderForceControl) {
  const auto refusal = [](const Scene& scene, const std::string& line) {
    Harness h(test::puma260(), proto::ControllerSettings{}, scene);
    const std::vector<TaskStatement> st = parseTaskFile(line, "motion");
    const proto::TaskReply r = h.request(st.at(0).request);
    EXPECT_FALSE(h.world().findMotion("m") >= 0) << line;
    return r.accepted() ? std::string("accepted") : r.reason();
  };
  const Scene table = loadScene(std::string(RFMS_SCENES_DIR) + "/table.textproto");
  EXPECT_EQ(refusal(table, "motion m cartesian 3 0.5 compensate 1"),
            "motion 'm': deflection compensation needs a compliant wrist, and the scene has none");
  const Scene wrist = heavyToolOnAWrist();
  EXPECT_EQ(refusal(wrist, "motion m cartesian 3 0.5 compensate 1.5"),
            "motion 'm': compensation (K1) must be 0 .. 1 (1 takes back all of the wrist's deflection)");
  EXPECT_EQ(refusal(wrist, "motion m cartesian 3 0.5 compensate 1 force z -5"),
            "motion 'm': compensation is for position-controlled motions; under force control the wrist's deflection "
            "is the force");
  EXPECT_THROW(parseTaskFile("motion m cartesian 3 0.5 compensate", "t"), ConfigError);
  EXPECT_THROW(parseTaskFile("motion m cartesian 3 0.5 compensate 1 compensate 1", "t"), ConfigError);
}

}  // namespace
}  // namespace rfms
