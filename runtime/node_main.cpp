#include "runtime/node_main.hpp"

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "runtime/node_end.hpp"

namespace rfms {

int NodeContext::ended(proto::Node node, proto::NodeEnd::Cause cause, std::uint64_t period, const std::string& detail,
                       int code) const {
  proto::NodeEnd end;
  end.set_node(node);
  end.set_cause(cause);
  end.set_period(period);
  end.set_detail(detail);
  return ended(end, code);
}

NodePort::NodePort(NodeContext& c, std::unique_ptr<MailPort> port)
    : c_(c), port_(std::move(port)), watch_(std::make_unique<MailFaultWatch>(*port_, c.log)) {
  port_->setLimits(&*c.limits);
  c_.port = port_.get();
  c_.watch = watch_.get();
}

NodePort::~NodePort() {
  c_.port = nullptr;
  c_.watch = nullptr;
}

NodePort NodeContext::openPort(proto::Node node, Transport& transport) {
  return NodePort(*this, openMailPort(settings, node, options.run_dir, transport, log));
}

int NodeContext::ended(const proto::NodeEnd& end, int code) const {
  proto::NodeEnd whole = end;
  if (port != nullptr) {
    watch->report();  // what came since its last look
    if (const proto::MailFaults f = mailFaultsOf(*port); f.ByteSizeLong() > 0) *whole.mutable_mail() = f;
  }
  if (const std::string why = writeNodeEnd(options.run_dir, name, whole); !why.empty())
    log.warn("how this node ended is not in the run directory: {}", why);
  return code;
}

int runNode(int argc, char** argv, CLI::App& app, const std::function<std::string()>& name, int priority_offset,
            const std::function<int(NodeContext&)>& body) {
  NodeOptions options;
  addNodeOptions(app, options);
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  auto log = makeNodeLogger(name());
  installStopSignals();
  const int code = guardedMain(
      [&] {
        NodeContext c{loadClusterConfig(options.config, options.run_dir),
                      RobotModel{},
                      Scene{},
                      *log,
                      options,
                      name(),
                      std::nullopt,
                      nullptr,
                      nullptr};
        if (!c.settings.config.scene().empty()) c.scene = loadScene(c.settings.config.scene());
        c.model = withTool(loadRobotModel(c.settings.config.robot()), c.scene.tool);
        c.limits.emplace(c.model);
        applyRealtimeSettings(c.settings, *log, priority_offset);
        return body(c);
      },
      [&](const std::string& message) { log->error("{}", message); });
  spdlog::shutdown();  // writes what the logger's thread still holds
  return code;
}

}  // namespace rfms
