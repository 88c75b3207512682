// Run logs: the MCAP writer and reader against each other, damaged files, the logger's queue, and
// a real run log read by the official MCAP reader (@mcap/core, tools/mcap-check).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include <google/protobuf/descriptor.pb.h>

#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "harness/run_recording.hpp"
#include "harness/task_runner.hpp"
#include "replay/log_info.hpp"
#include "replay/plot.hpp"
#include "replay/rerun.hpp"
#include "replay/signals.hpp"
#include "replay/verify.hpp"
#include "runlog/log_files.hpp"
#include "runlog/mcap_reader.hpp"
#include "runlog/run_logger.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/files.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

fs::path tempFile(const std::string& name) { return test::scratchDir() / name; }

// An empty directory of this test process's own, for a run split into several files.
fs::path emptyDir(const std::string& name) {
  const fs::path dir = test::scratchDir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A small log: two channels, messages across several chunks, metadata.
void writeSmall(const fs::path& path, int messages, mcap::Compression compression = mcap::Compression::kZstd,
                std::size_t chunk_bytes = 256) {
  mcap::Writer w(path.string(), "test", "rfms tests", compression, chunk_bytes);
  const auto s = w.addSchema("demo.Thing", "protobuf", std::string("\x01\x02\x00\x03", 4));
  const auto a = w.addChannel(s, "/a", "protobuf", {{"k", "v"}});
  const auto b = w.addChannel(s, "/b", "protobuf");
  w.addMetadata("about", {{"robot", "puma260"}});
  for (int i = 0; i < messages; ++i)
    w.write(i % 3 == 0 ? b : a, static_cast<std::uint64_t>(i) * 1000, 7, "payload " + std::to_string(i),
            static_cast<std::uint32_t>(i));
  w.close();
}

class McapBothWays : public ::testing::TestWithParam<mcap::Compression> {};
INSTANTIATE_TEST_SUITE_P(Compression, McapBothWays,
                         ::testing::Values(mcap::Compression::kNone, mcap::Compression::kZstd),
                         [](const auto& p) { return p.param == mcap::Compression::kZstd ? "zstd" : "none"; });

TEST_P(McapBothWays, WhatIsWrittenIsReadBack) {
  const fs::path p = tempFile("small.mcap");
  writeSmall(p, 100, GetParam());
  const mcap::Contents c = mcap::readFile(p.string());
  ASSERT_TRUE(c.complete()) << c.error << " at " << c.error_offset;
  EXPECT_EQ(c.profile, "test");
  ASSERT_EQ(c.schemas.size(), 1u);
  EXPECT_EQ(c.schemas.at(1).data, std::string("\x01\x02\x00\x03", 4));
  ASSERT_EQ(c.channels.size(), 2u);
  EXPECT_EQ(c.channels.at(1).metadata.at("k"), "v");
  ASSERT_EQ(c.messages.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(c.messages[static_cast<std::size_t>(i)].data, "payload " + std::to_string(i));
    EXPECT_EQ(c.messages[static_cast<std::size_t>(i)].log_time, static_cast<std::uint64_t>(i) * 1000);
  }
  EXPECT_TRUE(c.has_summary);
  EXPECT_EQ(c.summary_message_count, 100u);
  ASSERT_EQ(c.metadata.size(), 1u);
  EXPECT_EQ(c.metadata[0].second.at("robot"), "puma260");
}

TEST_P(McapBothWays, ATruncatedFileGivesTheByteOffsetAndEverythingBeforeIt) {
  const fs::path p = tempFile("cut.mcap");
  writeSmall(p, 100, GetParam());
  const std::string whole = test::readFile(p);
  std::size_t last_count = 0;
  for (std::size_t n : {whole.size() / 4, whole.size() / 2, whole.size() - 30, whole.size() - 1}) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << whole.substr(0, n);
    const mcap::Contents c = mcap::readFile(p.string());
    EXPECT_FALSE(c.complete()) << "cut at " << n;
    EXPECT_NE(c.error.find("truncated"), std::string::npos) << c.error;
    EXPECT_LE(c.error_offset, n);
    EXPECT_GE(c.messages.size(), last_count);  // the later the cut, the more is read
    last_count = c.messages.size();
  }
  EXPECT_EQ(last_count, 100u);  // only the closing bytes were missing
}

TEST(Mcap, ACompressedLogIsSmallerAndItsChunksSayZstd) {
  const fs::path plain = tempFile("plain.mcap"), packed = tempFile("packed.mcap");
  writeSmall(plain, 2000, mcap::Compression::kNone, 64 * 1024);
  writeSmall(packed, 2000, mcap::Compression::kZstd, 64 * 1024);
  EXPECT_LT(fs::file_size(packed) * 2, fs::file_size(plain));
  EXPECT_EQ(test::readFile(plain).find("zstd"), std::string::npos);
  EXPECT_NE(test::readFile(packed).find("zstd"), std::string::npos);
}

// Damage inside a compressed chunk is caught by zstd or by the CRC of the decompressed records,
// whichever sees it first, and what came before it is kept. The flipped bytes sweep the chunk.
TEST(Mcap, ADamagedCompressedChunkIsRefusedNeverMisread) {
  const fs::path p = tempFile("packed-bad.mcap");
  writeSmall(p, 400, mcap::Compression::kZstd, 64 * 1024);  // one chunk
  const std::string whole = test::readFile(p);
  const std::size_t chunk = whole.find("zstd");
  ASSERT_NE(chunk, std::string::npos);
  for (std::size_t at = chunk + 16; at < chunk + 400; at += 7) {
    std::string bytes = whole;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    const mcap::Contents c = mcap::readFile(p.string());
    ASSERT_FALSE(c.complete()) << "a flipped byte at " << at << " went unnoticed";
    for (std::size_t i = 0; i < c.messages.size(); ++i)
      ASSERT_EQ(c.messages[i].data, "payload " + std::to_string(i)) << "misread after a flip at " << at;
  }
}

