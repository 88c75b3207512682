// Mail headers left out of a run log where they were predicted (runlog/header_prediction.hpp):
// every mailbox reads back bit for bit, whatever breaks a sender's stream, across files and
// fresh starts; a damaged log never gives a mailbox a header it did not have.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>

#include "replay/run_log_reader.hpp"
#include "runlog/header_prediction.hpp"
#include "runlog/log_files.hpp"
#include "runlog/mcap_writer.hpp"
#include "runlog/protobuf_wire.hpp"
#include "runlog/run_logger.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;
constexpr int kJMailField = proto::PeriodRecord::kJmailFieldNumber;
constexpr int kParcelField = proto::PeriodRecord::kParcelFieldNumber;

proto::JMail jmail(std::uint32_t joint, std::uint64_t period, std::uint64_t sequence) {
  proto::JMail m;
  m.set_joint(joint);
  m.mutable_header()->set_period(period);
  m.mutable_header()->set_sequence(sequence);
  m.set_angle(0.1 * joint + 1e-3 * static_cast<double>(period));
  return m;
}

// One mailbox through the writer's side and back through the reader's: the bytes the reader
// decodes are the mailbox as logged. Returns whether its header was left out.
bool roundTrip(HeaderPrediction& writer, HeaderPrediction& reader, int field, const std::string& logged) {
  const std::size_t left_out = writer.predictedHeaderBytes(field, logged);
  const std::string stored = logged.substr(left_out);
  proto::JMail back;
  EXPECT_TRUE(back.ParseFromString(stored));
  const bool had = back.has_header();
  proto::Header restored;
  EXPECT_TRUE(reader.restore(field, back.joint(), had, had ? *back.mutable_header() : restored, left_out > 0));
  if (left_out > 0) *back.mutable_header() = restored;
  proto::JMail expected;
  EXPECT_TRUE(expected.ParseFromString(logged));
  EXPECT_EQ(back.SerializeAsString(), expected.SerializeAsString());
  return left_out > 0;
}

TEST(HeaderPrediction, EachJointsStreamIsPredictedAndWhateverBreaksItIsStoredWhole) {
  HeaderPrediction writer, reader;
  auto one = [&](const proto::JMail& m) { return roundTrip(writer, reader, kJMailField, m.SerializeAsString()); };
  // The first mailbox of each joint: nothing to predict from.
  for (std::uint32_t j = 1; j <= 6; ++j) EXPECT_FALSE(one(jmail(j, 10, 20))) << j;
  // Steady streams, interleaved by joint: every header predicted.
  for (std::uint64_t k = 11; k < 15; ++k)
    for (std::uint32_t j = 1; j <= 6; ++j) EXPECT_TRUE(one(jmail(j, k, k + 10))) << j << " " << k;
  EXPECT_FALSE(one(jmail(3, 16, 25))) << "a lost mailbox (period 15) breaks the stream";
  EXPECT_TRUE(one(jmail(3, 17, 26))) << "and the next one continues from the mailbox stored whole";
  EXPECT_FALSE(one(jmail(3, 17, 26))) << "a mailbox twice";
  proto::JMail sent = jmail(3, 18, 27);
  sent.mutable_header()->set_send_time_ns(123456789);
  EXPECT_FALSE(one(sent)) << "a send time is never predicted";
  EXPECT_TRUE(one(jmail(3, 19, 28)));
  proto::JMail headerless = jmail(3, 20, 29);
  headerless.clear_header();
  EXPECT_FALSE(one(headerless)) << "a mailbox without a header stays without one";
  EXPECT_FALSE(one(jmail(3, 21, 30)));
  EXPECT_TRUE(one(jmail(4, 15, 25))) << "one joint's gaps are not another's";
  // A header in a form protobuf does not write (a send time of 0 written out) is left as it is,
  // since a restored one would be written differently.
  std::string odd;
  wire::putVarint(odd, wire::tag(1, wire::kLengthDelimited));
  wire::putVarint(odd, 6);
  odd += std::string("\x08\x20\x10\x20\x18\x00", 6);  // period 32, sequence 32, send time 0
  wire::putVarint(odd, wire::tag(2, wire::kVarint));
  wire::putVarint(odd, 5);
  roundTrip(writer, reader, kJMailField, jmail(5, 31, 31).SerializeAsString());
  EXPECT_EQ(writer.predictedHeaderBytes(kJMailField, odd), 0u);
}

