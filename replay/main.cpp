// rfms-replay: what a run log says happened.
//   rfms-replay info LOG     duration, robot, rates, moves, states, emergencies, path deviation,
//                            following error; a damaged log: what could be read, then the damage
//                            and its byte offset (exit 1)
#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "replay/log_info.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  auto log = spdlog::stderr_color_mt("rfms-replay");
  log->set_pattern("%n: %^%l%$: %v");
  CLI::App app{"rfms-replay: read a run log (MCAP) written by rfms-sim --log"};
  app.require_subcommand(1);
  std::string path;
  auto* info = app.add_subcommand("info", "summarise a run log");
  info->add_option("LOG", path, "the run log")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    // A progress bar once reading has taken more than a second.
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    bool drew = false;
    const RunLog run = readRunLog(path, [&](std::uint64_t done, std::uint64_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - start < std::chrono::seconds(1) || now - last < std::chrono::milliseconds(200)) return;
      last = std::chrono::steady_clock::now();
      const int width = 40, filled = static_cast<int>(width * done / std::max<std::uint64_t>(total, 1));
      std::cerr << "\rreading [" << std::string(static_cast<std::size_t>(filled), '#')
                << std::string(static_cast<std::size_t>(width - filled), '.') << "]" << std::flush;
      drew = true;
    });
    if (drew) std::cerr << "\r" << std::string(50, ' ') << "\r";
    if (run.messages == 0 && !run.error.empty()) throw ConfigError(path + ": " + run.error + " at byte " + std::to_string(run.error_offset));
    std::cout << infoText(summarise(run), run);
    if (!run.error.empty()) {
      log->error("{}: damaged at byte {} of {}: {}; the summary above covers what was read before it", path,
                 run.error_offset, run.file_size, run.error);
      return 1;
    }
    return 0;
  } catch (const rfms::Error& e) {
    log->error("{}", e.what());
    return 2;
  }
}
