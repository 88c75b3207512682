// A press on the default table through the whole controller (harness: supervisor, math server,
// six joints, the emulated arm with a scene's probe, sensor and table): the force tests' common
// task. A guarded move finds the table (or the press starts 23 mm above it), then a motion of the
// test's runs from there towards a point 27 mm into the table.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <numeric>
#include <string>

#include "common/kinematics.hpp"
#include "common/task_file.hpp"
#include "harness/harness.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/test_models.hpp"

namespace rfms::test {

// The probe leans 30 degrees (rpy 0 150 0); its ball touches the default table when T6 is about
// 143 mm below the shoulder. `above` is 23 mm clear of it, `below` 27 mm into it: where the paths aim.
constexpr const char* kPlaces =
    "units mm deg N\n"
    "transform above rpy 220 -126.24 -120 0 150 0\n"
    "transform below rpy 220 -126.24 -170 0 150 0\n"
    "position p_above righty,down,flip T6 = above\n"
    "position p_below righty,down,flip T6 = below\n"
    "motion reach joint 2 0.4\n"
    "motion touch cartesian 2 0.2 guard 2\n";

struct Contact {
  bool completed = false, emergency = false;
  double force = 0.0;        // N: the mean upward contact force over the move's last 0.5 s
  double lateral_mm = 0.0;   // the tool point's x-y distance from the path's at the end
  double height_mm = 0.0;    // the tool point's height above the path's, mean over the same 0.5 s
  bool has_figures = false;  // the move ended with its force figures
  ForceFigures figures;
  std::string refused, warning;     // the press move's reply
  JointVec end = JointVec::Zero();  // the joints' angles as the press move ended
  proto::EmergencyReason reason = proto::ER_NONE;
  std::string axis;                        // the emergency's axis, as the summary names it ("z", "tool z"; "": none)
  std::uint64_t started = 0, stopped = 0;  // periods: the press began; it ended or the emergency came
};

// Finds the table with a guarded move (or, without `touch_first`, starts from 23 mm above it), then
// runs `motion` (defined by the line, named "m") from there towards p_below.
inline Contact pressWith(const std::string& motion, bool touch_first = true,
                         const std::string& scene_file = "table.textproto",
                         const proto::ControllerSettings& settings = {}) {
  const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/" + scene_file);
  Harness h(test::puma260(), settings, scene);
  EXPECT_TRUE(test::calibrate(h));
  const std::string moves = touch_first ? "move p_above reach\nmove p_below touch\n" : "move p_above reach\n";
  for (const TaskStatement& st : parseTaskFile(std::string(kPlaces) + motion + "\n" + moves, "press")) {
    const proto::TaskReply r = h.request(st.request);
    EXPECT_TRUE(r.accepted()) << st.line << ": " << r.reason();
  }
  proto::TaskRequest m;
  m.mutable_move()->set_position("p_below");
  m.mutable_move()->set_motion("m");
  Contact c;
  const proto::TaskReply reply = h.request(m);
  c.refused = reply.reason();
  c.warning = reply.warning();
  const std::uint64_t id = reply.move_id();
  if (id == 0) return c;
  std::deque<double> recent, heights;
  const SupervisorCore& s = h.supervisor();
  const Transform& tool = scene.tool.frame;
  h.on_period = [&](const PeriodMail& mail) {
    if (c.started == 0 && s.trajectory().currentMove() == id) c.started = mail.k;
    if (c.stopped == 0 && c.started != 0 && (s.trajectory().currentMove() != id || s.rtstate() == proto::RT_EMGCY))
      c.stopped = mail.k;
    if (s.trajectory().currentMove() == id) {
      recent.push_back(s.contactWrench()[2]);
      if (recent.size() > 500) recent.pop_front();
      const Transform at = forwardKinematics(h.model(), s.observedAngles()) * tool;
      const Transform path = s.trajectory().pose() * tool;
      c.lateral_mm = 1e3 * (at.translation() - path.translation()).head<2>().norm();
      heights.push_back(1e3 * (at.translation().z() - path.translation().z()));
      if (heights.size() > 500) heights.pop_front();
    }
    for (int i = 0; i < mail.supervisor->event_count; ++i) {
      const SupervisorEvent& e = mail.supervisor->events[static_cast<std::size_t>(i)];
      if (e.kind == SupervisorEvent::kEmergency) c.axis = forceAxisName(e.axis, e.axis_in_tool);
      if (e.move_id != id || e.kind != SupervisorEvent::kMoveCompleted) continue;
      c.completed = true;
      c.has_figures = e.has_force;
      c.figures = e.force;
      c.end = s.observedAngles();
    }
  };
  h.runUntil([&] { return c.completed || s.rtstate() == proto::RT_EMGCY; }, 30000);
  c.emergency = s.rtstate() == proto::RT_EMGCY;
  c.reason = s.emergencyReason();
  if (!recent.empty())
    c.force = std::accumulate(recent.begin(), recent.end(), 0.0) / static_cast<double>(recent.size());
  if (!heights.empty())
    c.height_mm = std::accumulate(heights.begin(), heights.end(), 0.0) / static_cast<double>(heights.size());
  return c;
}

}  // namespace rfms::test
