// rfms-bench-tracking: a target that moves, before and after the setpoint filter and tracking
// motions, in one run on the in-process harness (harness/tracking_scenarios.hpp): a 10 mm step update
// in the middle of a move, and an object on a 20 mm circle updated at 200 Hz. "Before" is the
// controller with controller.tracking.filter false and max_lead_ms 0, following the circle with
// short moves queued one after another as the tracking example used to; "after" is the defaults
// and one tracking move. Simulated time, so the figures do not depend on the machine's load.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/controller_settings.hpp"
#include "common/robot_model_loader.hpp"
#include "harness/tracking_scenarios.hpp"

int main(int argc, char** argv) {
  CLI::App app{"rfms-bench-tracking: a step update and a moving circle, before and after the setpoint filter"};
  std::string model_file = RFMS_DEFAULT_ROBOT;
  double seconds = 8.0;
  app.add_option("--model", model_file, "robot model file")->capture_default_str();
  app.add_option("--seconds", seconds, "simulated seconds on the circle")
      ->capture_default_str()
      ->check(CLI::Range(2.0, 600.0));
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  try {
    const rfms::RobotModel model = rfms::loadRobotModel(model_file);
    rfms::proto::ControllerSettings after, before;
    before.mutable_tracking()->set_filter(false);
    before.mutable_tracking()->set_max_lead_ms(0.0);

    std::printf("step update: the target of a 2 s, 40 mm Cartesian move redefined 10 mm away at 1 s (%s, 1 ms)\n",
                model.name.c_str());
    std::printf("  %-30s %22s %22s %26s %12s\n", "", "setpoint step, mm/period", "  (in the 0.5 s before)",
                "following error, deg", "end, mm");
    bool failed = false;
    for (const auto& [name, s] : {std::pair{"before (unfiltered)", before}, std::pair{"after (filtered)", after}}) {
      const rfms::StepUpdateFigures f = rfms::runStepUpdate(model, s);
      failed |= f.emergency;
      std::printf("  %-30s %22.3f %22.3f %14.3f (joint %d) vs %.3f %12.3f%s\n", name, f.largest_step_mm,
                  f.largest_step_before_mm, f.following_deg, f.following_joint, f.following_before_deg, f.end_error_mm,
                  f.emergency ? "  EMERGENCY" : "");
    }
    std::printf("  the wrist speed limit allows %.3f mm/period (controller.tracking.wrist_speed_mm_s %.0f)\n",
                after.tracking().wrist_speed_mm_s() * 1e-3, after.tracking().wrist_speed_mm_s());

    std::printf("circle: an object on a 20 mm circle in 4 s, updated at 200 Hz, followed for %.0f s\n", seconds);
    std::printf("  %-30s %12s %12s %12s %24s\n", "", "trail p50", "p99", "max, mm", "setpoint step, mm/period");
    const struct {
      const char* name;
      const rfms::proto::ControllerSettings* settings;
      rfms::CircleMethod method;
    } circles[] = {{"before (queued segments)", &before, rfms::CircleMethod::kSegments},
                   {"filter only (queued segments)", &after, rfms::CircleMethod::kSegments},
                   {"after (one tracking move)", &after, rfms::CircleMethod::kTrack}};
    for (const auto& c : circles) {
      const rfms::CircleFigures f = rfms::runCircle(model, *c.settings, c.method, seconds);
      failed |= f.emergency;
      std::printf("  %-30s %12.3f %12.3f %12.3f %24.3f%s\n", c.name, f.trail_p50_mm, f.trail_p99_mm, f.trail_max_mm,
                  f.largest_step_mm, f.emergency ? "  EMERGENCY" : "");
    }
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rfms-bench-tracking: %s\n", e.what());
    return 2;
  }
}
