// rfms-supervisor: the supervisor as a cluster node, and the cluster's clock. It binds the
// endpoints the others connect to, waits until every node is ready (refusing one whose
// configuration disagrees), then runs period after period (supervisor/shell/cluster_loop.hpp):
// lockstep, paced or realtime. With --task it runs a task file (or --example, the manual's
// pumatask) from power-up and prints a summary.
#include <fstream>
#include <iostream>
#include <memory>

#include "common/text_file.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_main.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/status_writer.hpp"
#include "runtime/transport.hpp"
#include "supervisor/shell/cluster_loop.hpp"
#include "supervisor/task_script.hpp"
#include "supervisor/task_summary.hpp"

namespace {

using namespace rfms;

struct Options {
  std::string task_path, digest_path, stats_path, log_path;
  bool example = false, json = false, no_log = false;
  double run_for_s = 0.0;
};

std::unique_ptr<TaskScript> loadScript(const Options& o, double dt) {
  if (!o.example && o.task_path.empty()) return nullptr;
  const auto task = o.example ? parseTaskFile(kExampleTask, "example task") : loadTaskFile(o.task_path);
  ScriptOptions so;
  so.settle_periods = static_cast<std::uint64_t>(0.5 / dt);
  so.timeout_periods = static_cast<std::uint64_t>(600.0 / dt);
  so.dt_s = dt;
  return std::make_unique<TaskScript>(task, so);
}

// The run log, with every setting needed to run the same controller again in its header.
std::unique_ptr<RunLogger> openRunLog(Options& o, const NodeContext& c) {
  if (o.no_log) return nullptr;
  const ClusterSettings& s = c.settings;
  const RunLogHeader header = clusterLogHeader(c, o.example             ? kExampleTask
                                                  : o.task_path.empty() ? ""
                                                                        : readTextFile(o.task_path));
  if (o.log_path.empty()) o.log_path = c.options.run_dir + "/run.mcap";
  // Only the realtime clock cannot wait for the log's writer; the others lose nothing.
  return std::make_unique<RunLogger>(
      o.log_path, header, waitsForMail(s.config.clock()) ? RunLogger::WhenFull::kWait : RunLogger::WhenFull::kDrop);
}

int runSupervisor(Options& o, NodeContext& c) {
  const ClusterSettings& s = c.settings;
  Supervisor supervisor(c.model, supervisorConfigFor(c.controller(), c.scene));
  std::unique_ptr<TaskScript> script = loadScript(o, sampleSeconds(c.controller()));
  Transport transport(s, "supervisor", c.log);
  const NodePort port = c.openPort(proto::NODE_SUPERVISOR, transport);
  if (!waitForNodes(s, *port, c.log)) return stopRequested() ? 0 : 1;

  std::unique_ptr<RunLogger> run_log = openRunLog(o, c);
  LogTap tap(run_log.get(), s.config.clock());
  const std::unique_ptr<FaultRecorder> recorder = openFaultRecorder(c, "supervisor");
  tap.setFaultRecorder(recorder.get());
  if (script && run_log)
    script->record = [&](const proto::TaskRequest& r, const proto::TaskReply& a) {
      return tap.record(r, a, false, supervisor.background().world());
    };
  ClusterStats stats;
  ClusterLoop loop(s, supervisor, *port, stats, tap, c.log);
  RemoteDesk desk(c.model, supervisorConfigFor(c.controller(), c.scene));
  zmq::socket_t tasks;
  std::unique_ptr<RemotePort> remote;
  if (!s.config.supervisor_tasks().empty()) {
    tasks = transport.bindRouter(s.config.supervisor_tasks());
    remote = std::make_unique<RemotePort>(tasks, desk, tap, c.log);
    loop.setRemotePort(remote.get());
    c.log.info("serving remote tasks on {}", s.config.supervisor_tasks());
  }
  if (o.run_for_s > 0.0) loop.setPeriodLimit(static_cast<std::uint64_t>(o.run_for_s / loop.dt()));
  EventFile events(c.options.run_dir + "/events.jsonl");
  if (!events.ok()) c.log.warn("cannot write {}/events.jsonl: the run goes on without it", c.options.run_dir);
  loop.setEventFile(&events);
  MailDigest digest;
  {
    // The supervisor's own reading of the mailboxes shows there too: mail that was damaged or
    // impossible, and dropped, by box.
    const StatusWriter status(c.options.run_dir + "/status.txt",
                              [&] { return stats.statusText(run_log.get()) + "  " + mailDamageLine(*port) + "\n"; });
    loop.run(script.get(), o.digest_path.empty() ? nullptr : &digest);
    const std::string ended =
        stopRequested() ? "supervisor stopped by signal" : (script ? "task finished" : "run ended");
    loop.stopCluster(ended);
    events.stopped(loop.periods(), ended);
    if (run_log) {
      run_log->finish();
      c.log.info("run log {}: {}", o.log_path, run_log->describe(stats.periods()));
      if (const std::string why = run_log->failure(); !why.empty())
        c.log.error("run log {}: writing stopped ({}); it holds the run up to then", o.log_path, why);
    }
  }
  // Lateness is measured against the wall-clock ticks, which only the realtime clock has.
  if (s.config.clock() == proto::CM_REALTIME) c.log.info("timing:\n{}", stats.statusText(run_log.get()));
  if (!o.stats_path.empty()) std::ofstream(o.stats_path) << stats.json() << "\n";
  if (!o.digest_path.empty()) std::ofstream(o.digest_path) << digest.hex() << "\n";
  const bool log_whole = !run_log || run_log->failure().empty();
  if (!script) return log_whole ? 0 : 1;
  const ScriptLog& l = script->log();
  std::cout << (o.json ? scriptSummaryJson(l, loop, stats, c.model) + "\n"
                       : scriptSummaryText(l, loop, stats, c.model));
  return succeeded(l) && log_whole ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-supervisor: the supervisor and clock of the RFMS cluster"};
  Options o;
  app.add_option("--task", o.task_path, "run this task file from power-up, then stop the cluster");
  app.add_flag("--example", o.example, "run the RFMS manual's example task");
  app.add_flag("--json", o.json, "print the summary as JSON");
  app.add_option("--mail-digest", o.digest_path, "write a hash of every mail the supervisor sent and used");
  app.add_option("--run-for-s", o.run_for_s, "without a task: stop the cluster after this long (0: until a signal)");
  app.add_option("--log", o.log_path, "the run log (MCAP; default: run.mcap in the run directory)");
  app.add_flag("--no-log", o.no_log, "write no run log");
  app.add_option("--stats", o.stats_path, "write deadline misses, lateness and bytes per period as JSON at the end");
  return runNode(
      argc, argv, app, [] { return std::string("supervisor"); }, 1,
      [&](NodeContext& c) { return runSupervisor(o, c); });
}
