// rfms-client: tasks and commands for the RFMS controller from any machine that reaches the bridge.
//   rfms-client run TASKFILE | --example     a task file (docs/task-format.md)
//   rfms-client status                       state, pose, moves, link counters
//   rfms-client jog J|[tool] AXIS +|- [counts N | angle A | distance D]   the task file's jog
//   rfms-client calibrate | hold | free | stop | reset | power-off | emergency-stop
//   rfms-client shell                        an operator's session (client/operator_shell.hpp)
//   rfms-client watch [--rate HZ]            the controller's state, live
//   rfms-client watch SIGNAL... [--rate HZ]  named signals sampled by the controller (debug())
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "client/remote_task.hpp"
#include "client/shell_terminal.hpp"
#include "client/task_link.hpp"
#include "common/command_line.hpp"
#include "common/error.hpp"
#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "common/task_file.hpp"

using namespace rfms;

namespace {

std::string mm(const Vec3& p) {
  return std::to_string(p.x() * 1e3) + " " + std::to_string(p.y() * 1e3) + " " + std::to_string(p.z() * 1e3);
}

void printStatus(const ArmStatus& s) {
  std::cout << "period " << s.period << ", state " << nameOf(s.state) << ", trajectory " << nameOf(s.segment)
            << (s.calibrated ? ", calibrated" : ", not calibrated") << "\n";
  if (s.state == ArmState::kEmgcy)
    std::cout << "emergency: " << describe(s.reason) << (s.reason_axis.empty() ? "" : ", along " + s.reason_axis)
              << " (" << nameOf(s.reason_node) << ")\n";
  std::cout << "T6 position (mm): " << mm(s.t6.translation()) << "\n";
  std::cout << "moves: last accepted " << s.last_move_id << ", ended through " << s.ended_through << ", queued "
            << s.moves_queued << (s.task.empty() ? "" : ", task '" + s.task + "'") << "\n";
  if (s.running) {
    const RunningMove& r = *s.running;
    std::cout << "running: move " << r.id << " to " << r.position << " by " << r.motion << ", " << r.elapsed_s << " of "
              << r.duration_s << " s, target T6 (mm) " << mm(r.target.translation()) << "\n";
  }
  if (!s.jog_stopped.empty()) std::cout << "the last jog along an axis stopped short: " << s.jog_stopped << "\n";
  if (s.contact_wrench.size() == 6) {
    const auto& w = s.contact_wrench;
    std::cout << "contact on the tool (N, base axes): " << w[0] << " " << w[1] << " " << w[2]
              << "; moment (N m): " << w[3] << " " << w[4] << " " << w[5]
              << (s.wrench_saturated != 0 ? "; the sensor is at its range" : "") << "\n";
  }
  const LinkCounters& l = s.link;
  std::cout << "link: frames in " << l.frames_in << ", out " << l.frames_out << ", retransmissions "
            << l.retransmissions << ", duplicates " << l.duplicates << ", checksum failures " << l.checksum_failures
            << ", malformed " << l.malformed << ", queue " << l.queue_depth << ", withheld " << l.withheld
            << ", clients " << l.clients << "\n";
  std::cout << "sessions: " << l.handshakes << " opened, " << l.evicted << " evicted, " << l.refused
            << " handshakes refused, " << l.forged << " forged frames, " << l.unknown_sessions
            << " frames of unknown sessions, " << l.refusals_unsent << " refusals not sent (past their rate)\n";
  std::cout << "addresses: " << l.retries_sent << " answers withheld from unproven addresses (RETRY sent), "
            << l.resends_unsent << " resends past a session's rate\n";
  if (l.insecure) std::cout << "WARNING: the bridge runs --insecure: it admits any key\n";
}

// The command line's link options: the bridge, this client's key, retransmission, fault injection.
void addLinkOptions(CLI::App& app, ClientOptions& options, double& timeout_ms) {
  app.add_option("--bridge", options.bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", options.key_file,
                 "this client's key file (deploy/rfms keys); without one, only a bridge started with --insecure "
                 "answers")
      ->envname("RFMS_KEY");
  app.add_option("--link-timeout-ms", timeout_ms, "retransmit after this long without an answer")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 10000.0));
  app.add_option("--tries", options.link.max_tries, "sends of one frame before giving up")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--loss", options.faults.loss, "fault injection on sent datagrams: probability of loss")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--duplicate", options.faults.duplicate, "... of duplication")->check(CLI::Range(0.0, 1.0));
  app.add_option("--reorder", options.faults.reorder, "... of reordering")->check(CLI::Range(0.0, 1.0));
  app.add_option("--corrupt", options.faults.corrupt, "... of corruption")->check(CLI::Range(0.0, 1.0));
  app.add_option("--fault-seed", options.fault_seed, "seed of the fault injection")->capture_default_str();
}