// The math server is one sender whatever joint its PARCEL is for: its stream runs across joints.
TEST(HeaderPrediction, TheParcelsAreOneSendersStream) {
  HeaderPrediction writer;
  for (std::uint64_t k = 1; k < 20; ++k) {
    proto::Parcel p;
    p.mutable_header()->set_period(k);
    p.mutable_header()->set_sequence(k);
    p.set_joint(static_cast<std::uint32_t>(k % 6 + 1));
    EXPECT_EQ(writer.predictedHeaderBytes(kParcelField, p.SerializeAsString()) > 0, k > 1) << k;
  }
  // Requests, events and timing have no Header: nothing of theirs is ever left out.
  proto::LogRequest r;
  r.set_period(5);
  EXPECT_EQ(writer.predictedHeaderBytes(proto::PeriodRecord::kRequestFieldNumber, r.SerializeAsString()), 0u);
  EXPECT_FALSE(HeaderPrediction::hasHeader(proto::PeriodRecord::kTimingFieldNumber));
  EXPECT_TRUE(HeaderPrediction::hasHeader(proto::PeriodRecord::kAppliedFieldNumber));
}

// A logged run of six joints, split into files of which retention keeps the newest two, with
// mail lost, mail with a send time, and more records than a fresh start's interval: what the
// reader gives back is every mailbox as it was logged, and the files hold few headers.
TEST(HeaderPrediction, ALoggedRunReadsBackBitForBitAcrossFilesAndFreshStarts) {
  const fs::path dir = test::scratchDir() / "predicted";
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunLogHeader h;
  h.source = "test";
  h.settings.mutable_log()->set_split_mib(1);
  h.settings.mutable_log()->set_keep_files(2);
  h.settings.mutable_log()->set_compression(proto::LogSettings::NONE);  // files fill quickly
  constexpr std::uint64_t kPeriods = 16000;
  std::vector<std::string> logged_jmail, logged_smail;
  {
    RunLogger log((dir / "run.mcap").string(), h, RunLogger::WhenFull::kWait);
    proto::SMail s;
    for (int j = 0; j < 6; ++j) s.add_setpoint_sin(0.1 * j);
    for (std::uint64_t k = 0; k < kPeriods; ++k) {
      s.mutable_header()->set_period(k);
      s.mutable_header()->set_sequence(k + 1);
      s.mutable_header()->set_send_time_ns(k % 997 == 0 ? 1'000'000 * k : 0);
      log.log(LogTopic::kSMail, k, s);
      logged_smail.push_back(s.SerializeAsString());
      for (std::uint32_t j = 1; j <= 6; ++j) {
        if (j == 3 && k % 1234 == 0) continue;  // joint 3's mail lost now and then
        const proto::JMail m = jmail(j, k, k + 7);
        log.log(LogTopic::kJMail, k, m);
        logged_jmail.push_back(m.SerializeAsString());
      }
    }
    log.finish();
    ASSERT_GE(log.figures().files, 3u);
    ASSERT_EQ(log.dropped(), 0u);
  }
  const RunLog back = readRunLog((dir / "run.mcap").string());
  ASSERT_TRUE(back.error.empty()) << back.error;
  ASSERT_GT(back.first_file, 0u) << "retention removed the first files";
  EXPECT_EQ(back.undecodable, 0u);
  ASSERT_FALSE(back.smail.empty());
  // What is left is the tail of what was logged, mailbox for mailbox.
  const std::size_t s0 = logged_smail.size() - back.smail.size();
  for (std::size_t i = 0; i < back.smail.size(); ++i)
    ASSERT_EQ(back.smail[i].SerializeAsString(), logged_smail[s0 + i]) << "S_MAIL " << s0 + i;
  const std::size_t j0 = logged_jmail.size() - back.jmail.size();
  for (std::size_t i = 0; i < back.jmail.size(); ++i)
    ASSERT_EQ(back.jmail[i].SerializeAsString(), logged_jmail[j0 + i]) << "J_MAIL " << j0 + i;
  // As any other reader sees the files: most mailboxes carry no header of their own.
  std::uint64_t mailboxes = 0, with_header = 0;
  for (const LogFile& f : logFilesOf((dir / "run.mcap").string()))
    mcap::readFile(f.path, {}, [&](const mcap::Channel* ch, std::uint64_t, std::string_view data) {
      proto::PeriodRecord r;
      if (ch == nullptr || ch->topic != topic::kPeriod || !r.ParseFromArray(data.data(), static_cast<int>(data.size())))
        return;
      for (const auto& m : r.smail()) ++mailboxes, with_header += m.has_header();
      for (const auto& m : r.jmail()) ++mailboxes, with_header += m.has_header();
    });
  EXPECT_GT(mailboxes, 0u);
  EXPECT_LT(with_header * 100, mailboxes) << with_header << " of " << mailboxes << " mailboxes kept their header";
  EXPECT_GT(with_header, 0u) << "the first of each file and fresh start, and every break, are stored whole";
}

