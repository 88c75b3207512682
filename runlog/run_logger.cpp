#include "runlog/run_logger.hpp"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/wire_format_lite.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <set>
#include <vector>

#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "common/thread_role.hpp"
#include "display/scene_messages.hpp"
#include "proto/cluster.pb.h"
#include "runlog/display_track.hpp"
#include "runlog/log_files.hpp"
#include "runlog/logged_arm.hpp"
#include "runlog/protobuf_schema.hpp"
#include "runlog/protobuf_wire.hpp"

#ifndef RFMS_VERSION
#define RFMS_VERSION "unknown"
#endif

namespace rfms {

const char* softwareVersion() { return RFMS_VERSION; }

namespace {
constexpr const char* kSettingsKey = "controller_settings";
}  // namespace

mcap::KeyValues RunLogHeader::toMetadata() const {
  return {{"source", source},
          {"robot", robot_name},
          {"robot_model", robot_model_text},
          {"scene", scene_text},
          {"cluster_config", cluster_config_text},
          {"task", task_text},
          {"clock", clock},
          {kSettingsKey, settingsText(withDefaultsWritten(settings))},
          {"version", softwareVersion()},
          {"first_period", std::to_string(first_period)},
          {"fault", fault}};
}

proto::ControllerSettings settingsOfHeader(const mcap::KeyValues& header) {
  const auto it = header.find(kSettingsKey);
  if (it == header.end()) {
    const auto version = header.find("version");
    throw ConfigError("the log's header has no controller settings: it was written by rfms " +
                      (version == header.end() ? std::string("of an unknown version") : version->second) +
                      ", before the settings were one message; re-run it with that version");
  }
  // A log written while `pik` was a string is read in today's spelling: its header is history.
  proto::ControllerSettings s = parseSettingsText(withPikUpgraded(it->second), "the log's controller settings");
  checkControllerSettings(s, "the log's controller");
  return s;
}

const char* topicName(LogTopic t) {
  static constexpr const char* kNames[kLogTopics] = {topic::kSensors, topic::kSMail,  topic::kMMail,   topic::kParcel,
                                                     topic::kJMail,   topic::kTorque, topic::kRequest, topic::kEvent,
                                                     topic::kDrops,   topic::kTiming, topic::kApplied};
  const auto i = static_cast<std::size_t>(t);
  return i < kLogTopics ? kNames[i] : "";
}

std::size_t RunLogger::ringBytesFor(const proto::ControllerSettings& settings) {
  const double periods = settings.log().ring_s() * 1000.0 / settings.dt_ms();
  return static_cast<std::size_t>(periods) * kRingBytesPerPeriod;
}

RunLogger::RunLogger(const std::string& path, const RunLogHeader& header, WhenFull when_full, std::size_t ring_bytes)
    : path_(path),
      header_(header.toMetadata()),
      settings_(header.settings.log()),
      dt_ns_(header.settings.dt_ms() * 1e6),
      when_full_(when_full),
      ring_(ring_bytes > 0 ? ring_bytes : ringBytesFor(header.settings)) {
  // A mailbox of topic t is field t + 1 of a PeriodRecord: the schema must say the same. The drops
  // are the log's own message, on a channel of their own.
  const google::protobuf::Descriptor* const types[kLogTopics] = {
      proto::ArmSensors::descriptor(),   proto::SMail::descriptor(),         proto::MMail::descriptor(),
      proto::Parcel::descriptor(),       proto::JMail::descriptor(),         proto::TorqueCommand::descriptor(),
      proto::LogRequest::descriptor(),   proto::LogEvent::descriptor(),      nullptr,
      proto::PeriodTiming::descriptor(), proto::AppliedTorques::descriptor()};
  for (std::size_t i = 0; i < kLogTopics; ++i) {
    if (static_cast<LogTopic>(i) == LogTopic::kDrops) continue;
    const auto* field = proto::PeriodRecord::descriptor()->FindFieldByNumber(static_cast<int>(i + 1));
    if (field == nullptr || field->message_type() != types[i])
      throw ProtocolError(std::string("PeriodRecord's field ") + std::to_string(i + 1) + " is not " +
                          topicName(static_cast<LogTopic>(i)));
  }
  if (settings_.display_hz() > 0) {
    try {
      const LoggedArm arm = armOfHeader(header_);
      display_ =
          std::make_unique<DisplayTrack>(arm.model, arm.scene, dt_ns_ * 1e-9, static_cast<int>(settings_.display_hz()));
    } catch (const ConfigError&) {
      // A header without a robot model that loads (a test's, an old tool's): the mail is logged all
      // the same, only without pictures; rfms-replay info says how many a log holds.
    }
  }
  openFile(0);  // here, so that a log that cannot be created is refused before the run starts
  thread_ = std::thread([this] { drain(); });
}

RunLogger::~RunLogger() {
  try {
    finish();
  } catch (...) {  // a destructor must not throw
  }
}

void RunLogger::openFile(unsigned number) {
  if (writer_) {
    writer_->close();
    closed_bytes_ += writer_->bytesWritten();
    closed_uncompressed_ += writer_->uncompressedChunkBytes();
    writer_.reset();
  }
  const auto compression =
      settings_.compression() == proto::LogSettings::NONE ? mcap::Compression::kNone : mcap::Compression::kZstd;
  writer_ = std::make_unique<mcap::Writer>(logFilePath(path_, number), "rfms", std::string("rfms ") + softwareVersion(),
                                           compression);
  mcap::KeyValues header = header_;
  header["file"] = std::to_string(number);  // which of a split run's files this is
  writer_->addMetadata("rfms", header);
  // The same channels, with the same ids, in every file of the run.
  auto channel = [&](const google::protobuf::Descriptor* type, const char* topic) {
    return writer_->addChannel(writer_->addSchema(type->full_name(), "protobuf", descriptorSet(type)), topic,
                               "protobuf");
  };
  period_channel_ = channel(proto::PeriodRecord::descriptor(), topic::kPeriod);
  drops_channel_ = channel(proto::LogDrops::descriptor(), topic::kDrops);
  if (display_) {
    frames_channel_ = channel(foxglove::FrameTransforms::descriptor(), display::kFramesTopic);
    scene_channel_ = channel(foxglove::SceneUpdate::descriptor(), display::kSceneTopic);
  }
  file_number_ = number;
  file_has_messages_ = false;
  records_in_file_ = 0;  // and so the prediction of headers starts afresh
  open_bytes_ = writer_->bytesWritten();
  open_uncompressed_ = 0;
  // Retention: the file `keep_files` before this one goes, and with it every older one.
  if (settings_.keep_files() > 0 && number >= settings_.keep_files()) {
    std::error_code ec;
    if (std::filesystem::remove(logFilePath(path_, number - settings_.keep_files()), ec)) ++files_removed_;
  }
}

// Into the ring: `size` bytes that `write` puts at the address it is given.
template <class Write>
bool RunLogger::put(LogTopic topic, std::uint64_t k, std::size_t size, Write write) {
  const auto index = static_cast<std::size_t>(topic);
  // Not one of the log's topics (a bug upstream), or the drops, which finish() writes.
  if (index >= kLogTopics || finished_ || topic == LogTopic::kDrops) return false;
  std::uint8_t* at = ring_.reserve(size);
  while (at == nullptr && when_full_ == WhenFull::kWait && !failed_ && size <= ring_.capacity() / 4) {
    ready_.notify_one();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    at = ring_.reserve(size);
  }
  if (at == nullptr) {
    count(index);
    return false;
  }
  write(at);
  ring_.commit(static_cast<std::uint16_t>(index + 1), static_cast<std::uint64_t>(static_cast<double>(k) * dt_ns_));
  // The writer wakes for a batch (or on its own every 20 ms), not for every message: a wake-up
  // per message costs the period's thread, and the other processes, more than the message.
  if (++since_wake_ >= kBatch) {
    since_wake_ = 0;
    ready_.notify_one();
  }
  return true;
}

bool RunLogger::log(LogTopic topic, std::uint64_t k, const google::protobuf::Message& message) {
  return put(topic, k, message.ByteSizeLong(), [&](std::uint8_t* at) { message.SerializeWithCachedSizesToArray(at); });
}

bool RunLogger::logSerialized(LogTopic topic, std::uint64_t k, std::string_view bytes) {
  return put(topic, k, bytes.size(), [&](std::uint8_t* at) { std::memcpy(at, bytes.data(), bytes.size()); });
}

bool RunLogger::logSerialized(LogTopic topic, std::uint64_t k, std::string_view bytes, std::string_view more) {
  return put(topic, k, bytes.size() + more.size(), [&](std::uint8_t* at) {
    std::memcpy(at, bytes.data(), bytes.size());
    std::memcpy(at + bytes.size(), more.data(), more.size());
  });
}

void RunLogger::lost(LogTopic topic, std::uint64_t n) {
  const auto i = static_cast<std::size_t>(topic);
  if (i >= kLogTopics) return;
  dropped_by_topic_[i].fetch_add(n, std::memory_order_relaxed);
  dropped_ += n;
}

void RunLogger::count(std::size_t topic_index) {
  dropped_by_topic_[topic_index].fetch_add(1, std::memory_order_relaxed);
  ++dropped_;
}

void RunLogger::addToBatch(const RecordRing::Record& r) {
  Batch* batch = nullptr;
  for (Batch& b : batches_)
    if (!b.bytes.empty() && b.time_ns == r.time_ns) batch = &b;
  if (batch == nullptr) {
    // An empty one, or else the oldest, written out to make room.
    for (Batch& b : batches_)
      if (batch == nullptr || b.bytes.empty() || (!batch->bytes.empty() && b.time_ns < batch->time_ns)) {
        batch = &b;
        if (b.bytes.empty()) break;
      }
    writeBatch(*batch);
    batch->time_ns = r.time_ns;
  }
  // A PeriodRecord in protobuf's wire format, built from the serialised mailboxes as they are:
  // field (topic index + 1), length-delimited, then the mailbox's bytes.
  wire::putVarint(batch->bytes, wire::tag(r.channel, wire::kLengthDelimited));
  wire::putVarint(batch->bytes, r.data.size());
  batch->bytes.append(r.data);
  ++batch->counts[r.channel - 1u];
}

void RunLogger::writeAllBatches() {
  for (;;) {
    Batch* oldest = nullptr;
    for (Batch& b : batches_)
      if (!b.bytes.empty() && (oldest == nullptr || b.time_ns < oldest->time_ns)) oldest = &b;
    if (oldest == nullptr) return;
    writeBatch(*oldest);
  }
}

void RunLogger::writeBatch(Batch& b) {
  if (b.bytes.empty()) return;
  std::uint64_t mailboxes = 0;
  for (const std::uint64_t n : b.counts) mailboxes += n;
  if (!failed_) {
    try {
      const std::uint64_t split_bytes = std::uint64_t{settings_.split_mib()} << 20;
      const std::uint64_t split_ns = std::uint64_t{settings_.split_s()} * 1'000'000'000u;
      if (file_has_messages_ && ((split_bytes > 0 && writer_->bytesWritten() >= split_bytes) ||
                                 (split_ns > 0 && b.time_ns >= file_start_ns_ + split_ns)))
        openFile(file_number_ + 1);
      if (!file_has_messages_) file_start_ns_ = b.time_ns, file_has_messages_ = true;
      writer_->write(period_channel_, b.time_ns, b.time_ns, storedRecord(b.bytes));
      const auto k = static_cast<std::uint64_t>(std::llround(static_cast<double>(b.time_ns) / dt_ns_));
      if (display_ && display_->take(b.bytes, k)) {
        writer_->write(frames_channel_, display_->stamp_ns(), display_->stamp_ns(), display_->frames());
        writer_->write(scene_channel_, display_->stamp_ns(), display_->stamp_ns(), display_->scene());
      }
      open_bytes_ = writer_->bytesWritten();
      open_uncompressed_ = writer_->uncompressedChunkBytes();
      written_ += mailboxes;
    } catch (const std::exception& e) {
      // A file that cannot be written (a full disk) must not stop the controller: from then on
      // the mailboxes are taken out and counted as dropped, and finish() reports the error.
      error_ = e.what();
      failed_ = true;
    }
  }
  if (failed_) {
    for (std::size_t i = 0; i < b.counts.size(); ++i)
      dropped_by_topic_[i].fetch_add(b.counts[i], std::memory_order_relaxed);
    dropped_ += mailboxes;
  }
  b.bytes.clear();
  b.counts.fill(0);
}

const std::string& RunLogger::storedRecord(const std::string& record) {
  if (records_in_file_++ % HeaderPrediction::kResyncRecords == 0) prediction_.reset();
  stored_.clear();
  predicted_bits_.clear();
  std::size_t i = 0;
  for (std::size_t at = 0; at < record.size(); ++i) {
    std::uint64_t tag = 0, length = 0;
    wire::readVarint(record, at, tag);  // the writer's own bytes (addToBatch): always whole
    wire::readVarint(record, at, length);
    const std::string_view mailbox(record.data() + at, length);
    const std::size_t header = prediction_.predictedHeaderBytes(static_cast<int>(tag >> 3), mailbox);
    wire::putVarint(stored_, tag);
    wire::putVarint(stored_, length - header);
    stored_.append(mailbox.substr(header));
    if (header > 0) {
      if (predicted_bits_.size() <= i / 8) predicted_bits_.resize(i / 8 + 1, '\0');
      predicted_bits_[i / 8] = static_cast<char>(predicted_bits_[i / 8] | (1 << (i % 8)));
    }
    at += length;
  }
  if (!predicted_bits_.empty()) {
    wire::putVarint(stored_, wire::tag(proto::PeriodRecord::kPredictedHeadersFieldNumber, wire::kLengthDelimited));
    wire::putVarint(stored_, predicted_bits_.size());
    stored_.append(predicted_bits_);
  }
  return stored_;
}

void RunLogger::drain() {
  // Below the nodes: the writer is never what makes a period late.
  belowThePeriod("rfms-log-writer", 10);
  for (Batch& b : batches_) b.bytes.reserve(64 * 1024);
  stored_.reserve(64 * 1024);
  RecordRing::Record r;
  for (;;) {
    const bool stopping = stopping_.load();
    while (ring_.front(r)) {
      if (failed_)
        count(r.channel - 1u);
      else
        addToBatch(r);
      ring_.release();
    }
    if (stopping) break;  // everything logged before finish() was asked for is written
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, std::chrono::milliseconds(20));
  }
  writeAllBatches();
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  writer_cpu_s_ = static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9;
}

