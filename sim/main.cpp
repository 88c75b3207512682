// rfms-sim: the whole controller in one process (supervisor, six joint servers, math server and
// emulated arm wired by the in-process harness), running a task from power-up and printing what
// happened. With no task it runs the RFMS manual's example task.
//   rfms-sim [--robot FILE] [--task FILE] [--dt-ms 1] [--update-periods 1] [--serial-ik]
//            [--amplifier current|voltage] [--pik SCHEME] [--timeout-s 600] [--json] [--log FILE]
// Exit status: 0 when every move completed without an emergency, 1 otherwise, 2 on bad input.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/error.hpp"
#include "common/text_file.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "sim/run_recording.hpp"
#include "sim/task_runner.hpp"


int main(int argc, char** argv) {
  using namespace rfms;
  auto log = spdlog::stderr_color_mt("rfms-sim");
  log->set_pattern("%n: %^%l%$: %v");

  CLI::App app{"rfms-sim: the RFMS controller in one process, running a task on the emulated arm"};
  std::string robot = RFMS_DEFAULT_ROBOT, task_path, amplifier = "current";
  double dt_ms = 1.0, timeout_s = 600.0;
  int update_periods = 1;
  bool serial_ik = false, json = false;
  std::string pik = toString(kDefaultPikScheme);
  app.add_option("--robot", robot, "robot model file")->capture_default_str();
  app.add_option("--task", task_path, "task file (default: the RFMS manual's example task)");
  app.add_option("--dt-ms", dt_ms, "sample period in ms (0.5 .. 10)")->capture_default_str();
  app.add_option("--update-periods", update_periods, "setpoint update period in sample periods (1 .. 100)")
      ->capture_default_str();
  app.add_flag("--serial-ik", serial_ik, "joints solve the exact serial IK instead of PIK");
  app.add_option("--pik", pik, "PIK scheme: paper, paper-extrapolated, decoupled, decoupled-extrapolated")
      ->capture_default_str();
  app.add_option("--amplifier", amplifier, "current or voltage")->capture_default_str();
  app.add_option("--timeout-s", timeout_s, "simulated seconds allowed for the task")->capture_default_str();
  app.add_flag("--json", json, "print the summary as JSON");
  std::string log_path;
  app.add_option("--log", log_path, "write a run log (MCAP) to this file (rfms-replay reads it)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    if (!(dt_ms >= 0.5 && dt_ms <= 10.0)) throw ConfigError("--dt-ms must be within 0.5 .. 10");
    if (update_periods < 1 || update_periods > 100) throw ConfigError("--update-periods must be 1 .. 100");
    const auto scheme = parsePikScheme(pik);
    if (!scheme) throw ConfigError("--pik must be paper, paper-extrapolated, decoupled or decoupled-extrapolated");
    if (amplifier != "current" && amplifier != "voltage") throw ConfigError("--amplifier must be current or voltage");
    if (!(timeout_s > 0.0)) throw ConfigError("--timeout-s must be positive");
    const RobotModel model = loadRobotModel(robot);
    const auto task = task_path.empty() ? parseTaskFile(kExampleTask, "example task") : loadTaskFile(task_path);

    HarnessConfig config;
    config.dt = dt_ms * 1e-3;
    config.update_periods = update_periods;
    config.serial_ik = serial_ik;
    config.pik = *scheme;
    config.amplifier = amplifier == "current" ? Amplifier::kCurrent : Amplifier::kVoltage;
    Harness harness(model, config);
    log->info("robot {}, dt {} ms, setpoint update every {} period(s), {} IK, task {}", model.name, dt_ms,
              update_periods, serial_ik ? "serial" : pik.c_str(), task_path.empty() ? "example" : task_path);
    RunOptions options;
    options.timeout_s = timeout_s;
    std::unique_ptr<RunLogger> run_log;
    if (!log_path.empty()) {
      RunLogHeader header;
      header.source = "rfms-sim";
      header.robot_name = model.name;
      header.robot_model_text = readTextFile(robot);
      header.task_text = task_path.empty() ? kExampleTask : readTextFile(task_path);
      header.dt_ms = dt_ms;
      header.clock = "lockstep";
      header.update_periods = update_periods;
      header.pik = pik;
      header.serial_ik = serial_ik;
      header.settings = settingsOf(config);
      run_log = std::make_unique<RunLogger>(log_path, header);
      harness.on_period = [&](const PeriodMail& m) { recordPeriod(*run_log, m); };
      options.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply& a) {
        recordRequest(*run_log, k, r, a);
      };
    }
    const RunSummary summary = runTask(harness, task, options);
    if (run_log) {
      run_log->finish();
      log->info("run log {}: {} messages{}", log_path, run_log->written(),
                run_log->dropped() > 0 ? ", " + std::to_string(run_log->dropped()) + " DROPPED" : std::string());
    }
    std::cout << (json ? summaryJson(summary) + "\n" : summaryText(summary));
    return summary.succeeded() ? 0 : 1;
  } catch (const rfms::Error& e) {
    log->error("{}", e.what());
    return 2;
  }
}