// A chunk whose header claims a huge size must be refused before anything that large is allocated.
TEST(Mcap, AChunkClaimingAHugeSizeIsRefused) {
  const fs::path p = tempFile("claims.mcap");
  writeSmall(p, 50, mcap::Compression::kZstd);
  std::string bytes = test::readFile(p);
  const std::size_t chunk = bytes.find("zstd");
  ASSERT_NE(chunk, std::string::npos);
  // The chunk record: opcode, length, start, end, uncompressed size, crc, compression...
  const std::size_t size_at = chunk - 4 - 4 - 8;
  for (std::size_t i = 0; i < 8; ++i) bytes[size_at + i] = static_cast<char>(i < 5 ? 0xff : 0);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  const mcap::Contents c = mcap::readFile(p.string());
  EXPECT_FALSE(c.complete());
  EXPECT_NE(c.error.find("chunk"), std::string::npos) << c.error;
}

TEST(Mcap, ACorruptedChunkIsCaughtByItsCrcAtItsOffset) {
  const fs::path p = tempFile("bad.mcap");
  writeSmall(p, 100, mcap::Compression::kNone);
  std::string bytes = test::readFile(p);
  const auto at = bytes.find("payload 50");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = 'X';
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  const mcap::Contents c = mcap::readFile(p.string());
  EXPECT_NE(c.error.find("CRC mismatch"), std::string::npos) << c.error;
  EXPECT_LT(c.error_offset, at);
  EXPECT_LT(c.messages.size(), 100u);
  EXPECT_GT(c.messages.size(), 0u);
}

// `offered` empty S_MAILs, and as many J_MAILs, into a log whose ring holds sixteen
// messages, then the log read back.
RunLog floodedLog(const fs::path& p, RunLogger::WhenFull when_full, std::uint64_t offered, std::uint64_t& dropped,
                  std::string* report = nullptr) {
  RunLogHeader h;
  h.source = "test";
  {
    RunLogger log(p.string(), h, when_full, 512);
    proto::SMail s;
    proto::JMail j;
    for (std::uint64_t i = 0; i < offered; ++i) log.log(LogTopic::kSMail, i, s), log.log(LogTopic::kJMail, i, j);
    log.finish();
    EXPECT_EQ(log.dropped() + log.written(), 2 * offered);
    dropped = log.dropped();
    if (report != nullptr) *report = log.dropReport();
  }
  return readRunLog(p.string());
}

// The ring filled on purpose: every message offered is either in the file or counted, topic by
// topic, and the counts in the log agree with the logger's.
TEST(RunLogger, AFullRingDropsAndCountsEachTopicInsteadOfBlocking) {
  std::uint64_t dropped = 0;
  std::string report;
  const RunLog back = floodedLog(tempFile("drops.mcap"), RunLogger::WhenFull::kDrop, 20000, dropped, &report);
  EXPECT_GT(dropped, 0u);
  ASSERT_TRUE(back.error.empty()) << back.error;
  ASSERT_TRUE(back.have_drops);
  EXPECT_EQ(back.drops.dropped(), dropped);
  std::map<std::string, std::uint64_t> per_topic;
  for (const auto& t : back.drops.per_topic()) per_topic[t.topic()] = t.dropped();
  EXPECT_EQ(per_topic[topic::kSMail] + back.smail.size(), 20000u);
  EXPECT_EQ(per_topic[topic::kJMail] + back.jmail.size(), 20000u);
  EXPECT_EQ(per_topic.size(), 2u);
  EXPECT_EQ(report.rfind(std::to_string(dropped) + ": ", 0), 0u) << report;
  EXPECT_NE(report.find("/rfms/smail " + std::to_string(per_topic[topic::kSMail])), std::string::npos) << report;
  EXPECT_NE(report.find("/rfms/jmail " + std::to_string(per_topic[topic::kJMail])), std::string::npos) << report;
}

// The ring's size comes from the settings, in seconds of mail at the sample period.
TEST(RunLogger, TheRingHoldsTheSettingsSecondsOfMail) {
  proto::ControllerSettings s;
  EXPECT_EQ(RunLogger::ringBytesFor(s), 4000u * RunLogger::kRingBytesPerPeriod);
  s.set_dt_ms(2.0);
  s.mutable_log()->set_ring_s(10.0);
  EXPECT_EQ(RunLogger::ringBytesFor(s), 5000u * RunLogger::kRingBytesPerPeriod);
}

// A long run split by size: every file is a whole MCAP file with the run's header, and the run
// reads back as one, in order, with nothing lost at the seams.
TEST(RunLogger, ASplitRunIsWholeFilesThatReadBackAsOne) {
  const fs::path dir = emptyDir("split");
  RunLogHeader h;
  h.source = "test";
  h.settings.mutable_log()->set_split_mib(1);
  h.settings.mutable_log()->set_compression(proto::LogSettings::NONE);
  constexpr std::uint64_t kPeriods = 12000;  // about 3.5 MiB of S_MAIL
  {
    RunLogger log((dir / "run.mcap").string(), h, RunLogger::WhenFull::kWait);
    proto::SMail s;
    for (int j = 0; j < kJoints; ++j)
      s.add_setpoint_sin(0.1 * j), s.add_desired_acceleration(0.2 * j), s.add_servo_error(0.3 * j);
    for (std::uint64_t k = 0; k < kPeriods; ++k) {
      s.mutable_header()->set_period(k);
      log.log(LogTopic::kSMail, k, s);
    }
    log.finish();
    EXPECT_GE(log.figures().files, 3u);
    EXPECT_EQ(log.figures().files, static_cast<unsigned>(std::distance(fs::directory_iterator(dir), {})));
  }
  for (const LogFile& f : logFilesOf((dir / "run.mcap").string())) {
    const mcap::Contents c = mcap::readFile(f.path);
    EXPECT_TRUE(c.complete()) << f.path << ": " << c.error;
    ASSERT_EQ(c.metadata.size(), 1u) << f.path;
    EXPECT_EQ(c.metadata[0].second.at("file"), std::to_string(f.number));
    EXPECT_EQ(c.channels.size(), 2u);  // /rfms/period and /rfms/drops
    EXPECT_LE(c.file_size, (1u << 20) + (512u << 10) + 4096) << "a file outgrew the split size by more than a chunk";
  }
  const RunLog back = readRunLog((dir / "run.mcap").string());
  ASSERT_TRUE(back.error.empty()) << back.error;
  ASSERT_EQ(back.smail.size(), kPeriods);
  for (std::uint64_t k = 0; k < kPeriods; ++k) ASSERT_EQ(back.smail[k].header().period(), k);
  EXPECT_EQ(back.header.at("source"), "test");
  EXPECT_EQ(back.header.count("file"), 0u);
  EXPECT_EQ(back.first_file, 0u);
  EXPECT_EQ(back.drops.files(), back.files.size());
}

