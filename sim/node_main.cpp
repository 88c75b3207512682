#include "sim/node_main.hpp"

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"

namespace rfms {

int runNode(int argc, char** argv, CLI::App& app, const std::function<std::string()>& name, int priority_offset,
            const std::function<int(NodeContext&)>& body) {
  NodeOptions options;
  addNodeOptions(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto log = makeNodeLogger(name());
  installStopSignals();
  try {
    NodeContext c{loadClusterConfig(options.config, options.run_dir), RobotModel{}, HarnessConfig{}, *log, options};
    c.model = loadRobotModel(c.settings.config.robot());
    c.controller.dt = c.settings.config.dt_ms() * 1e-3;
    c.controller.update_periods = static_cast<int>(c.settings.config.update_periods());
    c.controller.pik = *parsePikScheme(c.settings.config.pik());
    c.controller.watchdog_periods = static_cast<int>(c.settings.config.watchdog_periods());
    c.controller.seed = c.settings.config.seed();
    applyRealtimeSettings(c.settings, *log, priority_offset);
    return body(c);
  } catch (const rfms::Error& e) {
    log->error("{}", e.what());
    return 2;
  } catch (const zmq::error_t& e) {
    log->error("transport: {}", e.what());
    return 2;
  }
}

}  // namespace rfms
