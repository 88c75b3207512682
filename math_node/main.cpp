// rfms-math: the math server as a cluster node (math_node/shell/math_shell.hpp).
#include "common/number_text.hpp"
#include "math_node/math_core.hpp"
#include "math_node/shell/math_shell.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_main.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/transport.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-math: the math server of the RFMS cluster (dynamics and Jacobians, PARCELs)"};
  return runNode(
      argc, argv, app, [] { return std::string("math"); }, 0,
      [](NodeContext& c) {
        const ClusterSettings& s = c.settings;
        MathCore math(c.model, mathConfigFor(c.model, c.controller(), c.scene.tool.frame));
        Transport transport(s, "math", c.log);
        const NodePort port = c.openPort(proto::NODE_MATH, transport);
        std::string refusal;
        const StartResult start = awaitStart(proto::NODE_MATH, s, *port, c.log, &refusal);
        if (start == StartResult::kRefused) return c.ended(proto::NODE_MATH, proto::NodeEnd::REFUSED, 0, refusal, 2);
        if (start == StartResult::kStopped) return c.ended(proto::NODE_MATH, proto::NodeEnd::NOT_STARTED, 0, "", 0);
        c.log.info("ready; mail over {}", port->describe());
        const std::unique_ptr<FaultRecorder> recorder = openFaultRecorder(c, "math");
        MathShell shell(math, std::chrono::milliseconds(s.config.orphan_timeout_ms()), *port);
        shell.setFaultRecorder(recorder.get());
        switch (shell.run()) {
          case LoopEnd::kStopMail:
            c.log.info("stop: {} ({} parcels sent)", shell.stopReason(), shell.periodsRun());
            return c.ended(proto::NODE_MATH, proto::NodeEnd::STOPPED, shell.lastPeriod(), shell.stopReason(), 0);
          case LoopEnd::kSupervisorGone:
            c.log.error("the supervisor has been silent for {} s (orphan_timeout_ms) since period {}; exiting",
                        shell.orphanSeconds(), shell.lastPeriod());
            return c.ended(proto::NODE_MATH, proto::NodeEnd::SUPERVISOR_SILENT, shell.lastPeriod(),
                           "silent for " + numberText(shell.orphanSeconds()) + " s", 3);
          default:
            c.log.info("stopped by signal ({} parcels sent)", shell.periodsRun());
            return c.ended(proto::NODE_MATH, proto::NodeEnd::SIGNAL, shell.lastPeriod(), "", 0);
        }
      });
}
