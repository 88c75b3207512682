#include "runtime/node_main.hpp"

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"

namespace rfms {

int runNode(int argc, char** argv, CLI::App& app, const std::function<std::string()>& name, int priority_offset,
            const std::function<int(NodeContext&)>& body) {
  NodeOptions options;
  addNodeOptions(app, options);
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  auto log = makeNodeLogger(name());
  installStopSignals();
  const int code = guardedMain(
      [&] {
        NodeContext c{loadClusterConfig(options.config, options.run_dir), RobotModel{}, Scene{}, *log, options};
        if (!c.settings.config.scene().empty()) c.scene = loadScene(c.settings.config.scene());
        c.model = withTool(loadRobotModel(c.settings.config.robot()), c.scene.tool);
        applyRealtimeSettings(c.settings, *log, priority_offset);
        return body(c);
      },
      [&](const std::string& message) { log->error("{}", message); });
  spdlog::shutdown();  // writes what the logger's thread still holds
  return code;
}

}  // namespace rfms