// Split by time with retention: only the newest files are kept, the run's drops say how many
// went, and what is left still reads as one run from where it now begins.
TEST(RunLogger, RetentionKeepsTheNewestFilesOfARunSplitByTime) {
  const fs::path dir = emptyDir("retention");
  RunLogHeader h;
  h.source = "test";
  h.settings.mutable_log()->set_split_mib(0);
  h.settings.mutable_log()->set_split_s(60);
  h.settings.mutable_log()->set_keep_files(2);
  constexpr std::uint64_t kPeriods = 250'000;  // 250 s at 1 ms: five files of a minute or less
  {
    RunLogger log((dir / "run.mcap").string(), h, RunLogger::WhenFull::kWait);
    proto::SMail s;
    for (std::uint64_t k = 0; k < kPeriods; ++k) {
      s.mutable_header()->set_period(k);
      log.log(LogTopic::kSMail, k, s);
    }
    log.finish();
    EXPECT_EQ(log.figures().files, 5u);
    EXPECT_EQ(log.figures().files_removed, 3u);
  }
  const RunLog back = readRunLog((dir / "run.mcap").string());
  ASSERT_TRUE(back.error.empty()) << back.error;
  EXPECT_EQ(back.first_file, 3u);
  ASSERT_EQ(back.files.size(), 2u);
  ASSERT_FALSE(back.smail.empty());
  EXPECT_EQ(back.smail.front().header().period(), 180'000u);  // the fourth minute's first period
  EXPECT_EQ(back.smail.back().header().period(), kPeriods - 1);
  EXPECT_EQ(back.drops.files_removed(), 3u);
}

// A file missing in the middle of a split run is a hole: said, and nothing after it is read.
TEST(RunLogger, AMissingFileInTheMiddleOfARunIsReported) {
  const fs::path dir = emptyDir("hole");
  RunLogHeader h;
  h.source = "test";
  h.settings.mutable_log()->set_split_s(60);
  {
    RunLogger log((dir / "run.mcap").string(), h, RunLogger::WhenFull::kWait);
    proto::SMail s;
    for (std::uint64_t k = 0; k < 150'000; ++k) s.mutable_header()->set_period(k), log.log(LogTopic::kSMail, k, s);
  }
  fs::remove(dir / "run.1.mcap");
  const RunLog back = readRunLog((dir / "run.mcap").string());
  EXPECT_NE(back.error.find("run.1.mcap is missing"), std::string::npos) << back.error;
  EXPECT_EQ(back.smail.size(), 60'000u);
}

TEST(RunLogger, ARunWhoseClockMayWaitLosesNothing) {
  std::uint64_t dropped = 0;
  const RunLog back = floodedLog(tempFile("waits.mcap"), RunLogger::WhenFull::kWait, 20000, dropped);
  EXPECT_EQ(dropped, 0u);
  ASSERT_TRUE(back.error.empty()) << back.error;
  ASSERT_EQ(back.smail.size(), 20000u);
  EXPECT_EQ(back.drops.dropped(), 0u);
}

// The example task recorded from the harness: our reader and the official one agree on every
// message, and rfms-replay's summary matches the run's own.
TEST(RunLog, TheExampleTaskLogOpensInTheOfficialMcapReader) {
  const fs::path p = tempFile("example.mcap");
  const RobotModel model = loadRobotModel(std::string(RFMS_SOURCE_DIR) + "/deploy/robots/puma260.textproto");
  RunSummary summary;
  {
    RunLogHeader h;
    h.source = "test";
    h.robot_name = model.name;
    h.robot_model_text = test::readFile(std::string(RFMS_SOURCE_DIR) + "/deploy/robots/puma260.textproto");
    RunLogger log(p.string(), h, RunLogger::WhenFull::kWait);
    Harness harness(model, proto::ControllerSettings{});
    harness.on_period = [&](const PeriodMail& m) { recordPeriod(log, m); };
    RunOptions o;
    o.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply& a) {
      logRequest(log, k, r, a);
    };
    summary = runTask(harness, parseTaskFile(kExampleTask, "example"), o);
    log.finish();
    EXPECT_EQ(log.dropped(), 0u);
  }
  ASSERT_TRUE(summary.succeeded());
  const RunLog ours = readRunLog(p.string());
  ASSERT_TRUE(ours.error.empty()) << ours.error;
  EXPECT_EQ(ours.smail.size(), summary.periods);
  EXPECT_EQ(ours.jmail.size(), 6 * summary.periods);
  EXPECT_EQ(ours.requests.size(), 9u);  // calibrate and the task's eight requests

  const LogInfo info = summarise(ours);
  ASSERT_EQ(info.moves.size(), 2u);
  EXPECT_TRUE(info.moves[0].completed && info.moves[1].completed);
  for (int j = 0; j < kJoints; ++j)
    EXPECT_NEAR(info.max_following_error_deg[static_cast<std::size_t>(j)],
                summary.max_following_error[j] * 180.0 / M_PI, 1e-9);

  const std::string checker = std::string(RFMS_SOURCE_DIR) + "/tools/mcap-check/check.mjs";
  ASSERT_TRUE(fs::exists(std::string(RFMS_SOURCE_DIR) + "/tools/mcap-check/node_modules/@mcap/core"))
      << "the official reader is not installed: run deploy/install-deps --for-tests";
  const test::Outcome r = test::runCommand("node", checker + " " + p.string(), 300);
  ASSERT_EQ(r.code, 0) << r.err;
  // The checker prints one JSON object; a few exact fields are enough to compare.
  EXPECT_NE(r.out.find("\"messages\":" + std::to_string(ours.messages)), std::string::npos) << r.out;
  // One MCAP message a period, the drops, and two for each picture of the arm: what both readers
  // and the summary count.
  ASSERT_GT(ours.display_messages, 0u);
  const std::string records = std::to_string(summary.periods + 1 + ours.display_messages);
  EXPECT_NE(r.out.find("\"/frames\":" + std::to_string(ours.display_messages / 2)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"records\":" + records), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"streamed\":" + records), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"statistics\":" + records), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"/rfms/smail\":" + std::to_string(ours.smail.size())), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"rfms.proto.PeriodRecord\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"metadata\":[\"rfms\"]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"compression\":[\"zstd\"]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"at_middle\":0"), std::string::npos) << "seeking by time found nothing: " << r.out;
}

}  // namespace
}  // namespace rfms

