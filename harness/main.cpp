// rfms-sim: the whole controller in one process (supervisor, six joint servers, math server and
// emulated arm wired by the in-process harness), running a task from power-up and printing what
// happened. With no task it runs the RFMS manual's example task.
//   rfms-sim [--robot FILE] [--scene FILE|none] [--task FILE] [--dt-ms 1] [--update-periods 1] [--serial-ik]
//            [--amplifier current|voltage] [--pik SCHEME] [--set FIELD=VALUE ...] [--timeout-s 600]
//            [--json] [--log FILE]
// Exit status: 0 when every move completed without an emergency, 1 otherwise, 2 on bad input.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "common/command_line.hpp"
#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/scene.hpp"
#include "common/task_file.hpp"
#include "common/text_file.hpp"
#include "harness/run_recording.hpp"
#include "harness/task_runner.hpp"
#include "supervisor/world_status.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  auto log = spdlog::stderr_color_mt("rfms-sim");
  log->set_pattern("%n: %^%l%$: %v");

  CLI::App app{"rfms-sim: the RFMS controller in one process, running a task on the emulated arm"};
  std::string robot = RFMS_DEFAULT_ROBOT, scene_path = RFMS_DEFAULT_SCENE, task_path;
  double timeout_s = 600.0;
  bool json = false;
  // The controller's settings start at their defaults (proto/controller.proto); each flag given
  // and each --set overwrites one field, and the result is checked once, by the harness.
  proto::ControllerSettings settings;
  std::vector<std::string> sets, more_sets;  // the flags' fields, then --set's
  app.add_option("--robot", robot, "robot model file, or a shipped model's name (gp7, kr6_r700_sixx, ...)")
      ->capture_default_str();
  app.add_option("--scene", scene_path,
                 "scene file: the tool and what it can touch ('none': a bare flange in empty space)")
      ->capture_default_str();
  app.add_option("--task", task_path, "task file (default: the RFMS manual's example task)");
  app.add_option_function<std::string>(
      "--dt-ms", [&](const std::string& v) { sets.push_back("dt_ms=" + v); },
      "sample period in ms (0.25 .. 10; default 1)");
  app.add_option_function<std::string>(
      "--update-periods", [&](const std::string& v) { sets.push_back("update_periods=" + v); },
      "setpoint update period in sample periods (1 .. 100; default 1)");
  app.add_flag_callback(
      "--serial-ik", [&] { sets.push_back("serial_ik=true"); }, "joints solve the exact serial IK instead of PIK");
  app.add_option_function<std::string>(
      "--pik", [&](const std::string& v) { sets.push_back("pik=" + v); },
      "PIK scheme: paper, paper-extrapolated, decoupled, decoupled-extrapolated "
      "(default)");
  app.add_option_function<std::string>(
      "--amplifier", [&](const std::string& v) { sets.push_back("amplifier=" + v); }, "current (default) or voltage");
  app.add_option("--set", more_sets,
                 "FIELD=VALUE: any controller setting by its path in proto/controller.proto "
                 "(e.g. servo.bandwidth_hz=12); may be repeated");
  app.add_option("--timeout-s", timeout_s, "simulated seconds allowed for the task (0.001 .. 1000000)")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_flag("--json", json, "print the summary as JSON");
  std::string log_path;
  app.add_option("--log", log_path, "write a run log (MCAP) to this file (rfms-replay reads it)");
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;

  return guardedMain(
      [&] {
        // A setting given twice (by a flag and by --set, or by two --set) would leave one of them
        // silently unheeded: which one is meant is the user's to say.
        std::map<std::string, std::string> given;
        for (const std::vector<std::string>* group : {&sets, &more_sets})
          for (const std::string& a : *group) {
            const std::string field = a.substr(0, a.find('='));
            const auto [it, fresh] = given.emplace(field, a);
            if (!fresh) throw ConfigError(field + " is given twice (" + it->second + ", then " + a + "): give it once");
          }
        sets.insert(sets.end(), more_sets.begin(), more_sets.end());
        applySettingAssignments(settings, sets);
        const RobotModel model = loadRobotModel(robot);
        const Scene scene = scene_path == "none" ? Scene{} : loadScene(scene_path);
        const auto task = task_path.empty() ? parseTaskFile(kExampleTask, "example task") : loadTaskFile(task_path);

        Harness harness(model, settings, scene);
        log->info("robot {}, scene {}, dt {} ms, setpoint update every {} period(s), {} IK, task {}", model.name,
                  scene.source.empty() ? "none" : scene.name, settings.dt_ms(), settings.update_periods(),
                  settings.serial_ik() ? "serial" : toString(pikScheme(settings)),
                  task_path.empty() ? "example" : task_path);
        RunOptions options;
        options.timeout_s = timeout_s;
        std::unique_ptr<RunLogger> run_log;
        bool log_stopped = false;
        if (!log_path.empty()) {
          RunLogHeader header;
          header.source = "rfms-sim";
          header.robot_name = model.name;
          header.robot_model_text = readTextFile(model.source);  // the file a bare name found
          if (!scene.source.empty()) header.scene_text = readTextFile(scene_path);
          header.task_text = task_path.empty() ? kExampleTask : readTextFile(task_path);
          header.clock = "lockstep";
          header.settings = settings;
          // Nothing here is real time: the harness waits for the writer rather than lose a message.
          run_log = std::make_unique<RunLogger>(log_path, header, RunLogger::WhenFull::kWait);
          harness.on_period = [&](const PeriodMail& m) {
            recordPeriod(*run_log, m);
            // Once: a run that requires a log is brought to rest when writing stops.
            if (run_log->stopped() && !log_stopped) {
              log_stopped = true;
              harness.logStopped(run_log->failure());
            }
          };
          options.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply& a) {
            logRequestRecord(*run_log, k, requestRecord(r, a, false) + worldRecord(harness.background().world(), r, a),
                             0);
          };
        }
        const RunSummary summary = runTask(harness, task, options);
        bool log_whole = true;
        if (run_log) {
          run_log->finish();
          log->info("run log {}: {}", log_path, run_log->describe(summary.periods));
          if (const std::string why = run_log->failure(); !why.empty()) {
            log->error("run log {}: writing stopped ({}); it holds the run up to then", log_path, why);
            log_whole = false;
          } else if (run_log->dropped() > 0) {
            log->warn("run log {}: DROPPED {}", log_path, run_log->dropReport());
          }
        }
        std::cout << (json ? summaryJson(summary) + "\n" : summaryText(summary));
        return summary.succeeded() && log_whole ? 0 : 1;
      },
      [&](const std::string& message) { log->error("{}", message); });
}
