// rfms-joint --joint N: one joint server as a cluster node (joint_node/shell/joint_shell.hpp).
#include "common/number_text.hpp"
#include "joint_node/joint_core.hpp"
#include "joint_node/shell/joint_shell.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_main.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/transport.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-joint: one joint server of the RFMS cluster (PIK setpoint, servo)"};
  int joint = 0;
  app.add_option("--joint", joint, "joint number, 1..6")->required()->check(CLI::Range(1, 6));
  return runNode(
      argc, argv, app, [&] { return "joint" + std::to_string(joint); }, 0,
      [&](NodeContext& c) {
        const ClusterSettings& s = c.settings;
        JointCore core(c.model, jointConfigFor(c.model, c.controller(), joint));
        const auto node = static_cast<proto::Node>(proto::NODE_JOINT1 + joint - 1);
        Transport transport(s, "joint" + std::to_string(joint), c.log);
        const NodePort port = c.openPort(node, transport);
        std::string refusal;
        const StartResult start = awaitStart(node, s, *port, c.log, &refusal);
        if (start == StartResult::kRefused) return c.ended(node, proto::NodeEnd::REFUSED, 0, refusal, 2);
        if (start == StartResult::kStopped) return c.ended(node, proto::NodeEnd::NOT_STARTED, 0, "", 0);
        c.log.info("ready; mail over {}", port->describe());
        JointShell shell(core, joint, ClockRules(s.config.clock()),
                         std::chrono::milliseconds(s.config.orphan_timeout_ms()), *port);
        const std::unique_ptr<FaultRecorder> recorder = openFaultRecorder(c, "joint" + std::to_string(joint));
        shell.setFaultRecorder(recorder.get());
        switch (shell.run()) {
          case LoopEnd::kStopMail:
            c.log.info("stop: {}", shell.stopReason());
            return c.ended(node, proto::NodeEnd::STOPPED, shell.lastPeriod(), shell.stopReason(), 0);
          case LoopEnd::kSupervisorGone:
            c.log.error(
                "the supervisor has been silent for {} s (orphan_timeout_ms): no torque command since period {}; "
                "exiting",
                shell.orphanSeconds(), shell.lastPeriod());
            return c.ended(node, proto::NodeEnd::SUPERVISOR_SILENT, shell.lastPeriod(),
                           "silent for " + numberText(shell.orphanSeconds()) + " s", 3);
          default:
            c.log.info("stopped by signal");
            return c.ended(node, proto::NodeEnd::SIGNAL, shell.lastPeriod(), "", 0);
        }
      });
}