// The subcommands and what each was given. Made once, in place: CLI11 holds its addresses.
struct Commands {
  CLI::App *run, *status, *jog, *shell, *watch, *emergency_stop, *calibrate, *stop, *reset, *power_off, *hold, *free;
  std::vector<std::pair<std::string, CLI::App*>> retired;  // spellings rfms-client once had
  std::string task_path;
  bool example = false, no_calibrate = false;
  std::vector<std::string> jog_words;
  double watch_rate = 4.0, watch_seconds = 0.0;
  std::vector<std::string> watch_signals;

  explicit Commands(CLI::App& app);
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;
  // What the parser cannot say alone; a ConfigError names it.
  void check() const;
  // Commands other than stop that move the arm or change its state: each in a task of its own.
  bool needsTask() const {
    return jog->parsed() || calibrate->parsed() || reset->parsed() || power_off->parsed() || hold->parsed() ||
           free->parsed();
  }
};

Commands::Commands(CLI::App& app) {
  run = app.add_subcommand("run", "run a task file: calibrate if needed, send it, wait for its moves");
  run->add_option("TASKFILE", task_path, "the task file (docs/task-format.md)");
  run->add_flag("--example", example, "the RFMS manual's example task (pumatask)");
  run->add_flag("--no-calibrate", no_calibrate, "do not calibrate first");
  status = app.add_subcommand("status", "print the controller's state, pose, moves and link counters");
  jog = app.add_subcommand(
      "jog",
      "jog a joint (MANU; encoder counts before calibration) or the wrist along an axis, written as the task "
      "file's jog in millimetres and degrees: 'jog 2 +' on until hold or stop, 'jog 2 + counts 400', "
      "'jog 3 - angle 5', 'jog tool z - distance 3' one step, then it holds");
  jog->add_option("WORDS", jog_words, "J|[tool] AXIS +|- [counts N | angle A | distance D]")->required();
  shell = app.add_subcommand("shell", "an operator's session at this terminal: commands, task lines, live state");
  watch = app.add_subcommand(
      "watch",
      "the controller's state, live: one line, refreshed in place (a line a sample when not a terminal); with "
      "SIGNALs, those signals as the controller samples them, a line a sample");
  watch->add_option("signals", watch_signals,
                    "signals of the mailboxes, named as run-log exports name them: jmail.3.angle smail.t6.m[3] ...");
  watch->add_option("--rate", watch_rate, "samples per second (up to 50 for the state, the sample rate for signals)")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 2000.0));
  watch->add_option("--seconds", watch_seconds, "stop after this long (0: until interrupted)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  emergency_stop = app.add_subcommand("emergency-stop", "power off now, brakes on (EMGCY; reset to leave)");
  // Refused when used, naming what replaced them (hidden from --help).
  for (const char* word : {"estop", "step"})
    retired.emplace_back(word, app.add_subcommand(word, "")->group("")->allow_extras());
  calibrate = app.add_subcommand("calibrate", "find every joint's index (IDLE -> CALIB -> HOLD)");
  stop = app.add_subcommand("stop", "bring the arm to rest and drop queued moves");
  reset = app.add_subcommand("reset", "leave an emergency (EMGCY -> IDLE)");
  power_off = app.add_subcommand("power-off", "switch the power off (brakes on)");
  hold = app.add_subcommand("hold", "power on and hold where the arm is");
  free = app.add_subcommand("free", "gravity compensation only: the arm can be moved by hand");
}

void Commands::check() const {
  if (run->parsed() && example == !task_path.empty()) throw ConfigError("run: give a task file or --example, not both");
  if (watch->parsed() && watch_signals.empty() && watch_rate > 50.0)
    throw ConfigError("watch: the state is shown at most 50 times a second");
  for (const auto& [word, command] : retired)
    if (command->parsed()) throw ConfigError("'" + word + "' is now " + retiredWord(word));
}

