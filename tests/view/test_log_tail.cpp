// The supervisor's log as the view's Log channel: followed as it grows, bounded, parsed.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.hpp"
#include "view/log_tail.hpp"

namespace rfms::view {
namespace {

TEST(LogTail, GivesWholeLinesAsTheyAreWritten) {
  const std::string path = (test::makeUniqueDir("log-tail") / "supervisor.log").string();
  LogTail tail(path);
  EXPECT_TRUE(tail.lines().empty()) << "no file yet";
  std::ofstream out(path);
  out << "[12:00:00.000] [supervisor] info: one\n[12:00:00.001] [supervisor] warning: tw" << std::flush;
  EXPECT_EQ(tail.lines(), std::vector<std::string>{"[12:00:00.000] [supervisor] info: one"});
  out << "o\n" << std::flush;
  EXPECT_EQ(tail.lines(), std::vector<std::string>{"[12:00:00.001] [supervisor] warning: two"});
}

TEST(LogTail, ALongLineIsCutAndEachLookIsBounded) {
  const std::string path = (test::makeUniqueDir("log-tail") / "supervisor.log").string();
  std::ofstream(path) << std::string(10 * LogTail::kMaxLine, 'x') << "\nshort\n";
  LogTail tail(path);
  EXPECT_TRUE(tail.lines(100).empty()) << "100 bytes read: no line ended yet";
  const auto rest = tail.lines();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].size(), LogTail::kMaxLine);
  EXPECT_EQ(rest[1], "short");
}

TEST(LogLine, TheNodesFormatGivesNameLevelAndText) {
  foxglove::Log log;
  parseLogLine("[21:42:18.774] [supervisor] error: emergency: joint 3 following error", log);
  EXPECT_EQ(log.name(), "supervisor");
  EXPECT_EQ(log.level(), foxglove::Log::ERROR);
  EXPECT_EQ(log.message(), "emergency: joint 3 following error");
  parseLogLine("[21:42:18.774] [joint3] warning: late", log);
  EXPECT_EQ(log.level(), foxglove::Log::WARNING);
  parseLogLine("something else entirely", log);
  EXPECT_EQ(log.level(), foxglove::Log::INFO);
  EXPECT_EQ(log.message(), "something else entirely");
  EXPECT_EQ(log.name(), "");
}

}  // namespace
}  // namespace rfms::view