std::string RunLogger::dropReport() const {
  std::string report = std::to_string(dropped_.load());
  const char* sep = ": ";
  for (std::size_t i = 0; i < kLogTopics; ++i)
    if (const std::uint64_t n = dropped_by_topic_[i].load(std::memory_order_relaxed); n > 0) {
      report += sep + std::string(topicName(static_cast<LogTopic>(i))) + " " + std::to_string(n);
      sep = ", ";
    }
  if (failed_) report += " (writing stopped: " + error_ + ")";
  return dropped_ == 0 && !failed_ ? "none" : report;
}

RunLogger::FileFigures RunLogger::figures() const {
  FileFigures f;
  f.bytes = closed_bytes_ + open_bytes_;
  f.uncompressed_bytes = closed_uncompressed_ + open_uncompressed_;
  f.files = file_number_ + 1;
  f.files_removed = files_removed_;
  f.writer_cpu_s = writer_cpu_s_;
  return f;
}

std::string RunLogger::describe(std::uint64_t periods) const {
  const FileFigures f = figures();
  char buf[256];
  std::snprintf(buf, sizeof buf, "%llu messages, %.1f MB (%.1f MB uncompressed, %.1fx) in %u file%s%s",
                static_cast<unsigned long long>(written_.load()), static_cast<double>(f.bytes) / 1e6,
                static_cast<double>(f.uncompressed_bytes) / 1e6,
                f.bytes > 0 ? static_cast<double>(f.uncompressed_bytes) / static_cast<double>(f.bytes) : 0.0, f.files,
                f.files == 1 ? "" : "s",
                f.files_removed > 0 ? (" (" + std::to_string(f.files_removed) + " removed)").c_str() : "");
  std::string line = buf;
  if (f.writer_cpu_s > 0.0 && periods > 0) {
    std::snprintf(buf, sizeof buf, ", writer %.1f us CPU per period",
                  f.writer_cpu_s * 1e6 / static_cast<double>(periods));
    line += buf;
  }
  return line + ", dropped " + dropReport();
}

