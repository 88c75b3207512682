// The fault recorder (runlog/fault_recorder.hpp): the last periods before a fault, written out as a
// log rfms-replay reads, from a ring that the period's thread fills without allocating.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "common/error.hpp"
#include "replay/log_info.hpp"
#include "replay/run_log_reader.hpp"
#include "runlog/fault_recorder.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

// A directory of this test process's own, removed when it exits.
std::filesystem::path recordDir(const std::string& name) {
  const std::filesystem::path dir = test::scratchDir() / name;
  std::filesystem::create_directories(dir);
  return dir;
}

RunLogHeader testHeader() {
  RunLogHeader h;
  h.source = "test";
  h.robot_name = "puma260";
  return h;
}

// Period k's mail as a supervisor sends it.
proto::SMail smailOf(std::uint64_t k, proto::RtState state = proto::RT_SETP) {
  proto::SMail s;
  s.mutable_header()->set_period(k);
  s.mutable_header()->set_sequence(k + 1);
  s.set_rtstate(state);
  for (int j = 0; j < 6; ++j) s.add_desired_acceleration(0.001 * static_cast<double>(k) + j);
  return s;
}

proto::JMail jmailOf(std::uint64_t k, int joint) {
  proto::JMail j;
  j.mutable_header()->set_period(k);
  j.set_joint(static_cast<std::uint32_t>(joint));
  j.set_angle(0.01 * static_cast<double>(k));
  return j;
}

// Waits (at most 20 s, however busy the machine) for the recorder's writer to finish `files`.
bool waitForFiles(const FaultRecorder& r, unsigned files) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (r.filesWritten() < files && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return r.filesWritten() >= files;
}

TEST(FaultRecorder, WritesTheLastPeriodsBeforeAFaultAsALogThatReplayReads) {
  const auto dir = recordDir("fault-rec");
  FaultRecorder recorder(dir.string(), "supervisor", testHeader(), *spdlog::default_logger());
  // 250 periods: each with the S_MAIL of k and joint 3's answer of k-1, as the supervisor takes it.
  for (std::uint64_t k = 0; k < 250; ++k) {
    recorder.record(LogTopic::kSMail, k, smailOf(k, k == 249 ? proto::RT_EMGCY : proto::RT_SETP));
    if (k > 0) recorder.record(LogTopic::kJMail, k, jmailOf(k - 1, 3), k - 1);
  }
  recorder.fault(249, "emergency stop requested", "supervisor");
  ASSERT_TRUE(waitForFiles(recorder, 1));

  const std::string path = recorder.pathFor(249);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const RunLog log = readRunLog(path);
  EXPECT_TRUE(log.error.empty()) << log.error;
  ASSERT_EQ(log.smail.size(), 100u);
  EXPECT_EQ(log.smail.front().header().period(), 150u);
  EXPECT_EQ(log.smail.back().header().period(), 249u);
  EXPECT_EQ(log.smail.back().rtstate(), proto::RT_EMGCY);
  ASSERT_EQ(log.jmail.size(), 100u);
  EXPECT_EQ(log.jmail.front().header().period(), 149u);  // the answer the first recorded period took
  EXPECT_EQ(log.firstPeriod(), 150u);
  EXPECT_EQ(log.periods(), 250u);  // not "damaged": a fault record starts where its ring did
  EXPECT_EQ(log.fault(), "emergency stop requested (supervisor) at period 249, recorded by supervisor");
  EXPECT_EQ(recorder.notKept(), 0u);
}

TEST(FaultRecorder, RecordingAllocatesNothingOnThePeriodsThread) {
  const auto dir = recordDir("fault-alloc");
  FaultRecorder recorder(dir.string(), "joint3", testHeader(), *spdlog::default_logger());
  const proto::SMail warm = smailOf(0);
  recorder.record(LogTopic::kSMail, 0, warm);
  std::vector<proto::SMail> mail;
  for (std::uint64_t k = 1; k < 1001; ++k) mail.push_back(smailOf(k));
  const long before = test::allocationsOnThisThread();
  for (std::uint64_t k = 1; k < 1001; ++k) recorder.record(LogTopic::kSMail, k, mail[k - 1]);
  recorder.fault(1000, "following error", "joint3");
  EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
  ASSERT_TRUE(waitForFiles(recorder, 1));
}

