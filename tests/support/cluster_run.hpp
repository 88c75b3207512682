// What a process test needs to start a cluster of its own — a run directory that is cleaned up
// whatever the test did, a cluster file like the shipped one with some lines changed — and to
// follow it by the supervisor's structured events rather than its log's sentences.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/build_paths.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms::test {

// A fresh run directory, short enough for ipc paths; `deploy/rfms down` and removed afterwards.
struct RunDir {
  std::filesystem::path path;
  explicit RunDir(const std::string& name) : path(makeUniqueDir("rfms-" + name)) {}
  ~RunDir() {
    runCommand(kRfms, "down " + path.string(), 60);  // whatever the test did, nothing stays
    std::filesystem::remove_all(path);
  }
};

// A configuration like the shipped one, with some lines replaced and the robot path made absolute.
inline std::string configWith(const std::filesystem::path& dir, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& replacements) {
  std::string text = readFile(std::string(RFMS_SOURCE_DIR) + "/deploy/clusters/local.textproto");
  text.replace(text.find("../robots"), 9, std::string(RFMS_SOURCE_DIR) + "/deploy/robots");
  text.replace(text.find("../scenes"), 9, std::string(RFMS_SOURCE_DIR) + "/deploy/scenes");
  for (const auto& [from, to] : replacements) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// The supervisor's events of a run so far, RUN_DIR/events.jsonl (supervisor/shell/event_file.hpp):
// each line's JSON, in order. A line still being written is left for the next read.
inline std::vector<nlohmann::json> runEvents(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  std::istringstream lines(readFile(run / "events.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

// Whether `e` is an event of this kind (MOVE_STARTED, MOVE_COMPLETED, MOVE_ABORTED, STATE_CHANGED,
// EMERGENCY), or the run's end ("stopped").
inline bool isEvent(const nlohmann::json& e, const std::string& kind) {
  return kind == "stopped" ? e.contains("stopped") : e.value("kind", "") == kind;
}

// The events as lines, for a failure's message.
inline std::string eventsText(const std::filesystem::path& run) {
  const std::string text = readFile(run / "events.jsonl");
  return text.empty() ? "(no events: " + (run / "events.jsonl").string() + " is empty or missing)\n" : text;
}

// The first event `want` accepts, once it is in the file; nothing after `timeout`.
inline std::optional<nlohmann::json> waitForEvent(const std::filesystem::path& run,
                                                  const std::function<bool(const nlohmann::json&)>& want,
                                                  std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (const nlohmann::json& e : runEvents(run))
      if (want(e)) return e;
    if (std::chrono::steady_clock::now() > end) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// How a node's run ended, RUN_DIR/NODE.end.json (runtime/node_end.hpp): its NodeEnd as JSON
// ({"cause": "SUPERVISOR_SILENT", "power_on": false, ...}), or null when the node left none.
inline nlohmann::json nodeEnd(const std::filesystem::path& run, const std::string& node) {
  return nlohmann::json::parse(readFile(run / (node + ".end.json")), nullptr, false);
}

// The same, once the node has left it (it writes it as it exits); null after `timeout`.
inline nlohmann::json waitForNodeEnd(const std::filesystem::path& run, const std::string& node,
                                     std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    nlohmann::json j = nodeEnd(run, node);
    if (!j.is_discarded() || std::chrono::steady_clock::now() > end) return j;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Whether the arm's last word says it was left with its power off and at rest.
inline bool armLeftAtRest(const nlohmann::json& end) {
  return end.is_object() && !end.value("power_on", true) && end.value("fastest_joint_rad_s", -1.0) == 0.0;
}

}  // namespace rfms::test
