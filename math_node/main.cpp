// rfms-math: the math server as a cluster node. For every M_MAIL it answers with the PARCEL of
// the joint the mail names, from its background results.
#include <CLI/CLI.hpp>

#include "common/error.hpp"
#include "common/node_shell.hpp"
#include "common/robot_model_loader.hpp"
#include "math_node/math_core.hpp"
#include "sim/node_configs.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  auto log = makeNodeLogger("math");
  CLI::App app{"rfms-math: the math server of the RFMS cluster (dynamics and Jacobians, PARCELs)"};
  NodeOptions options;
  addNodeOptions(app, options);
  CLI11_PARSE(app, argc, argv);
  installStopSignals();
  try {
    const ClusterSettings s = loadClusterConfig(options.config, options.run_dir);
    const RobotModel model = loadRobotModel(s.config.robot());
    applyRealtimeSettings(s, *log);
    HarnessConfig settings;
    settings.dt = s.config.dt_ms() * 1e-3;
    MathCore math(model, mathConfigFor(model, settings));

    Transport transport;
    zmq::socket_t sub = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicMMail, kTopicControl});
    zmq::socket_t push = transport.connectPush(s.config.supervisor_pull());
    const StartResult start = awaitStart(proto::NODE_MATH, s, sub, push, nullptr, nullptr, *log);
    if (start == StartResult::kRefused) return 2;
    if (start == StartResult::kStopped) return 0;
    log->info("ready");

    proto::Envelope in, out;
    std::string buffer;
    std::uint64_t answered = 0;
    while (!stopRequested()) {
      if (!receive(sub, in, 100)) continue;
      if (in.has_stop()) {
        log->info("stop: {} ({} parcels sent)", in.stop().reason(), answered);
        return 0;
      }
      if (!in.has_mmail()) continue;
      math.step(in.mmail(), *out.mutable_parcel());
      send(push, kTopicControl, out, buffer);
      ++answered;
    }
    log->info("stopped by signal ({} parcels sent)", answered);
    return 0;
  } catch (const rfms::Error& e) {
    log->error("{}", e.what());
    return 2;
  } catch (const zmq::error_t& e) {
    log->error("transport: {}", e.what());
    return 2;
  }
}