TEST(FaultRecorder, RecordsAgainAfterWritingAndStopsAtItsFileLimit) {
  const auto dir = recordDir("fault-again");
  FaultRecorder::Options options;
  options.periods = 10;
  options.max_files = 2;
  FaultRecorder recorder(dir.string(), "math", testHeader(), options, *spdlog::default_logger());
  std::uint64_t k = 0;
  for (int fault = 0; fault < 3; ++fault) {
    for (int n = 0; n < 25; ++n, ++k) recorder.record(LogTopic::kSMail, k, smailOf(k));
    recorder.fault(k - 1, "node silent", "math");
    // The writer takes the ring; once it has let go, recording goes on.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < end) {
      const std::uint64_t missed = recorder.notKept();
      recorder.record(LogTopic::kSMail, k, smailOf(k));
      if (recorder.notKept() == missed) break;  // kept: the ring is the period's again
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ++k;
  }
  EXPECT_EQ(recorder.filesWritten(), 2u);
  // The second record holds its own fault's periods, not the first one's.
  const RunLog second = readRunLog(recorder.pathFor(50));
  ASSERT_EQ(second.smail.size(), 10u);
  EXPECT_EQ(second.smail.back().header().period(), 50u);
  EXPECT_FALSE(std::filesystem::exists(recorder.pathFor(76)));  // the third: over the limit
}

TEST(FaultRecorder, APeriodLargerThanItsSlotKeepsWhatFitsAndCountsTheRest) {
  const auto dir = recordDir("fault-big");
  FaultRecorder::Options options;
  options.periods = 4;
  options.bytes_per_period = 256;
  FaultRecorder recorder(dir.string(), "arm", testHeader(), options, *spdlog::default_logger());
  proto::JMail big = jmailOf(0, 1);
  big.mutable_header()->set_sequence(1);
  for (int i = 0; i < 5; ++i) recorder.record(LogTopic::kJMail, 0, big);  // about 30 bytes each: all fit
  EXPECT_EQ(recorder.notKept(), 0u);
  proto::SMail huge = smailOf(1);
  for (int j = 0; j < 100; ++j) huge.add_desired_acceleration(j);  // beyond 256 bytes
  recorder.record(LogTopic::kSMail, 1, huge);
  EXPECT_EQ(recorder.notKept(), 1u);
  recorder.record(static_cast<LogTopic>(kLogTopics), 1, big);  // no topic
  recorder.record(LogTopic::kDrops, 1, big);                   // the log's own, never a node's mail
  EXPECT_EQ(recorder.notKept(), 3u);
  recorder.fault(1, "force limit", "arm");
  ASSERT_TRUE(waitForFiles(recorder, 1));
  const RunLog log = readRunLog(recorder.pathFor(1));
  EXPECT_EQ(log.jmail.size(), 5u);
  EXPECT_TRUE(log.smail.empty());
}

TEST(FaultRecorder, InfoSaysWhatTheRecordIsAndVerifyRefusesIt) {
  const auto dir = recordDir("fault-info");
  FaultRecorder recorder(dir.string(), "supervisor", testHeader(), *spdlog::default_logger());
  for (std::uint64_t k = 0; k < 300; ++k) recorder.record(LogTopic::kSMail, k, smailOf(k));
  recorder.fault(299, "the arm lost its power", "joint 3");
  ASSERT_TRUE(waitForFiles(recorder, 1));
  const std::string path = recorder.pathFor(299);
  const RunLog log = readRunLog(path);
  const LogInfo info = summarise(log);
  EXPECT_EQ(info.first_period, 200u);
  EXPECT_EQ(info.last_period, 299u);
  const std::string text = infoText(info, log);
  EXPECT_NE(text.find("fault record: the arm lost its power (joint 3) at period 299, recorded by supervisor"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("200 .. 299"), std::string::npos) << text;
  // Its periods do not start at 0: re-running it would re-run something that never happened.
  const test::Outcome v = test::runCommand(std::string(RFMS_BIN_DIR) + "/rfms-replay", "verify " + path);
  EXPECT_NE(v.code, 0);
  EXPECT_NE(v.err.find("is a fault record"), std::string::npos) << v.out << v.err;
}

TEST(FaultRecorder, AHeaderWhoseFirstPeriodIsNotAPeriodIsRefused) {
  RunLog log;
  log.header["first_period"] = "-5";
  EXPECT_THROW(log.firstPeriod(), ConfigError);
  log.header["first_period"] = "99999999999999";
  EXPECT_THROW(log.firstPeriod(), ConfigError);
  log.header["first_period"] = "12x";
  EXPECT_THROW(log.firstPeriod(), ConfigError);
  log.header["first_period"] = "12";
  EXPECT_EQ(log.firstPeriod(), 12u);
}

}  // namespace
}  // namespace rfms
