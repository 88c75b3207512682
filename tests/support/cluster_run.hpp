// What a process test needs to start a cluster of its own: a run directory that is cleaned up
// whatever the test did, and a cluster file like the shipped one with some lines changed.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
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

}  // namespace rfms::test
