// rfms-replay: what a run log says happened, and running it again.
//   rfms-replay info LOG      duration, robot, rates, moves, states, emergencies, path deviation,
//                             following error; for a damaged log, what could be read, then the
//                             damage and its byte offset (exit 1)
//   rfms-replay verify LOG    re-run the logged requests through the cores with the logged
//                             settings (realtime logs: each core alone on the mail it read);
//                             every mailbox must match, else the first divergence (period,
//                             mailbox, field) is printed (exit 1); when the logger dropped
//                             messages, what could not be checked is listed (exit 3 if all
//                             that was checked matched)
//   LOG is a run's first file (run.mcap): a run split into run.1.mcap, run.2.mcap, ... is read
//   as one, from whichever of its files retention left.
//   rfms-replay export LOG --csv [--signals jmail.3.angle,...] [-o FILE]
//                             chosen signals as columns against time (replay/signals.hpp)
//   rfms-replay plot LOG -o FILE.png|svg
//                             setpoints vs angles, path deviation, torques, lateness (gnuplot)
//   rfms-replay rerun LOG --set key=value ...
//                             the log's task again with changed settings, compared with the
//                             logged settings in a table
#include <fstream>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "replay/log_info.hpp"
#include "replay/log_view.hpp"
#include "replay/plot.hpp"
#include "replay/progress.hpp"
#include "replay/rerun.hpp"
#include "replay/signals.hpp"
#include "replay/verify.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  auto log = spdlog::stderr_color_mt("rfms-replay");
  log->set_pattern("%n: %^%l%$: %v");
  CLI::App app{"rfms-replay: read, check, re-run and show run logs (MCAP) written by rfms-sim --log and the cluster"};
  app.require_subcommand(1);
  std::string path;
  auto* info = app.add_subcommand("info", "summarise a run log");
  info->add_option("LOG", path, "the run log")->required();
  auto* verify = app.add_subcommand(
      "verify",
      "re-run the log's requests and compare every mailbox (exit 0 identical, 1 diverges or damaged, 3 identical as "
      "far as the logger's drops let it check)");
  verify->add_option("LOG", path, "the run log")->required();
  auto* rerun = app.add_subcommand("rerun", "run the log's task again with changed settings and compare");
  rerun->add_option("LOG", path, "the run log")->required();
  std::vector<std::string> sets;
  rerun->add_option("--set", sets, "key=value: pik, serial_ik, dt_ms, update_periods, amplifier, servo_bandwidth_hz")
      ->required();
  auto* exporter = app.add_subcommand("export", "chosen signals as CSV columns against time");
  exporter->add_option("LOG", path, "the run log")->required();
  bool csv = false;
  std::vector<std::string> signals;
  std::string out_path;
  exporter->add_flag("--csv", csv, "comma-separated values (the only format)")->required();
  exporter
      ->add_option(
          "--signals", signals,
          "e.g. jmail.3.angle,smail.rtstate,sensors.encoder[0] (default: every joint's servo setpoint and angle)")
      ->delimiter(',');
  exporter->add_option("-o,--output", out_path, "file to write (default: standard output)");
  auto* plot = app.add_subcommand("plot", "draw the run: setpoints vs angles, path deviation, torques, lateness");
  plot->add_option("LOG", path, "the run log")->required();
  std::string picture;
  plot->add_option("-o,--output", picture, "FILE.png or FILE.svg")->required();
  auto* viewer = app.add_subcommand(
      "view", "play the log to Foxglove and the view's page, as rfms-view shows a live run (docs/view.md)");
  viewer->add_option("LOG", path, "the run log")->required();
  LogViewOptions view_options;
  std::string view_address = "127.0.0.1:8765", port_file;
  viewer->add_option("--view", view_address, "ADDRESS:PORT to serve on (port 0: any free one)")->capture_default_str();
  viewer->add_option("--speed", view_options.speed, "times the run's own pace")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  viewer->add_option("--port-file", port_file, "write the port served on to this file");
  viewer->add_flag("--exit-at-end", view_options.exit_at_end, "stop once the log has played (default: keep serving)");
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  return guardedMain(
      [&] {
        if (viewer->parsed()) return viewLog(path, view_address, port_file, view_options, log);
        RunLog run;
        {
          ProgressBar bar("reading");
          run = readRunLog(path, std::ref(bar));
        }
        if (run.messages == 0 && !run.error.empty())
          throw ConfigError(path + ": " + run.error +
                            (run.file_size > 0 ? " at byte " + std::to_string(run.error_offset) : ""));
        auto damaged = [&] {
          log->error("{}: damaged at byte {} of {}: {}; what is above covers what was read before it", path,
                     run.error_offset, run.file_size, run.error);
          return 1;
        };
        // What would be drawn or exported from a log that is not whole is not the run's: refused.
        const bool no_mail = run.smail.empty() && run.jmail.empty() && run.mmail.empty() && run.parcel.empty() &&
                             run.sensors.empty() && run.torque.empty();
        if ((exporter->parsed() || plot->parsed()) && no_mail)
          throw ConfigError(path + ": the log holds no mailboxes: nothing to " + (plot->parsed() ? "draw" : "export"));
        if ((exporter->parsed() || plot->parsed()) && run.undecodable > 0)
          throw ConfigError(path + ": " + std::to_string(run.undecodable) + " of its " + std::to_string(run.messages) +
                            " messages do not decode, or are on a channel it does not declare (rfms-replay info "
                            "counts them): its columns would have holes that are not the run's");
        if (exporter->parsed()) {
          const SignalTable t = extractSignals(run, signals.empty() ? defaultSignals() : signals);
          if (out_path.empty()) {
            std::cout << toCsv(t);
          } else {
            std::ofstream out(out_path);
            if (!(out << toCsv(t))) throw ConfigError("cannot write " + out_path);
          }
          return run.error.empty() ? 0 : damaged();
        }
        if (plot->parsed()) {
          {
            ProgressBar bar("drawing");
            bar(0, 1);
            plotLog(run, picture);
          }
          std::cout << "wrote " << picture << "\n";
          return run.error.empty() ? 0 : damaged();
        }
        if (info->parsed()) {
          std::cout << infoText(summarise(run), run);
          return run.error.empty() ? 0 : damaged();
        }
        if (!run.error.empty() && !run.cut_short) {
          damaged();
          throw ConfigError("a damaged log cannot be re-run");
        }
        if (const std::string fault = run.fault(); !fault.empty())
          throw ConfigError(path + " is a fault record (" + fault + "): it holds the last periods before the fault, " +
                            "not the run from its start, so it cannot be re-run or verified; the run's own log can");
        if (rerun->parsed()) {
          std::map<std::string, std::string> changes;
          for (const auto& s : sets) {
            const auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0) throw ConfigError("--set " + s + ": expected key=value");
            changes[s.substr(0, eq)] = s.substr(eq + 1);
          }
          RerunResult r;
          {
            ProgressBar bar("re-running");
            bar(0, 1);
            r = rerunLog(run, changes);
          }
          std::cout << comparisonTable(r);
          return 0;
        }
        VerifyResult v;
        {
          ProgressBar bar("re-running");
          v = verifyLog(run, std::ref(bar));
        }
        if (v.ok) {
          std::cout << (v.unchecked.empty() ? "verified: " : "verified IN PART: ") << v.periods << " periods re-run, "
                    << v.compared << " mailboxes and events identical to the log (" << v.method << ")\n";
          for (const std::string& u : v.unchecked) std::cout << "  not checked: " << u << "\n";
          return v.unchecked.empty() ? 0 : 3;
        }
        std::cout << "DIVERGES after " << v.periods << " periods (" << v.compared << " messages matched; " << v.method
                  << "): " << v.divergence << "\n";
        return 1;
      },
      [&](const std::string& message) { log->error("{}", message); });
}
