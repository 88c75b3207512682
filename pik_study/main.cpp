// rfms-pik-study: Zhang & Paul's statistical study of parallel inverse kinematics (A.6 of the RFMS
// report) on our own joint cores, with the paper's baselines and our lag-reducing schemes.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "common/number_text.hpp"
#include "common/robot_model_loader.hpp"
#include "pik_study/study_report.hpp"

using namespace rfms;
using namespace rfms::study;

int main(int argc, char** argv) {
  auto log = spdlog::stderr_color_mt("rfms-pik-study");
  log->set_pattern("%n: %^%l%$: %v");

  CLI::App app{
      "rfms-pik-study: position and orientation errors of parallel inverse kinematics on random "
      "straight-line segments, against the exact IK, RMRC and VAL-style interpolation"};
  std::string robot = RFMS_DEFAULT_ROBOT, out_dir, plots_dir;
  int count = 1000, threads = 2;
  std::uint64_t seed = 1988;
  std::vector<double> segments_s{3.0, 7.0}, updates_ms{1.0, 3.0, 7.0};
  std::vector<std::string> method_names;
  for (Method m : kAllMethods) method_names.emplace_back(toString(m));
  SamplerOptions sampler;
  app.add_option("--robot", robot, "robot model file or a shipped model's name (an ortho-parallel arm)")
      ->capture_default_str();
  app.add_option("--count", count, "segments per case")->capture_default_str();
  app.add_option("--seed", seed, "random seed for the segments")->capture_default_str();
  app.add_option("--threads", threads, "worker threads")->capture_default_str();
  app.add_option("--segment-s", segments_s, "segment times T_seg, s")->capture_default_str();
  app.add_option("--update-ms", updates_ms, "setpoint update periods T_upd, ms (whole ms)")->capture_default_str();
  app.add_option("--methods", method_names,
                 "paper, paper-extrapolated, decoupled, decoupled-extrapolated, serial, rmrc, val")
      ->capture_default_str();
  double margin_mm = sampler.workspace_margin_m * 1e3;
  app.add_option("--workspace-margin-mm", margin_mm, "workspace margin, mm")->capture_default_str();
  app.add_option("--wrist-clearance-deg", sampler.wrist_clearance_deg,
                 "no path comes closer than this to the singular wrist")
      ->capture_default_str();
  app.add_option("--near-wrist-deg", sampler.near_wrist_deg,
                 "paths closer than this count as near the wrist singularity")
      ->capture_default_str();
  app.add_option("--out", out_dir, "directory for results.md and segments.csv");
  app.add_option("--plots", plots_dir, "directory for histograms and their PNG pictures (needs gnuplot)");
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  return guardedMain(
      [&] {
        if (count < 1) throw ConfigError("--count must be at least 1");
        if (!(margin_mm >= 0.0 && margin_mm <= 500.0))
          throw ConfigError("--workspace-margin-mm must be 0 .. 500 mm, got " + numberText(margin_mm));
        sampler.workspace_margin_m = margin_mm * 1e-3;
        if (threads < 1 || threads > 64) throw ConfigError("--threads must be 1 .. 64");
        StudyOptions options;
        options.threads = threads;
        for (const auto& name : method_names) {
          Method m;
          if (!parseMethod(name, m)) throw ConfigError("--methods: unknown method '" + name + "'");
          options.methods.push_back(m);
        }
        for (double s : segments_s) {
          if (!(s >= 0.1 && s <= 60.0)) throw ConfigError("--segment-s values must be within 0.1 .. 60");
          for (double u : updates_ms) {
            if (!(u >= 1.0 && u <= 100.0) || u != std::round(u))
              throw ConfigError("--update-ms values must be whole milliseconds within 1 .. 100");
            options.cases.push_back({s, u * 1e-3});
          }
        }
        if (!(sampler.wrist_clearance_deg > 0.0 && sampler.wrist_clearance_deg < sampler.near_wrist_deg &&
              sampler.near_wrist_deg < 90.0))
          throw ConfigError("need 0 < --wrist-clearance-deg < --near-wrist-deg < 90");
        const RobotModel model = loadRobotModel(robot);
        const RobotModel open = withoutJointLimits(model);

        const auto start = std::chrono::steady_clock::now();
        log->info("drawing {} segments (seed {})", count, seed);
        const auto segments = drawSegments(model, sampler, count, seed);
        int near = 0;
        for (const auto& s : segments) near += s.near_wrist ? 1 : 0;
        log->info("{} cases x {} methods x {} segments on {} thread(s)", options.cases.size(), options.methods.size(),
                  segments.size(), threads);
        auto last = std::chrono::steady_clock::now();
        options.progress = [&](long done, long total) {
          const auto now = std::chrono::steady_clock::now();
          if (done != total && now - last < std::chrono::seconds(2)) return;
          last = now;
          const int width = 40, filled = static_cast<int>(width * done / total);
          std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
                    << std::string(static_cast<std::size_t>(width - filled), '.') << "] " << done << "/" << total
                    << (done == total ? "\n" : "") << std::flush;
        };
        const auto results = runStudy(open, segments, options);
        StudyDescription d;
        d.robot = model.name;
        d.sampler = sampler;
        d.seed = seed;
        d.count = count;
        d.near_wrist = near;
        d.threads = threads;
        d.runtime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        writeTables(std::cout, d, options.methods, segments, results);
        writePaperComparison(std::cout, options.methods, segments, results);
        if (!out_dir.empty()) {
          std::filesystem::create_directories(out_dir);
          std::ofstream md(std::filesystem::path(out_dir) / "results.md"),
              csv(std::filesystem::path(out_dir) / "segments.csv");
          if (!md || !csv) throw ConfigError("cannot write into " + out_dir);
          writeTables(md, d, options.methods, segments, results);
          writePaperComparison(md, options.methods, segments, results);
          writeSegmentsCsv(csv, options.methods, segments, results);
          log->info("wrote {}/results.md and {}/segments.csv", out_dir, out_dir);
        }
        if (!plots_dir.empty()) {
          const std::string script = writeHistograms(plots_dir, options.methods, segments, results);
          const std::string command = "gnuplot '" + script + "'";
          if (std::system(command.c_str()) != 0)
            throw ConfigError("gnuplot failed on " + script + " (is it installed? apt-get install gnuplot-nox)");
          log->info("pictures in {}", plots_dir);
        }
        log->info("done in {:.1f} s", d.runtime_s);
        return 0;
      },
      [&](const std::string& message) { log->error("{}", message); });
}