void RunLogger::finish() {
  if (finished_) return;
  finished_ = true;
  stopping_ = true;
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (failed_) return;  // failure() says why; the file holds what came before
  proto::LogDrops drops;
  drops.set_dropped(dropped_);
  drops.set_written(written_);
  for (std::size_t i = 0; i < kLogTopics; ++i)
    if (const std::uint64_t n = dropped_by_topic_[i]; n > 0) {
      auto* t = drops.add_per_topic();
      t->set_topic(topicName(static_cast<LogTopic>(i)));
      t->set_dropped(n);
    }
  drops.set_files(file_number_ + 1);
  drops.set_files_removed(files_removed_);
  try {
    writer_->write(drops_channel_, 0, 0, drops.SerializeAsString());
    writer_->close();
  } catch (const std::exception& e) {  // the disk filled at the very end
    error_ = e.what();
    failed_ = true;
  }
  open_bytes_ = writer_->bytesWritten();
  open_uncompressed_ = writer_->uncompressedChunkBytes();
}

std::string RunLogger::failure() const { return failed_ ? error_ : std::string(); }

void logRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply,
                bool desk_only) {
  proto::LogRequest r;
  r.set_period(k);
  *r.mutable_request() = request;
  *r.mutable_reply() = reply;
  r.set_desk_only(desk_only);
  log.log(LogTopic::kRequest, k, r);
}

