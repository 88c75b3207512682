// rfms-supervisor: the supervisor as a cluster node, and the cluster's clock. It binds the
// endpoints the others connect to, waits until every node is ready (refusing one whose
// configuration disagrees), then runs period after period: lockstep (each period when all mail of
// the previous one is in, or the timeout passed) or realtime (on the wall clock). With --task it
// runs a task file (or --example, the manual's pumatask) from power-up and prints a summary.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include <google/protobuf/text_format.h>
#include <thread>

#include "common/kinematics.hpp"
#include "common/text_file.hpp"
#include "common/mail_codec.hpp"
#include "node/node_main.hpp"
#include "node/start_handshake.hpp"
#include "supervisor/shell/cluster_loop.hpp"
#include "supervisor/task_script.hpp"


int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-supervisor: the supervisor and clock of the RFMS cluster"};
  std::string task_path, digest_path, stats_path;
  bool example = false, json = false;
  double run_for_s = 0.0;
  app.add_option("--task", task_path, "run this task file from power-up, then stop the cluster");
  app.add_flag("--example", example, "run the RFMS manual's example task");
  app.add_flag("--json", json, "print the summary as JSON");
  app.add_option("--mail-digest", digest_path, "write a hash of every mail the supervisor sent and used");
  app.add_option("--run-for-s", run_for_s, "without a task: stop the cluster after this long (0: until a signal)");
  std::string log_path;
  bool no_log = false;
  app.add_option("--log", log_path, "the run log (MCAP; default: run.mcap in the run directory)");
  app.add_flag("--no-log", no_log, "write no run log");
  app.add_option("--stats", stats_path, "write deadline misses, lateness and bytes per period as JSON at the end");
  return runNode(argc, argv, app, [] { return std::string("supervisor"); }, 1, [&](NodeContext& c) {
    const ClusterSettings& s = c.settings;
    const RobotModel& model = c.model;
    const proto::ControllerSettings& settings = c.controller();
    const double dt = sampleSeconds(settings);
    SupervisorCore core(model, supervisorConfigFor(settings));
    std::unique_ptr<TaskScript> script;
    if (example || !task_path.empty()) {
      const auto task = example ? parseTaskFile(kExampleTask, "example task") : loadTaskFile(task_path);
      ScriptOptions so;
      so.settle_periods = static_cast<std::uint64_t>(0.5 / dt);
      so.timeout_periods = static_cast<std::uint64_t>(600.0 / dt);
      so.dt_s = dt;
      script = std::make_unique<TaskScript>(task, so);
    }

    Transport transport;
    zmq::socket_t pub = transport.bindPublisher(s.config.supervisor_pub());
    zmq::socket_t pull = transport.bindPull(s.config.supervisor_pull());
    // The arm's reports of the torques it applied are for the run log only.
    zmq::socket_t arm = no_log ? transport.connectSubscriber(s.config.arm_pub(), {kTopicArm, kTopicControl})
                               : transport.connectSubscriber(s.config.arm_pub(), {kTopicArm, kTopicTorques, kTopicControl});
    if (!waitForNodes(s, pub, pull, arm, c.log)) return stopRequested() ? 0 : 1;

    ClusterLoop loop(s, core, pub, pull, arm, c.log);
    RemoteDesk desk(model, supervisorConfigFor(settings));
    zmq::socket_t tasks;
    if (!s.config.supervisor_tasks().empty()) {
      tasks = transport.bindRouter(s.config.supervisor_tasks());
      loop.setRemoteTasks(&tasks, &desk);
      c.log.info("serving remote tasks on {}", s.config.supervisor_tasks());
    }
    loop.setStatusFile(c.options.run_dir + "/status.txt");
    std::unique_ptr<RunLogger> run_log;
    if (!no_log) {
      RunLogHeader header;
      header.source = "cluster";
      header.robot_name = model.name;
      header.robot_model_text = readTextFile(s.config.robot());
      google::protobuf::TextFormat::PrintToString(s.config, &header.cluster_config_text);
      header.task_text = example ? kExampleTask : task_path.empty() ? "" : readTextFile(task_path);
      header.clock = clockName(s.config.clock());
      header.settings = settings;
      if (log_path.empty()) log_path = c.options.run_dir + "/run.mcap";
      // Only the realtime clock cannot wait for the log's writer; the others lose nothing.
      run_log = std::make_unique<RunLogger>(log_path, header,
                                            waitsForMail(s.config.clock()) ? RunLogger::WhenFull::kWait
                                                                           : RunLogger::WhenFull::kDrop);
      loop.setLog(run_log.get());
      if (script)
        script->on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply& a) {
          logRequest(*run_log, k, r, a);
        };
    }
    if (run_for_s > 0.0) loop.setPeriodLimit(static_cast<std::uint64_t>(run_for_s / dt));
    MailDigest digest;
    loop.run(script.get(), digest_path.empty() ? nullptr : &digest);
    loop.stopCluster(stopRequested() ? "supervisor stopped by signal" : (script ? "task finished" : "run ended"));
    if (run_log) {
      run_log->finish();
      c.log.info("run log {}: {} messages, {} dropped", log_path, run_log->written(), run_log->dropped());
    }
    // Lateness is measured against the wall-clock ticks, which only the realtime clock has.
    if (s.config.clock() == proto::CM_REALTIME) c.log.info("timing:\n{}", loop.statusText());
    if (!stats_path.empty()) std::ofstream(stats_path) << loop.statsJson() << "\n";

    if (!digest_path.empty()) std::ofstream(digest_path) << digest.hex() << "\n";
    if (script) {
      const ScriptLog& l = script->log();
      std::cout << (json ? scriptSummaryJson(l, loop, model) + "\n" : scriptSummaryText(l, loop, model));
      const bool ok = !l.moves.empty() && l.allMovesCompleted() && !l.emergency && !l.timed_out;
      return ok ? 0 : 1;
    }
    return 0;
  });
}