// What a task run did, and what its moves report: force held, yield, guard met (the status keeps
// the last 64 ended).
void printTaskReport(const std::string& name, const RemoteTaskResult& r, RfmsClient& client) {
  std::cout << "task '" << name << "': " << r.requests << " requests, " << r.moves.size() << " moves, "
            << r.refused.size() << " refused, " << r.seconds << " s\n";
  for (const auto& why : r.refused) std::cout << "  refused: " << why << "\n";
  for (const auto& caution : r.warnings) std::cout << "  warning: " << caution << "\n";
  if (!r.failure.empty()) std::cout << "  failed: " << r.failure << "\n";
  const ArmStatus after = client.status();
  for (const MoveOutcome& o : after.recent_ended) {
    if (std::find(r.moves.begin(), r.moves.end(), o.id) == r.moves.end()) continue;
    if (o.force) {
      const ForceFigures& f = *o.force;
      std::cout << "  move " << o.id << ": force " << f.setpoint_n << " N, error p50 " << f.error_p50_n << " N, p99 "
                << f.error_p99_n << " N, max " << f.error_max_n << " N, peak " << f.peak_n << " N, "
                << (f.settle_s >= 0.0 ? "settled in " + std::to_string(f.settle_s) + " s" : "not settled") << "\n";
    }
    if (o.yielded_m)
      std::cout << "  move " << o.id << ": yielded (" << o.yielded_m->x() * 1e3 << ", " << o.yielded_m->y() * 1e3
                << ", " << o.yielded_m->z() * 1e3 << ") mm from its path's end, and rests there\n";
    if (o.guard_tripped)
      std::cout << "  move " << o.id << ": guard met, " << o.contact_force.norm() << " N at tool point ("
                << o.contact_pose.translation().x() * 1e3 << ", " << o.contact_pose.translation().y() * 1e3 << ", "
                << o.contact_pose.translation().z() * 1e3 << ") mm\n";
  }
  const auto& c = client.wire().link().counts();
  std::cout << "link: " << c.retransmissions << " retransmissions, " << c.handshakes << " handshakes, "
            << c.bad_checksums << " bad checksums received\n";
}

// The command asked for, over the link; its exit code.
int runCommand(const Commands& cmd, const ClientOptions& options) {
  // Parsed before the link, as a task file is: a bad jog or file changes nothing.
  proto::TaskRequest jog_request;
  if (cmd.jog->parsed()) {
    std::string line = "jog";
    for (const std::string& w : cmd.jog_words) line += " " + w;
    jog_request = parseTaskLine(line);
  }
  std::vector<TaskStatement> task;
  if (cmd.run->parsed()) task = cmd.example ? parseTaskFile(kExampleTask, "example task") : loadTaskFile(cmd.task_path);
  RfmsClient client(options);
  if (cmd.run->parsed()) {
    const std::string name = cmd.example ? "pumatask" : std::filesystem::path(cmd.task_path).stem().string();
    RemoteTaskOptions ro;
    ro.calibrate = !cmd.no_calibrate;
    const RemoteTaskResult r = runRemoteTask(client, task, name, ro);
    printTaskReport(name, r, client);
    return r.ok() ? 0 : 1;
  }
  if (cmd.status->parsed()) printStatus(client.status());
  if (cmd.shell->parsed()) return runOperatorShell(client, options);
  if (cmd.watch->parsed() && !cmd.watch_signals.empty())
    return watchSignals(options, cmd.watch_signals, cmd.watch_rate, cmd.watch_seconds);
  if (cmd.watch->parsed()) return watchStatus(client, cmd.watch_rate, cmd.watch_seconds);
  // Anyone may stop or emergency-stop the arm; every other command needs a task of its own,
  // opened for the command and closed after it.
  if (cmd.stop->parsed()) client.stop();
  if (cmd.emergency_stop->parsed()) client.emergencyStop();
  if (cmd.needsTask()) {
    client.beginTask("rfms-client");
    if (cmd.jog->parsed()) client.wire().require(jog_request, "jog");
    if (cmd.calibrate->parsed()) client.calibrate();
    if (cmd.reset->parsed()) client.reset();
    if (cmd.power_off->parsed()) client.powerOff();
    if (cmd.hold->parsed()) client.hold();
    if (cmd.free->parsed()) client.free();
    client.endTask();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto log = spdlog::stderr_color_mt("rfms-client");
  log->set_pattern("%n: %^%l%$: %v");
  CLI::App app{"rfms-client: send tasks and commands to the RFMS controller through rfms-bridge"};
  app.require_subcommand(1);
  ClientOptions options;
  double timeout_ms = options.link.timeout_s * 1e3;
  addLinkOptions(app, options, timeout_ms);
  Commands commands(app);  // not const: the parser writes into it
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  options.link.timeout_s = timeout_ms * 1e-3;
  // A bad file or flag exits 2; a request the supervisor refused, a move that failed or a link
  // that gave up are outcomes of the run, not errors of this program's input: exit 1.
  return guardedMain(
      [&] {
        commands.check();
        try {
          return runCommand(commands, options);
        } catch (const ConfigError&) {
          throw;
        } catch (const Error& e) {
          log->error("{}", e.what());
          return 1;
        }
      },
      [&](const std::string& message) { log->error("{}", message); });
}