namespace {

constexpr std::size_t kRefusedFieldBytes = 256;

// Cuts every string and bytes field of `m` (and of the messages in it) to kRefusedFieldBytes; the
// bytes left out.
std::uint64_t cutLongFields(google::protobuf::Message& m) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection& r = *m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(m, &fields);
  std::uint64_t cut = 0;
  auto shorten = [&](std::string s) {
    if (s.size() <= kRefusedFieldBytes) return s;
    cut += s.size() - kRefusedFieldBytes;
    s.resize(kRefusedFieldBytes);
    return s;
  };
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated())
        for (int i = 0; i < r.FieldSize(m, f); ++i)
          r.SetRepeatedString(&m, f, i, shorten(r.GetRepeatedString(m, f, i)));
      else
        r.SetString(&m, f, shorten(r.GetString(m, f)));
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated())
        for (int i = 0; i < r.FieldSize(m, f); ++i) cut += cutLongFields(*r.MutableRepeatedMessage(&m, f, i));
      else
        cut += cutLongFields(*r.MutableMessage(&m, f));
    }
  }
  return cut;
}

}  // namespace

std::string requestRecord(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only) {
  proto::LogRequest r;
  *r.mutable_request() = request;
  *r.mutable_reply() = reply;
  r.set_desk_only(desk_only);
  // Refused before the core saw it: no re-run needs its text whole.
  if (desk_only && !reply.accepted()) r.set_cut_bytes(cutLongFields(*r.mutable_request()));
  return r.SerializeAsString();
}

void logRequestRecord(RunLogger& log, std::uint64_t k, std::string_view record, std::uint64_t checked_lag) {
  using google::protobuf::internal::WireFormatLite;
  std::array<std::uint8_t, 32> tail;  // two tags and two varints of at most 10 bytes each
  std::uint8_t* at = tail.data();
  at = WireFormatLite::WriteUInt64ToArray(proto::LogRequest::kPeriodFieldNumber, k, at);
  if (checked_lag > 0)
    at = WireFormatLite::WriteUInt64ToArray(proto::LogRequest::kCheckedLagFieldNumber, checked_lag, at);
  log.logSerialized(
      LogTopic::kRequest, k, record,
      std::string_view(reinterpret_cast<const char*>(tail.data()), static_cast<std::size_t>(at - tail.data())));
}

}  // namespace rfms
