// Temporary files and directories that no other test process, and no other checkout testing on
// the same machine, can collide with: every name is made unique by mkdtemp.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace rfms::test {

// A fresh directory named after `name` under the temporary root (kept short: ipc endpoints
// live in run directories, and a socket path has 107 characters at most).
inline std::filesystem::path makeUniqueDir(const std::string& name) {
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / (name + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + " failed");
  return pattern;
}

// This test process's own directory, removed when the process exits.
inline const std::filesystem::path& scratchDir() {
  struct Scratch {
    std::filesystem::path path = makeUniqueDir("rfms-test");
    ~Scratch() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Scratch scratch;
  return scratch.path;
}

}  // namespace rfms::test
