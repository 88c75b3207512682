// Reads a robot model file (protobuf text format, schema proto/robot_model.proto), converts it to
// SI units and checks it. Configuration time only: throws ConfigError whose message names the
// file, line, column and field at fault, e.g.
//   puma.textproto:41:7: joints[2].drive.rotor_inertia_kgm2 (joint 3): must be >= 0, got -1
#pragma once

#include <string>

#include "common/robot_model.hpp"

namespace rfms {

// Loads and validates a model file.
RobotModel loadRobotModel(const std::string& path);
// Same, from text already in memory; `source` names it in messages.
RobotModel parseRobotModel(const std::string& text, const std::string& source);

// Physical plausibility: the joint-space inertia matrix must be symmetric positive definite at
// every one of `samples` seeded configurations within the joint limits. Throws ConfigError naming
// the first configuration that fails and its smallest eigenvalue.
void checkMassMatrixPositiveDefinite(const RobotModel& model, int samples = 256);

}  // namespace rfms
