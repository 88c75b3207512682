#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/support/build_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

test::Outcome rfmsSim(const std::string& args) { return test::runCommand(RFMS_SIM_EXE, args, 120); }

TEST(RfmsSimCli, RunsTheManualsExampleByDefault) {
  const test::Outcome r = rfmsSim("");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("states: CALIB HOLD SETP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#1 home       mcartcz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("completed"), std::string::npos);
  EXPECT_NE(r.out.find("final T6 error"), std::string::npos);
  EXPECT_NE(r.err.find("rfms-sim: info: robot puma260"), std::string::npos) << r.err;
}

TEST(RfmsSimCli, JsonSummary) {
  const test::Outcome r = rfmsSim("--json --update-periods 6");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"sim_time_s\":", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"emergency\":false}"), std::string::npos) << r.out;
}

// Issue 57: a run with a refused move said "completed": true in its JSON, without the refusal,
// while the text said "refused: ..." and the exit code 1. The JSON says what the text says.
TEST(RfmsSimCli, TheJsonSummarySaysARefusalAsTheTextDoes) {
  const std::string task = (test::scratchDir() / "refused.task").string();
  std::ofstream(task) << "motion m joint 1 0.2\nmove nowhere m\n";
  const test::Outcome r = rfmsSim("--json --task " + task);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\"completed\":false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"refused\":1,\"refusals\":[\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"refusal_codes\":[\"unknown_name\"]"), std::string::npos) << r.out;
  const test::Outcome text = rfmsSim("--task " + task);
  EXPECT_NE(text.out.find("refused: line 2: unknown position 'nowhere' [unknown_name]"), std::string::npos) << text.out;
}

TEST(RfmsSimCli, TheReadmesLineExampleStaysOnItsLine) {
  const test::Outcome r = rfmsSim(std::string("--json --task ") + RFMS_SOURCE_DIR + "/examples/line.task");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto at = r.out.find("\"max_setpoint_deviation_mm\":");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stod(r.out.substr(at + 28)), 0.2) << r.out;
}

// Each industrial arm's example (examples/NAME.task, the arm named as a user names it): every move
// completes on its line and the arm ends where it was sent.
class IndustrialArmSim : public ::testing::TestWithParam<const char*> {};

TEST_P(IndustrialArmSim, RunsItsExampleTaskOnItsLines) {
  const std::string arm = GetParam();
  const test::Outcome r =
      rfmsSim("--json --robot " + arm + " --task " + RFMS_SOURCE_DIR + "/examples/" + arm + ".task");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("robot " + arm), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"completed\":true,\"refused\":0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"completed\":false"), std::string::npos) << r.out;
  for (const char* field : {"\"max_path_deviation_mm\":", "\"final_position_error_mm\":"}) {
    const auto at = r.out.find(field);
    ASSERT_NE(at, std::string::npos) << field << r.out;
    EXPECT_LT(std::stod(r.out.substr(at + std::string(field).size())), 0.1) << field << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Arms, IndustrialArmSim, ::testing::Values("kr6_r700_sixx", "irb2400", "lrmate200id", "gp7"));

// The manual's pumatask with its home on the table: the move complying along z comes to rest on the
// table, says how far it yielded, and the joint move after it lifts the probe off.
TEST(RfmsSimCli, TheManualsCompliantExampleRestsOnTheTableAndLiftsOff) {
  const test::Outcome r = rfmsSim(std::string("--json --task ") + RFMS_SOURCE_DIR + "/examples/manual_compliance.task");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"emergency\":false"), std::string::npos) << r.out;
  const auto at = r.out.find("\"yielded_m\":[");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::istringstream in(r.out.substr(at + 13));
  double x = 0.0, y = 0.0, z = 0.0;
  char comma = 0;
  ASSERT_TRUE(in >> x >> comma >> y >> comma >> z) << r.out;
  EXPECT_NEAR(1e3 * z, 27.0, 1.5) << r.out;  // its path went 27 mm into the table
  EXPECT_LT(1e3 * std::hypot(x, y), 2.5) << r.out;
}

