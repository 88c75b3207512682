// rfms-arm: the emulated arm as a cluster node (arm_sim/shell/arm_shell.hpp).
#include "arm_sim/arm_core.hpp"
#include "arm_sim/shell/arm_shell.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_main.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/transport.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-arm: the emulated arm (plant) of the RFMS cluster"};
  return runNode(
      argc, argv, app, [] { return std::string("arm"); }, 0,
      [](NodeContext& c) {
        const ClusterSettings& s = c.settings;
        ArmCore arm(c.model, armConfigFor(c.model, c.controller(), c.scene));
        Transport transport(s, "arm", c.log);
        const NodePort port = c.openPort(proto::NODE_ARM, transport);
        c.log.info("waiting for the supervisor (mail over {})", port->describe());
        std::string refusal;
        const StartResult start = awaitStart(proto::NODE_ARM, s, *port, c.log, &refusal);
        if (start == StartResult::kRefused) return c.ended(proto::NODE_ARM, proto::NodeEnd::REFUSED, 0, refusal, 2);
        if (start == StartResult::kStopped) return c.ended(proto::NODE_ARM, proto::NodeEnd::NOT_STARTED, 0, "", 0);
        c.log.info("ready: {} at {} ms, {}", c.model.name, c.controller().dt_ms(), clockName(s.config.clock()));
        const std::unique_ptr<FaultRecorder> recorder = openFaultRecorder(c, "arm");
        ArmShell shell(arm, s, *port, c.log);
        shell.setFaultRecorder(recorder.get());
        const LoopEnd how = shell.run();
        // Where the arm was left, whatever ended the run.
        proto::NodeEnd end;
        end.set_node(proto::NODE_ARM);
        end.set_period(arm.period());
        end.set_power_on(arm.powered());
        end.set_fastest_joint_rad_s(arm.qd().cwiseAbs().maxCoeff());
        switch (how) {
          case LoopEnd::kSupervisorGone:  // goSafe() said why
            end.set_cause(proto::NodeEnd::SUPERVISOR_SILENT);
            end.set_detail(shell.stopReason());
            return c.ended(end, 3);
          case LoopEnd::kSignal:
            c.log.info("stopped by signal after {} periods ({} torque commands missed); {}", arm.period(),
                       shell.missing(), shell.restText());
            end.set_cause(proto::NodeEnd::SIGNAL);
            return c.ended(end, 0);
          default:
            end.set_cause(proto::NodeEnd::STOPPED);
            end.set_detail(shell.stopReason());
            return c.ended(end, 0);
        }
      });
}