// A record written by hand, as a damaged or hostile file could hold it.
std::string recordOf(const std::vector<std::pair<int, std::string>>& fields, const std::string& bits) {
  std::string r;
  for (const auto& [field, bytes] : fields) {
    wire::putVarint(r, wire::tag(field, wire::kLengthDelimited));
    wire::putVarint(r, bytes.size());
    r += bytes;
  }
  if (!bits.empty()) {
    wire::putVarint(r, wire::tag(proto::PeriodRecord::kPredictedHeadersFieldNumber, wire::kLengthDelimited));
    wire::putVarint(r, bits.size());
    r += bits;
  }
  return r;
}

void writeRecords(const fs::path& path, const std::vector<std::string>& records) {
  mcap::Writer w(path.string(), "rfms", "rfms tests");
  const auto* d = proto::PeriodRecord::descriptor();
  google::protobuf::FileDescriptorSet set;
  d->file()->dependency(0)->CopyTo(set.add_file());  // mailboxes.proto
  d->file()->dependency(1)->CopyTo(set.add_file());  // task.proto
  d->file()->CopyTo(set.add_file());
  const auto channel =
      w.addChannel(w.addSchema(d->full_name(), "protobuf", set.SerializeAsString()), topic::kPeriod, "protobuf");
  for (std::size_t i = 0; i < records.size(); ++i) w.write(channel, i * 1'000'000, i * 1'000'000, records[i]);
  w.close();
}

TEST(HeaderPrediction, AMarkedMailboxWithNothingToPredictFromIsUndecodableNotInvented) {
  const fs::path path = test::scratchDir() / "marked.mcap";
  proto::JMail bare = jmail(2, 5, 5);
  bare.clear_header();
  const std::string whole = jmail(2, 4, 4).SerializeAsString();
  writeRecords(path, {
                         // Marked, but the joint's stream has not begun.
                         recordOf({{kJMailField, bare.SerializeAsString()}}, "\x01"),
                         // A sound start, then a record cut short after its first mailbox...
                         recordOf({{kJMailField, whole}}, ""),
                         recordOf({{kJMailField, bare.SerializeAsString()}}, "\x01").substr(0, 3),
                         // ...after which a marked mailbox is not trusted until a fresh start.
                         recordOf({{kJMailField, bare.SerializeAsString()}}, "\x01"),
                     });
  const RunLog back = readRunLog(path.string());
  ASSERT_EQ(back.jmail.size(), 1u);
  EXPECT_EQ(back.jmail[0].SerializeAsString(), whole);
  EXPECT_EQ(back.undecodable, 3u);
}

}  // namespace
}  // namespace rfms
