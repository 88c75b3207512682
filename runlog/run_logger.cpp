#include "runlog/run_logger.hpp"

#include <google/protobuf/descriptor.pb.h>

#include <chrono>
#include <functional>
#include <set>

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

mcap::KeyValues RunLogHeader::toMetadata() const {
  mcap::KeyValues kv = settings;
  kv.insert({{"source", source},
          {"robot", robot_name},
          {"robot_model", robot_model_text},
          {"cluster_config", cluster_config_text},
          {"task", task_text},
          {"dt_ms", std::to_string(dt_ms)},
          {"clock", clock},
          {"update_periods", std::to_string(update_periods)},
          {"pik", pik},
          {"serial_ik", serial_ik ? "true" : "false"},
          {"version", softwareVersion()}});
  return kv;
}

RunLogger::RunLogger(const std::string& path, const RunLogHeader& header, std::size_t queue_capacity)
    : writer_(path, "rfms", std::string("rfms ") + softwareVersion()), dt_ns_(header.dt_ms * 1e6),
      capacity_(queue_capacity) {
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
    it = schemas_.emplace(type->full_name(), writer_.addSchema(type->full_name(), "protobuf", descriptorSet(type))).first;
  channels_[topic] = writer_.addChannel(it->second, topic, "protobuf");
}

void RunLogger::log(const char* topic, std::uint64_t k, const google::protobuf::Message& message) {
  const auto channel = channels_.find(topic);
  if (channel == channels_.end()) return;  // not one of the log's topics: a programming error upstream
  Item item{channel->second, static_cast<std::uint64_t>(static_cast<double>(k) * dt_ns_), message.SerializeAsString()};
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (finished_ || queue_.size() >= capacity_) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(item));
    // The writer wakes for a batch (or on its own every 20 ms), not for every message: a wake-up
    // per message costs the period's thread, and the other processes, more than the message.
    wake = queue_.size() == kBatch;
  }
  if (wake) ready_.notify_one();
}

void RunLogger::drain() {
  std::deque<Item> batch;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      ready_.wait_for(lock, std::chrono::milliseconds(20), [this] { return stopping_ || queue_.size() >= kBatch; });
      if (queue_.empty() && stopping_) return;
      batch.swap(queue_);
    }
    for (const Item& i : batch) {
      writer_.write(i.channel, i.time_ns, i.time_ns, i.bytes);
      ++written_;
    }
    batch.clear();
  }
}

void RunLogger::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    stopping_ = true;
  }
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
  proto::LogDrops drops;
  drops.set_dropped(dropped_);
  drops.set_written(written_);
  writer_.write(channels_[topic::kDrops], 0, 0, drops.SerializeAsString());
  writer_.close();
}

}  // namespace rfms