namespace rfms {
namespace {

const std::string kPuma260 = std::string(RFMS_SOURCE_DIR) + "/deploy/robots/puma260.textproto";

// A header as the tools write one: the PUMA 260's model and these settings.
RunLogHeader headerOf(const std::string& source, const proto::ControllerSettings& settings) {
  RunLogHeader h;
  h.source = source;
  h.robot_model_text = test::readFile(kPuma260);
  h.settings = settings;
  return h;
}

// A log of the example task, written with the settings `run_with`, but whose header claims
// `header_says` (a tampered log, or one whose settings were lost).
std::string exampleLog(const std::string& name, const proto::ControllerSettings& run_with,
                       const proto::ControllerSettings& header_says) {
  const fs::path p = tempFile(name);
  const RobotModel model = loadRobotModel(kPuma260);
  RunLogHeader h = headerOf("test", header_says);
  h.task_text = kExampleTask;
  RunLogger log(p.string(), h, RunLogger::WhenFull::kWait);
  Harness harness(model, run_with);
  harness.on_period = [&](const PeriodMail& m) { recordPeriod(log, m); };
  RunOptions o;
  o.on_request = [&](std::uint64_t k, const proto::TaskRequest& r, const proto::TaskReply& a) {
    logRequest(log, k, r, a);
  };
  runTask(harness, parseTaskFile(kExampleTask, "example"), o);
  log.finish();
  return p.string();
}

TEST(Replay, VerifyRerunsTheLogIdenticallyAndNamesTheFirstDivergence) {
  proto::ControllerSettings c;
  const RunLog good = readRunLog(exampleLog("good.mcap", c, c));
  const VerifyResult ok = verifyLog(good);
  EXPECT_TRUE(ok.ok) << ok.divergence;
  EXPECT_EQ(ok.periods, good.smail.size());
  EXPECT_EQ(ok.compared, good.sensors.size() + good.smail.size() + good.mmail.size() + good.parcel.size() +
                             good.jmail.size() + good.torque.size() + good.events.size());

  // The header says the joints used the paper's PIK; they did not: the first setpoint that PIK
  // computes differently is named, with its field.
  proto::ControllerSettings paper = c;
  paper.set_pik(proto::ControllerSettings::PAPER);
  const RunLog lying = readRunLog(exampleLog("lying.mcap", c, paper));
  const VerifyResult bad = verifyLog(lying);
  EXPECT_FALSE(bad.ok);
  std::printf("the tampered log: %s\n", bad.divergence.c_str());
  EXPECT_NE(bad.divergence.find("/rfms/jmail"), std::string::npos) << bad.divergence;
  EXPECT_NE(bad.divergence.find("setpoint"), std::string::npos) << bad.divergence;
  EXPECT_NE(bad.divergence.find("period "), std::string::npos) << bad.divergence;
}

// A log with nothing to re-run used to pass ("verified: 0 periods"), and one S_MAIL claiming
// period 2^40 made verify re-run 2^40 periods and export allocate 2^40 rows. Both are refused at
// once, saying why.
TEST(Replay, VerifyRefusesALogWithNothingToCheckOrAPeriodBeyondItsMail) {
  const fs::path empty = tempFile("nothing.mcap");
  {
    RunLogger log(empty.string(), headerOf("test", {}), RunLogger::WhenFull::kWait);
    log.finish();
  }
  const VerifyResult none = verifyLog(readRunLog(empty.string()));
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.divergence.find("no S_MAIL"), std::string::npos) << none.divergence;

  const fs::path far = tempFile("far.mcap");
  {
    const RobotModel model = loadRobotModel(kPuma260);
    RunLogger log(far.string(), headerOf("test", {}), RunLogger::WhenFull::kWait);
    Harness h(model, proto::ControllerSettings{});
    proto::SMail forged;
    h.on_period = [&](const PeriodMail& m) {
      recordPeriod(log, m);
      forged = *m.smail;
    };
    for (int k = 0; k < 50; ++k) h.step();
    forged.mutable_header()->set_period(std::uint64_t{1} << 40);
    log.log(LogTopic::kSMail, 50, forged);
    log.finish();
  }
  const RunLog far_log = readRunLog(far.string());
  const VerifyResult damaged = verifyLog(far_log);
  EXPECT_FALSE(damaged.ok);
  EXPECT_NE(damaged.divergence.find("the log is damaged"), std::string::npos) << damaged.divergence;
  EXPECT_EQ(damaged.periods, 0u) << "nothing re-run";
  // export and plot would have made a column of 2^40 values for each signal.
  EXPECT_THROW(extractSignals(far_log, defaultSignals()), ConfigError);
}

// A log of 50 periods of the harness, then whatever `forge` adds to it.
RunLog smallLog(const std::string& name, const std::function<void(RunLogger&, proto::SMail)>& forge) {
  const fs::path p = tempFile(name);
  {
    const RobotModel model = loadRobotModel(kPuma260);
    RunLogger log(p.string(), headerOf("test", {}), RunLogger::WhenFull::kWait);
    Harness h(model, proto::ControllerSettings{});
    proto::SMail last;
    h.on_period = [&](const PeriodMail& m) {
      recordPeriod(log, m);
      last = *m.smail;
    };
    for (int k = 0; k < 50; ++k) h.step();
    forge(log, last);
    log.finish();
  }
  return readRunLog(p.string());
}

// A size a log claims is checked before anything is sized by it: an S_MAIL of a period far beyond
// the others, even beside a drop count that would cover it, and one of the largest period there
// is, are damage, refused by info, export and verify alike (verify used to loop, export to grow
// without end, info to report 1.1e12 periods or, past 2^64, none).
TEST(Replay, APeriodOrADropCountNoRunCouldHaveIsDamage) {
  const RunLog far = smallLog("far-drops.mcap", [](RunLogger& log, proto::SMail s) {
    s.mutable_header()->set_period(std::uint64_t{1} << 40);
    log.log(LogTopic::kSMail, 50, s);
    log.lost(LogTopic::kSMail, std::uint64_t{1} << 62);
  });
  EXPECT_EQ(far.drops.per_topic(0).dropped(), std::uint64_t{1} << 62);
  EXPECT_THROW(far.periods(), ConfigError);
  EXPECT_THROW(summarise(far), ConfigError);
  EXPECT_THROW(extractSignals(far, defaultSignals()), ConfigError);
  const VerifyResult v = verifyLog(far);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.divergence.find("the log is damaged"), std::string::npos) << v.divergence;
  EXPECT_EQ(v.periods, 0u);

