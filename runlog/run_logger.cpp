#include "runlog/run_logger.hpp"

#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>

#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "proto/cluster.pb.h"

#ifndef RFMS_VERSION
#define RFMS_VERSION "unknown"
#endif

namespace rfms {

namespace {

// The schema MCAP readers need for a protobuf channel: a FileDescriptorSet holding the message's
// file and every file it imports, dependencies first.
std::string descriptorSet(const google::protobuf::Descriptor* type) {
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> seen;
  std::function<void(const google::protobuf::FileDescriptor*)> add = [&](const google::protobuf::FileDescriptor* f) {
    if (!seen.insert(f->name()).second) return;
    for (int i = 0; i < f->dependency_count(); ++i) add(f->dependency(i));
    f->CopyTo(set.add_file());
  };
  add(type->file());
  return set.SerializeAsString();
}

}  // namespace

const char* softwareVersion() { return RFMS_VERSION; }

namespace {
constexpr const char* kSettingsKey = "controller_settings";
}  // namespace

mcap::KeyValues RunLogHeader::toMetadata() const {
  return {{"source", source},
          {"robot", robot_name},
          {"robot_model", robot_model_text},
          {"cluster_config", cluster_config_text},
          {"task", task_text},
          {"clock", clock},
          {kSettingsKey, settingsText(withDefaultsWritten(settings))},
          {"version", softwareVersion()}};
}

proto::ControllerSettings settingsOfHeader(const mcap::KeyValues& header) {
  const auto it = header.find(kSettingsKey);
  if (it == header.end()) {
    const auto version = header.find("version");
    throw ConfigError("the log's header has no controller settings: it was written by rfms " +
                      (version == header.end() ? std::string("of an unknown version") : version->second) +
                      ", before the settings were one message; re-run it with that version");
  }
  proto::ControllerSettings s = parseSettingsText(it->second, "the log's controller settings");
  checkControllerSettings(s, "the log's controller");
  return s;
}

RunLogger::RunLogger(const std::string& path, const RunLogHeader& header, WhenFull when_full, std::size_t ring_bytes)
    : writer_(path, "rfms", std::string("rfms ") + softwareVersion()),
      dt_ns_(header.settings.dt_ms() * 1e6),
      when_full_(when_full),
      ring_(ring_bytes) {
  writer_.addMetadata("rfms", header.toMetadata());
  addTopic(topic::kSensors, proto::ArmSensors::descriptor());
  addTopic(topic::kSMail, proto::SMail::descriptor());
  addTopic(topic::kMMail, proto::MMail::descriptor());
  addTopic(topic::kParcel, proto::Parcel::descriptor());
  addTopic(topic::kJMail, proto::JMail::descriptor());
  addTopic(topic::kTorque, proto::TorqueCommand::descriptor());
  addTopic(topic::kRequest, proto::LogRequest::descriptor());
  addTopic(topic::kEvent, proto::LogEvent::descriptor());
  addTopic(topic::kDrops, proto::LogDrops::descriptor());
  addTopic(topic::kTiming, proto::PeriodTiming::descriptor());
  addTopic(topic::kApplied, proto::AppliedTorques::descriptor());
  thread_ = std::thread([this] { drain(); });
}

RunLogger::~RunLogger() {
  try {
    finish();
  } catch (...) {  // a destructor must not throw; finish() reports errors to those who call it
  }
}

void RunLogger::addTopic(const char* topic, const google::protobuf::Descriptor* type) {
  auto it = schemas_.find(type->full_name());
  if (it == schemas_.end())
    it = schemas_.emplace(type->full_name(), writer_.addSchema(type->full_name(), "protobuf", descriptorSet(type)))
             .first;
  channels_.emplace_back(topic, writer_.addChannel(it->second, topic, "protobuf"));
}

bool RunLogger::log(const char* topic, std::uint64_t k, const google::protobuf::Message& message) {
  const auto channel =
      std::find_if(channels_.begin(), channels_.end(), [&](const auto& c) { return std::strcmp(c.first, topic) == 0; });
  if (channel == channels_.end() || finished_) return false;  // not one of the log's topics: a bug upstream
  const std::size_t size = message.ByteSizeLong();
  std::uint8_t* at = ring_.reserve(size);
  while (at == nullptr && when_full_ == WhenFull::kWait && !failed_ && size <= ring_.capacity() / 4) {
    ready_.notify_one();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    at = ring_.reserve(size);
  }
  if (at == nullptr) {
    ++dropped_;
    return false;
  }
  message.SerializeWithCachedSizesToArray(at);
  ring_.commit(channel->second, static_cast<std::uint64_t>(static_cast<double>(k) * dt_ns_));
  // The writer wakes for a batch (or on its own every 20 ms), not for every message: a wake-up
  // per message costs the period's thread, and the other processes, more than the message.
  if (++since_wake_ >= kBatch) {
    since_wake_ = 0;
    ready_.notify_one();
  }
  return true;
}

void RunLogger::drain() {
  RecordRing::Record r;
  for (;;) {
    const bool stopping = stopping_.load();
    while (ring_.front(r)) {
      // A file that cannot be written (a full disk) must not stop the controller: from then on
      // the records are taken out and counted as dropped, and finish() reports the error.
      if (!failed_) {
        try {
          writer_.write(r.channel, r.time_ns, r.time_ns, r.data);
          ++written_;
        } catch (const std::exception& e) {
          error_ = e.what();
          failed_ = true;
        }
      }
      if (failed_) ++dropped_;
      ring_.release();
    }
    if (stopping) return;  // everything logged before finish() was asked for is written
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

void RunLogger::finish() {
  if (finished_) return;
  finished_ = true;
  stopping_ = true;
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (failed_) throw ConfigError(error_);
  proto::LogDrops drops;
  drops.set_dropped(dropped_);
  drops.set_written(written_);
  const auto channel = std::find_if(channels_.begin(), channels_.end(),
                                    [](const auto& c) { return std::strcmp(c.first, topic::kDrops) == 0; });
  writer_.write(channel->second, 0, 0, drops.SerializeAsString());
  writer_.close();
}

void logRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply,
                bool desk_only) {
  proto::LogRequest r;
  r.set_period(k);
  *r.mutable_request() = request;
  *r.mutable_reply() = reply;
  r.set_desk_only(desk_only);
  log.log(topic::kRequest, k, r);
}

}  // namespace rfms
