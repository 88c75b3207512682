// The part every node process's main() shares: command line, logger, stop signals, the cluster
// configuration and robot model, real-time settings, and one clear line with exit code 2 when any
// of it is wrong. A node's main adds its own options and passes its loop as `body`; it builds its
// core from `controller()` through the core's own configuration function.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

struct NodeContext {
  ClusterSettings settings;
  RobotModel model;  // with the scene's tool on link 6
  Scene scene;
  spdlog::logger& log;
  const NodeOptions& options;
  const proto::ControllerSettings& controller() const { return settings.config.controller(); }
};

// `name()` is asked after parsing (a joint's name depends on --joint). The supervisor runs with
// priority_offset 1: it is the clock the others answer to.
int runNode(int argc, char** argv, CLI::App& app, const std::function<std::string()>& name, int priority_offset,
            const std::function<int(NodeContext&)>& body);

}  // namespace rfms