  const RunLog last = smallLog("last-period.mcap", [](RunLogger& log, proto::SMail s) {
    s.mutable_header()->set_period(~std::uint64_t{0});
    log.log(LogTopic::kSMail, 50, s);
  });
  try {
    summarise(last);
    FAIL() << "a period of 2^64 - 1 was taken";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("an S_MAIL of period 18446744073709551615, beyond any run's"),
              std::string::npos)
        << e.what();
  }
  // Drops a log can mean still count: a hole the size of its drops is the run's.
  const RunLog holed = smallLog("holed.mcap", [](RunLogger& log, proto::SMail s) {
    s.mutable_header()->set_period(60);
    log.log(LogTopic::kSMail, 60, s);
    log.lost(LogTopic::kSMail, 10);
  });
  EXPECT_EQ(holed.periods(), 61u);
}

// A log whose settings are missing or damaged does not say its sample period: info and export
// refuse it (they used to take 1 ms, and report a 10 ms run a tenth as long as it was).
TEST(Replay, ALogThatDoesNotSayItsSamplePeriodIsRefusedNotGuessed) {
  RunLog log = smallLog("no-settings.mcap", [](RunLogger&, proto::SMail) {});
  log.settings.reset();
  log.settings_error = "its controller settings do not parse";
  log.header.erase("dt_ms");
  try {
    summarise(log);
    FAIL() << "a sample period was guessed";
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("the log does not say its sample period: its controller settings do not parse"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(extractSignals(log, defaultSignals()), ConfigError);
  log.header["dt_ms"] = "10";  // a log from before the settings were stored whole
  EXPECT_DOUBLE_EQ(summarise(log).duration_s, 0.5);
  log.header["dt_ms"] = "ten";
  EXPECT_THROW(summarise(log), ConfigError);
}

// export takes nothing it would have to leave empty: a signal with no value anywhere in the log
// (an index past its field), a log with no mailboxes, or one with messages it cannot decode.
TEST(Replay, ExportRefusesAnEmptyColumnAnEmptyLogAndUndecodableMail) {
  const RunLog log = smallLog("export.mcap", [](RunLogger&, proto::SMail) {});
  try {
    extractSignals(log, {"smail.t6.m[500]"});
    FAIL() << "an empty column was exported";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("signal 'smail.t6.m[500]' has no value in any of the log's 50"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(extractSignals(log, {"smail.t6.m[3]"}));

  const fs::path empty = tempFile("export-empty.mcap");
  {
    RunLogger nothing(empty.string(), headerOf("test", {}), RunLogger::WhenFull::kWait);
    nothing.finish();
  }
  const test::Outcome none =
      test::runCommand(std::string(RFMS_BIN_DIR) + "/rfms-replay", "export " + empty.string() + " --csv");
  EXPECT_EQ(none.code, 2) << none.out << none.err;
  EXPECT_NE(none.err.find("the log holds no mailboxes: nothing to export"), std::string::npos) << none.err;

  const fs::path stray = tempFile("export-stray.mcap");
  {
    mcap::Writer w(stray.string(), "rfms", "test");
    google::protobuf::FileDescriptorSet set;
    const auto d = proto::SMail::descriptor();
    const auto known =
        w.addChannel(w.addSchema(d->full_name(), "protobuf", set.SerializeAsString()), topic::kSMail, "protobuf");
    proto::SMail m;
    m.mutable_header()->set_period(0);
    w.write(known, 0, 0, m.SerializeAsString());
    w.write(known + 7, 1, 1, "on a channel the log never declared");
    w.close();
  }
  const RunLog strays = readRunLog(stray.string());
  EXPECT_EQ(strays.undecodable, 1u);
  const test::Outcome undecodable =
      test::runCommand(std::string(RFMS_BIN_DIR) + "/rfms-replay", "export " + stray.string() + " --csv");
  EXPECT_EQ(undecodable.code, 2) << undecodable.out << undecodable.err;
  EXPECT_NE(undecodable.err.find("1 of its 2 messages do not decode, or are on a channel it does not declare"),
            std::string::npos)
      << undecodable.err;
}

// info's path deviation used to take a joint whose J_MAIL is missing from a period as being at
// an angle of 0 (13.58 mm reported where the arm was 1.21 mm off). Only whole periods count.
TEST(Replay, InfosPathDeviationSkipsPeriodsWithAJointsAnswerMissing) {
  const RobotModel model = loadRobotModel(kPuma260);
  RunLog log;
  log.header["robot_model"] = test::readFile(kPuma260);
  log.settings = proto::ControllerSettings{};  // a log's times come from its settings
  const JointVec q = (JointVec() << 0.1, -0.4, 0.3, 0.2, 0.5, -0.1).finished();
  for (std::uint64_t k = 0; k < 3; ++k) {
    proto::SMail& s = log.smail.emplace_back();
    s.mutable_header()->set_period(k);
    s.set_rtstate(proto::RT_SETP);
    encode(forwardKinematics(model, q), *s.mutable_t6());
    for (std::uint32_t j = 1; j <= kJoints; ++j) {
      if (k == 1 && j == 2) continue;  // lost
      proto::JMail& m = log.jmail.emplace_back();
      m.mutable_header()->set_period(k);
      m.set_joint(j);
      m.set_angle(q[j - 1]);
    }
  }
  EXPECT_LT(summarise(log).max_path_deviation_mm, 1e-9);
}

TEST(Replay, RerunComparesTheLoggedSettingsWithChangedOnes) {
  proto::ControllerSettings c;
  const RunLog log = readRunLog(exampleLog("rerun.mcap", c, c));
  const RerunResult r = rerunLog(log, {{"pik", "paper"}});
  EXPECT_TRUE(r.original.succeeded());
  EXPECT_TRUE(r.changed.succeeded());
  // The paper's PIK lags where the default does not (ACCURACY.md).
  EXPECT_GT(r.changed.max_setpoint_deviation_mm, 100.0 * r.original.max_setpoint_deviation_mm);
  EXPECT_NE(comparisonTable(r).find("max path deviation"), std::string::npos);
  EXPECT_THROW(rerunLog(log, {{"warp", "9"}}), ConfigError);
  EXPECT_THROW(rerunLog(log, {{"dt_ms", "0"}}), ConfigError);
}

// The log of a run a remote client drove, as the cluster's supervisor writes it: no task file,
// the client's requests with its session, calibration first, a second move sent 0.3 s after the
// first had ended (the client waited), and a transform updated while that move ran.
std::string clientLog(const std::string& name) {
  const fs::path p = tempFile(name);
  const RobotModel model = loadRobotModel(kPuma260);
  RunLogger log(p.string(), headerOf("cluster", proto::ControllerSettings{}), RunLogger::WhenFull::kWait);
  Harness h(model, proto::ControllerSettings{});
  h.on_period = [&](const PeriodMail& m) { recordPeriod(log, m); };
  std::uint64_t number = 0;
  auto send = [&](proto::TaskRequest r) {
    r.set_session(0xc1);
    r.set_number(++number);
    const proto::TaskReply a = h.request(r);
    EXPECT_TRUE(a.accepted()) << a.reason();
    logRequest(log, h.period(), r, a);
    return a;
  };
  auto moveEnded = [&](std::uint64_t id) {
    return [&, id] {
      for (int i = 0; i < h.lastOutbox().event_count; ++i) {
        const SupervisorEvent& e = h.lastOutbox().events[static_cast<std::size_t>(i)];
        if (e.move_id == id && e.kind == SupervisorEvent::kMoveCompleted) return true;
      }
      return false;
    };
  };
  h.runUntil([] { return false; }, 10);
  proto::TaskRequest calibrate;
  calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
  send(calibrate);
  h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000);
  h.runUntil([] { return false; }, 40);  // the client polls its status
  const auto task = parseTaskFile(
      "transform a rpy 180 -126.24 250 0 90 0\ntransform b rpy 180 -126.24 200 0 90 0\n"
      "position pa righty,down,flip T6 = a\nposition pb righty,down,flip T6 = b\n"
      "motion m joint 1.0 0.2\nmove pa m\nmove pb m\n",
      "client");
  std::uint64_t first_move = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const proto::TaskReply a = send(task[i].request);
    if (task[i].request.has_move()) first_move = a.move_id();
  }
  h.runUntil(moveEnded(first_move), 10000);
  h.runUntil([] { return false; }, 300);
  const std::uint64_t second_move = send(task[6].request).move_id();
  h.runUntil([] { return false; }, 400);
  send(task[1].request);  // b again, the same value: an update while the move runs
  h.runUntil(moveEnded(second_move), 10000);
  h.runUntil([] { return false; }, 500);
  log.finish();
  return p.string();
}

TEST(Replay, ARunDrivenByAClientIsRerunFromItsRequests) {
  const RunLog log = readRunLog(clientLog("client.mcap"));
  // Its task: the requests in order, calibration left to the re-run, a wait where the client
  // waited for the first move, each at its time.
  const std::vector<TaskStatement> task = taskFromRequests(log);
  std::string shape;
  for (const TaskStatement& s : task)
    shape += s.kind == TaskStatement::kWait ? 'w' : s.kind == TaskStatement::kAt ? '@' : 'r';
  EXPECT_EQ(shape, "rrrrrrw@r@r");
  EXPECT_NEAR(task[9].at_s - task[7].at_s, 0.4, 1e-9);

  const RerunResult r = rerunLog(log, {{"update_periods", "6"}});
  EXPECT_NE(r.source.find("8 client requests"), std::string::npos) << r.source;
  EXPECT_NE(comparisonTable(r).find("task: 8 client requests"), std::string::npos);
  for (const RunSummary* s : {&r.original, &r.changed}) {
    ASSERT_EQ(s->script.moves.size(), 2u) << summaryText(*s);
    EXPECT_TRUE(s->succeeded()) << summaryText(*s);
    // The client waited: the second move starts from rest, not blended into the first.
    EXPECT_GT(s->script.moves[1].started, s->script.moves[0].ended) << summaryText(*s);
  }
  // With the logged settings the moves keep the logged spacing (0.3 s after the first ended).
  std::map<std::uint64_t, std::uint64_t> started, ended;
  for (const proto::LogEvent& e : log.events) {
    if (e.kind() == proto::LogEvent::MOVE_STARTED) started[e.move_id()] = e.period();
    if (e.kind() == proto::LogEvent::MOVE_COMPLETED) ended[e.move_id()] = e.period();
  }
  ASSERT_EQ(started.size(), 2u);
  const auto& m = r.original.script.moves;
  EXPECT_EQ(m[1].started - m[0].started, started.rbegin()->second - started.begin()->second);
  EXPECT_EQ(m[1].ended - m[0].ended, ended.rbegin()->second - ended.begin()->second);
}

}  // namespace
}  // namespace rfms

