// rfms-math: the math server as a cluster node (math_node/shell/math_shell.hpp).
#include "math_node/math_core.hpp"
#include "math_node/shell/math_shell.hpp"
#include "node/node_main.hpp"
#include "node/start_handshake.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-math: the math server of the RFMS cluster (dynamics and Jacobians, PARCELs)"};
  return runNode(
      argc, argv, app, [] { return std::string("math"); }, 0,
      [](NodeContext& c) {
        const ClusterSettings& s = c.settings;
        MathCore math(c.model, mathConfigFor(c.model, c.controller(), c.scene.tool.frame));
        Transport transport(s, "math", c.log);
        zmq::socket_t sub = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicMMail, kTopicControl});
        zmq::socket_t push = transport.connectPush(s.config.supervisor_pull());
        const StartResult start = awaitStart(proto::NODE_MATH, s, sub, push, nullptr, nullptr, transport, c.log);
        if (start == StartResult::kRefused) return 2;
        if (start == StartResult::kStopped) return 0;
        c.log.info("ready");
        MathShell shell(math, std::chrono::milliseconds(s.config.orphan_timeout_ms()), sub, push);
        switch (shell.run()) {
          case MathShell::Ended::kStopMail:
            c.log.info("stop: {} ({} parcels sent)", shell.stopReason(), shell.answered());
            return 0;
          case MathShell::Ended::kSupervisorGone:
            c.log.error("the supervisor has been silent for {} s (orphan_timeout_ms) since period {}; exiting",
                        shell.orphanSeconds(), shell.lastPeriod());
            return 3;
          default: c.log.info("stopped by signal ({} parcels sent)", shell.answered()); return 0;
        }
      });
}