TEST(RfmsSimCli, RefusedMovesAndBadInput) {
  const std::string path = (test::scratchDir() / "far.task").string();
  std::ofstream(path) << "transform far trans 900 0 0\nposition p righty,down,flip T6 = far\n"
                         "motion m joint 2 0.2\nmove p m\n";
  test::Outcome r = rfmsSim("--task " + path);
  EXPECT_EQ(r.code, 1);  // nothing moved: not a success
  EXPECT_NE(r.out.find("refused: line 4: position 'p' cannot be reached"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[unreachable]\n"), std::string::npos) << r.out;

  // One statement refused among moves that ran is still a failed run (it used to exit 0); a task
  // with nothing to move is not one.
  std::ofstream(path) << "units mm deg\ntransform t rpy 220 -126.24 280  0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion m joint 1 0.2\nmove p m\nmove nowhere m\n";
  r = rfmsSim("--task " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("refused: line 6: unknown position 'nowhere' [unknown_name]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("completed"), std::string::npos) << r.out;
  std::ofstream(path) << "# nothing to do\n";
  r = rfmsSim("--task " + path);
  EXPECT_EQ(r.code, 0) << r.out << r.err;

  std::ofstream(path) << "transform t trans 1 2\n";
  r = rfmsSim("--task " + path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("far.task:1: expected z"), std::string::npos) << r.err;

  r = rfmsSim("--dt-ms 20");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("dt_ms: must be within 0.25 .. 10"), std::string::npos) << r.err;
  r = rfmsSim("--task /nonexistent.task");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent.task: cannot open task file"), std::string::npos) << r.err;
  r = rfmsSim("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--update-periods"), std::string::npos);
}

// A disk that fills mid-run (here a file-size limit, which fails writes as a full disk does)
// used to end rfms-sim with exit 2 and no summary, and, where SIGXFSZ was not ignored by whoever
// started it, killed it outright. The run goes on, its summary is printed, one line says why the
// log stopped, the exit is 1, and the log holds the run up to the failure.
TEST(RfmsSimCli, ALogThatCannotBeWrittenDoesNotStopTheRun) {
  const std::string path = (test::scratchDir() / "full.mcap").string();
  const test::Outcome r =
      test::runCommand("bash", "-c \"ulimit -f 4096; exec " + std::string(RFMS_SIM_EXE) + " --log " + path + "\"", 120);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("final T6 error"), std::string::npos) << "the summary: " << r.out << r.err;
  EXPECT_NE(r.err.find("writing stopped (cannot write log " + path + ": File too large); it holds the run up to then"),
            std::string::npos)
      << r.err;
  const test::Outcome info = test::runCommand(RFMS_REPLAY_EXE, "info " + path, 60);
  EXPECT_NE(info.out.find("messages "), std::string::npos) << info.out << info.err;
}

// A run that requires a log (log.required) is brought to rest when writing stops: moves queued are
// dropped (or, when it stops before the task sent them, refused with the reason), and the arm
// holds where it came to rest. Which, depends on when the writer thread hits the limit.
TEST(RfmsSimCli, ARunThatRequiresALogStopsMovingWhenItCannotBeWritten) {
  const std::string path = (test::scratchDir() / "required.mcap").string();
  const test::Outcome r = test::runCommand("bash",
                                           "-c \"trap '' XFSZ; ulimit -f 2048; exec " + std::string(RFMS_SIM_EXE) +
                                               " --log " + path + " --set log.required=true\"",
                                           120);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const bool refused =
      r.out.find("the run log stopped writing (cannot write log " + path +
                 ": File too large) and the run requires a log (log.required): the arm is held") != std::string::npos;
  const bool stopped = r.out.find(" STOP HOLD\n") != std::string::npos && r.out.find("ABORTED") != std::string::npos;
  EXPECT_TRUE(refused || stopped) << r.out << r.err;
  EXPECT_EQ(r.out.find(" completed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rfms