namespace rfms {
namespace {

// The timing record of period 12000 of a lockstep log: joint 2's mail missed its period, and the
// supervisor read everything (the test says whether that is so).
proto::PeriodTiming joint2MissedAt12000() {
  proto::PeriodTiming missed;
  missed.set_period(12000);
  missed.set_missed(1u << proto::NODE_JOINT2);
  missed.set_used((1u << proto::NODE_ARM) | (1u << proto::NODE_MATH) | (0x3fu << proto::NODE_JOINT1));
  missed.set_sensors_period(12000);
  return missed;
}

// A lockstep or paced period that went on without a node's mail (it came later than
// lockstep_timeout_ms, or never) is recorded with what the supervisor did read. A lockstep re-run
// of the whole controller would have all the mail, so such a log is verified core by core, each
// core on what it read, to its end. Here the record says joint 2's mail of period 11999 was not
// read; the logged S_MAIL of 12000 was made with it, so the re-run must part from the log there.
TEST(Replay, ALogThatWentOnWithoutSomeMailIsVerifiedCoreByCore) {
  proto::ControllerSettings c;
  RunLog log = readRunLog(exampleLog("missed.mcap", c, c));
  proto::PeriodTiming missed = joint2MissedAt12000();
  RunLog consistent = log;
  consistent.timing.push_back(missed);
  VerifyResult v = verifyLog(consistent);
  EXPECT_TRUE(v.ok) << v.divergence;
  EXPECT_EQ(v.periods, log.periods());
  EXPECT_NE(v.method.find("each core re-run alone"), std::string::npos) << v.method;
  EXPECT_NE(v.method.find("from period 12000 the run went on without the mail of joint 2"), std::string::npos)
      << v.method;
  EXPECT_NE(infoText(summarise(consistent), consistent).find("periods that went on without a node's mail"),
            std::string::npos);

  missed.set_used(missed.used() & ~(1u << proto::NODE_JOINT2));
  log.timing.push_back(missed);
  v = verifyLog(log);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.divergence.find("period 12000, /rfms/smail"), std::string::npos) << v.divergence;
}

// A lockstep arm that stepped without a joint's command of its period (the torque came after the
// arm's wait; the joint's J_MAIL came in time, so the supervisor read all its mail): the arm's
// reports say which command drove each joint, and such a log is verified core by core, not read
// as a divergence. Here the arm's last period went without joint 3's command.
TEST(Replay, ALogWhoseArmSteppedWithoutACommandIsVerifiedCoreByCore) {
  proto::ControllerSettings c;
  RunLog log = readRunLog(exampleLog("applied.mcap", c, c));
  const std::uint64_t periods = log.periods();
  for (std::uint64_t p = 0; p < periods; ++p) {
    proto::AppliedTorques a;
    a.mutable_header()->set_period(p);
    for (int j = 0; j < kJoints; ++j) a.add_applied_period(static_cast<std::int64_t>(p));
    log.applied.push_back(a);
  }
  VerifyResult v = verifyLog(log);
  EXPECT_TRUE(v.ok) << v.divergence;
  EXPECT_EQ(v.method, "the whole controller re-run in lockstep");

  log.applied.back().set_applied_period(2, -1);
  v = verifyLog(log);
  EXPECT_TRUE(v.ok) << v.divergence;
  EXPECT_NE(v.method.find("each core re-run alone"), std::string::npos) << v.method;
  EXPECT_NE(v.method.find("at period " + std::to_string(periods - 1) + " the arm stepped without joint 3's command"),
            std::string::npos)
      << v.method;
}

// An arm killed or paused while its sensors were on their way: a joint had them, the supervisor
// (which logs them) never did, and the arm sent nothing after. The joint's answers from then on
// cannot be checked; the verifier says so and checks the rest, rather than calling the run
// diverged. Sensors missing from inside the log are still a fault of the log.
TEST(Replay, AJointThatReadSensorsSentAfterTheLastLoggedIsCheckedUpToThere) {
  proto::ControllerSettings c;
  RunLog log = readRunLog(exampleLog("late-sensors.mcap", c, c));
  proto::PeriodTiming missed = joint2MissedAt12000();
  log.timing.push_back(missed);
  const std::uint64_t last = log.periods() - 1;
  auto answer = [](RunLog& in, std::uint64_t k, std::uint32_t joint) -> proto::JMail& {
    for (proto::JMail& m : in.jmail)
      if (m.header().period() == k && m.joint() == joint) return m;
    throw std::runtime_error("no J_MAIL of joint " + std::to_string(joint) + " at period " + std::to_string(k));
  };

  RunLog beyond = log;
  answer(beyond, last, 4).set_sensors_period(last + 1000);
  VerifyResult v = verifyLog(beyond);
  EXPECT_TRUE(v.ok) << v.divergence;
  ASSERT_EQ(v.unchecked.size(), 1u);
  EXPECT_NE(v.unchecked[0].find("joint 4 checked up to period " + std::to_string(last)), std::string::npos)
      << v.unchecked[0];
  EXPECT_NE(v.unchecked[0].find("sent after the last the supervisor logged"), std::string::npos) << v.unchecked[0];

  RunLog inside = log;
  answer(inside, last - 10, 4).set_sensors_period(last + 1000000);
  answer(inside, last, 4).set_sensors_period(last + 1000);
  v = verifyLog(inside);
  EXPECT_TRUE(v.ok) << v.divergence;  // one joint stops at its first unknowable answer
  inside.sensors.erase(std::remove_if(inside.sensors.begin(), inside.sensors.end(),
                                      [&](const proto::ArmSensors& s) { return s.header().period() == last - 20; }),
                       inside.sensors.end());
  v = verifyLog(inside);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.divergence.find("which are not in the log"), std::string::npos) << v.divergence;
}

