// Where the tests find the checkout (models, scenes, task files, deploy/rfms) and the built
// programs. The two paths live in one small generated file that every test program links
// (rfms_test_paths, tests/CMakeLists.txt), not on each test file's compile line: a compile line
// with a checkout's absolute path in it is another compile to ccache, so a second clone would
// recompile every test.
#pragma once

#include <string>

namespace rfms::test {

extern const char* const kCheckoutDir;  // the repository's top
extern const char* const kProgramDir;   // build/bin

}  // namespace rfms::test

// The names the tests use (they were compile definitions before).
#define RFMS_SOURCE_DIR (::rfms::test::kCheckoutDir)
#define RFMS_BIN_DIR (::rfms::test::kProgramDir)
#define RFMS_ROBOTS_DIR (std::string(::rfms::test::kCheckoutDir) + "/deploy/robots")
#define RFMS_SCENES_DIR (std::string(::rfms::test::kCheckoutDir) + "/deploy/scenes")
#define RFMS_MODEL_EXE (std::string(::rfms::test::kProgramDir) + "/rfms-model")
#define RFMS_SIM_EXE (std::string(::rfms::test::kProgramDir) + "/rfms-sim")
#define RFMS_REPLAY_EXE (std::string(::rfms::test::kProgramDir) + "/rfms-replay")
