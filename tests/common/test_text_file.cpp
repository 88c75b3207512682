// Files a user names: refused by path and reason, never read as empty. A directory given as a
// robot model, a cluster file or a task used to read as an empty file ("name: missing", or a
// task with nothing in it that ran and exited 0).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "common/text_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

template <class F>
std::string refusal(F load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TextFile, ADirectoryIsRefusedAsEveryKindOfFile) {
  const fs::path dir = test::scratchDir() / "a-directory";
  fs::create_directories(dir);
  const std::string d = dir.string();
  EXPECT_EQ(refusal([&] { loadRobotModel(d); }), d + ": cannot open robot model file: it is a directory");
  EXPECT_EQ(refusal([&] { loadTaskFile(d); }), d + ": cannot open task file: it is a directory");
}

TEST(TextFile, MissingTooLongAndTooLargeAreNamed) {
  EXPECT_NE(refusal([] { loadTextFile("/nonexistent/rfms.task", "task file"); }).find("No such file"),
            std::string::npos);
  const std::string long_name = "/tmp/" + std::string(6000, 'x');
  EXPECT_NE(refusal([&] { loadTextFile(long_name, "robot model file"); }).find("File name too long"),
            std::string::npos);
  const fs::path big = test::scratchDir() / "big.task";
  std::ofstream(big) << std::string(2000, '#');
  EXPECT_EQ(refusal([&] { loadTextFile(big.string(), "task file", 1000); }),
            big.string() + ": cannot open task file: it has 2000 bytes, more than the 1000 such a file may have");
  EXPECT_EQ(loadTextFile(big.string(), "task file").size(), 2000u);
}

}  // namespace
}  // namespace rfms