// A log whose writer was killed ends in the middle of a record: what it holds is the run up to
// there, verified that far (and said so); damage inside the file is still refused.
TEST(Replay, ALogCutShortIsVerifiedAsFarAsItGoes) {
  proto::ControllerSettings c;
  const std::string whole = exampleLog("whole.mcap", c, c);
  const fs::path cut = tempFile("cut.mcap");
  {
    std::ifstream in(whole, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
  }
  const RunLog log = readRunLog(cut.string());
  EXPECT_TRUE(log.cut_short) << log.error;
  ASSERT_GT(log.periods(), 1000u);
  const VerifyResult v = verifyLog(log);
  EXPECT_TRUE(v.ok) << v.divergence;
  ASSERT_EQ(v.unchecked.size(), 1u);
  EXPECT_NE(v.unchecked[0].find("the run after the log's end: its writer stopped before closing the file"),
            std::string::npos)
      << v.unchecked[0];
}

// The writer's PeriodRecords are read field by field: damaged ones (cut, a wrong wire type, a
// length past the end, an unknown field, garbage) are counted as undecodable and cost only
// themselves; nothing crashes, and the sound records around them are read.
// A directory given as a log opens as a stream and says its size is -1: it used to be read
// into a buffer of 2^64 - 1 bytes (bad_alloc). It is refused by name.
TEST(RunLog, ADirectoryIsRefusedByNameNotRead) {
  const fs::path dir = emptyDir("not-a-log");
  const mcap::Contents c = mcap::readFile(dir.string());
  EXPECT_EQ(c.error, "a directory, not a run log");
  EXPECT_EQ(c.file_size, 0u);
  const RunLog r = readRunLog(dir.string());
  EXPECT_EQ(r.error, "a directory, not a run log");
  EXPECT_EQ(r.messages, 0u);
}

TEST(RunLog, DamagedPeriodRecordsAreCountedNotFatal) {
  const fs::path p = tempFile("damaged-periods.mcap");
  proto::PeriodRecord sound;
  sound.add_smail()->mutable_header()->set_period(7);
  sound.add_jmail()->set_joint(3);
  const std::string good = sound.SerializeAsString();
  std::vector<std::string> bad = {good.substr(0, good.size() - 1), std::string("\x08\x01", 2),
                                  std::string("\x12\xff\xff\xff\xff\x0f", 6), std::string("\x7a\x00", 2),
                                  std::string("\x12\x03\xff\xff\xff", 5)};
  std::mt19937 random(5);
  for (int i = 0; i < 200; ++i) {
    std::string g(random() % 40, '\0');
    for (char& ch : g) ch = static_cast<char>(random());
    bad.push_back(g);
  }
  {
    mcap::Writer w(p.string(), "rfms", "test");
    const auto* d = proto::PeriodRecord::descriptor();
    google::protobuf::FileDescriptorSet set;  // the schema's bytes do not matter to our reader
    const auto channel =
        w.addChannel(w.addSchema(d->full_name(), "protobuf", set.SerializeAsString()), topic::kPeriod, "protobuf");
    w.write(channel, 0, 0, good);
    for (const std::string& b : bad) w.write(channel, 1, 1, b);
    w.write(channel, 2, 2, good);
    w.close();
  }
  const RunLog back = readRunLog(p.string());
  EXPECT_TRUE(back.error.empty()) << back.error;
  EXPECT_GE(back.smail.size(), 2u);
  EXPECT_EQ(back.smail.front().header().period(), 7u);
  EXPECT_EQ(back.smail.back().header().period(), 7u);
  EXPECT_GE(back.undecodable, 5u);
}

// The writer thread runs below the nodes: nice 10, at the normal policy.
TEST(RunLogger, TheWriterThreadRunsBelowTheNodes) {
  RunLogHeader h;
  h.source = "test";
  RunLogger log(tempFile("nice.mcap").string(), h, RunLogger::WhenFull::kWait, 4096);
  bool found = false;
  for (int attempt = 0; attempt < 100 && !found; ++attempt) {
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
      // Field 19 of stat is the nice value; the name (field 2) may hold spaces, so count from ')'.
      const std::string stat = test::readFile(task.path() / "stat");
      std::istringstream rest(stat.substr(stat.rfind(')') + 2));
      std::string field;
      for (int i = 3; i <= 19 && rest >> field; ++i) {
      }
      if (field == "10") found = true;
    }
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(found) << "no thread of this process runs at nice 10";
}

TEST(Replay, ExportGivesTheLoggedFieldsAsColumnsAndPlotDrawsAPicture) {
  proto::ControllerSettings c;
  const RunLog log = readRunLog(exampleLog("export.mcap", c, c));
  const SignalTable t = extractSignals(log, {"jmail.3.angle", "smail.rtstate", "sensors.encoder[1]", "smail.t6.m[3]"});
  ASSERT_EQ(t.columns.size(), 4u);
  ASSERT_EQ(t.time_s.size(), log.smail.size());
  // Row k holds period k's values.
  const std::size_t k = 20000;
  for (const auto& j : log.jmail)
    if (j.joint() == 3 && j.header().period() == k) {
      EXPECT_EQ(t.columns[0][k], j.angle());
    }
  EXPECT_EQ(t.columns[1][k], static_cast<double>(log.smail[k].rtstate()));
  EXPECT_EQ(t.columns[2][k], static_cast<double>(log.sensors[k].encoder(1)));
  EXPECT_EQ(t.columns[3][k], log.smail[k].t6().m(3));
  EXPECT_NEAR(t.time_s[k], 20.0, 1e-12);
  const std::string csv = toCsv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time_s,jmail.3.angle,smail.rtstate,sensors.encoder[1],smail.t6.m[3]");
  // A signal that does not exist is refused with what does.
  try {
    extractSignals(log, {"jmail.3.angel"});
    ADD_FAILURE() << "a misspelt field was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("has no field 'angel' (it has header"), std::string::npos) << e.what();
  }
  EXPECT_THROW(extractSignals(log, {"jmail.9.angle"}), ConfigError);
  EXPECT_THROW(extractSignals(log, {"smail.t6"}), ConfigError);

  const fs::path png = tempFile("run.png");
  fs::remove(png);
  plotLog(log, png.string());
  const std::string bytes = test::readFile(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_THROW(plotLog(log, tempFile("run.jpg").string()), ConfigError);
}

// Issue 54: a flood of refused requests with 8 kB names grew the run log by 155-276 MB a minute.
// A request the desk refused is kept with its text fields cut to 256 bytes, and says how much
// was cut; an accepted one, or one the core saw, is kept whole (a re-run needs it so).
TEST(RunLog, ARefusedRequestIsKeptWithItsLongFieldsCutAndMarked) {
  proto::TaskRequest q;
  q.set_number(3);
  q.mutable_transform()->set_name(std::string(8192, 'n'));
  proto::TaskReply refused;
  refused.set_reason("a name of 8192 characters is too long");
  proto::LogRequest r;
  ASSERT_TRUE(r.ParseFromString(requestRecord(q, refused, true)));
  EXPECT_EQ(r.request().transform().name(), std::string(256, 'n'));
  EXPECT_EQ(r.cut_bytes(), 8192u - 256u);
  EXPECT_EQ(r.request().number(), 3u);
  EXPECT_LT(requestRecord(q, refused, true).size(), 400u);
  proto::TaskReply accepted;
  accepted.set_accepted(true);
  ASSERT_TRUE(r.ParseFromString(requestRecord(q, accepted, true)));
  EXPECT_EQ(r.request().transform().name().size(), 8192u);
  ASSERT_TRUE(r.ParseFromString(requestRecord(q, refused, false)));  // refused by the core: whole
  EXPECT_EQ(r.request().transform().name().size(), 8192u);
  EXPECT_EQ(r.cut_bytes(), 0u);
}

}  // namespace
}  // namespace rfms
