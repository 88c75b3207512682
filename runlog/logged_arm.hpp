// The arm a log's run drove, from the log's header: the robot model file's model (without the
// tool) and the scene (empty when the run had none). What a re-run, a plot and the log's own
// pictures of the arm are built from.
#pragma once

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "runlog/mcap_writer.hpp"

namespace rfms {

struct LoggedArm {
  RobotModel model;
  Scene scene;
};

// A ConfigError when the header lacks the robot model or holds one, or a scene, that does not load.
LoggedArm armOfHeader(const mcap::KeyValues& header);

}  // namespace rfms
