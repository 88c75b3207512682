// Two measured scenarios of a target that moves, run on the in-process harness (deterministic, so
// the same settings give the same figures), shared by the tests that hold the controller to them
// and by rfms-bench-tracking, which prints them before and after.
//
//  - A step update: in the middle of a 2 s Cartesian move of 40 mm, the target's transform is
//    redefined 10 mm away (a sensor's correction).
//  - A circle: an object goes round a 20 mm circle in 4 s and its transform is updated every 5
//    periods (200 Hz at 1 ms), as rfms-example-tracking does over the link; the arm follows a
//    position defined on it.
#pragma once

#include <string>

#include "common/robot_model.hpp"
#include "proto/controller.pb.h"

namespace rfms {

struct StepUpdateFigures {
  double largest_step_mm = 0.0;         // the setpoint's (T6's) largest move in one period after the update
  double largest_step_before_mm = 0.0;  // ... in the same time before it: the move's own pace
  double following_deg = 0.0;           // the largest joint following error after the update
  double following_before_deg = 0.0;    // ... in the same time before it
  int following_joint = 0;              // the joint where it was largest after the update
  double limit_mm = 0.0;                // what the wrist speed limit allows in one period
  double end_error_mm = 0.0;            // the arm's end from the updated target
  bool emergency = false;
};

struct CircleFigures {
  double trail_p50_mm = 0.0, trail_p99_mm = 0.0, trail_max_mm = 0.0;  // the arm (encoders) from the object
  double largest_step_mm = 0.0;  // the setpoint's largest move in one period while following
  bool emergency = false;
};

enum class CircleMethod {
  kSegments,  // the way before tracking motions: short Cartesian moves queued one after another
  kTrack,     // one tracking move
};

StepUpdateFigures runStepUpdate(const RobotModel& model, const proto::ControllerSettings& settings);
CircleFigures runCircle(const RobotModel& model, const proto::ControllerSettings& settings, CircleMethod method,
                        double seconds = 6.0);

}  // namespace rfms
