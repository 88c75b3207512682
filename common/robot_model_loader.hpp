// Reads a robot model file (protobuf text format, schema proto/robot_model.proto), converts it to
// SI units and checks it. Configuration time only: throws ConfigError whose message names the
// file, line, column and field at fault, e.g.
//   puma.textproto:41:7: joints[2].drive.rotor_inertia_kgm2 (joint 3): must be >= 0, got -1
#pragma once

#include <string>

#include "common/robot_model.hpp"

namespace rfms {

// A shipped model's file for a bare name ("gp7": deploy/robots/gp7.textproto); anything with a
// folder or an extension, or a file that exists, is returned as it is. Throws ConfigError listing
// the shipped names when a bare name is neither.
std::string robotModelPath(const std::string& name_or_path);
// Loads and validates a model file (or a shipped model by name, as robotModelPath).
RobotModel loadRobotModel(const std::string& name_or_path);
// Same, from text already in memory; `source` names it in messages.
RobotModel parseRobotModel(const std::string& text, const std::string& source);

// Physical plausibility: the joint-space inertia matrix must be symmetric positive definite at
// every one of `samples` seeded configurations within the joint limits. Throws ConfigError naming
// the first configuration that fails and its smallest eigenvalue.
void checkMassMatrixPositiveDefinite(const RobotModel& model, int samples = 256);

}  // namespace rfms
