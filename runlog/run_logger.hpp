// A run's log: one MCAP file with the run's header (robot model, cluster configuration, sample
// period, clock, software version) as metadata, and on their own channels every period's
// mailboxes, every task request with its period and answer, and the supervisor's events.
//
// Logging never blocks the caller: messages are serialised into a bounded queue that a writer
// thread drains into the file; when the queue is full a message is dropped and counted, and the
// count is written into the log at the end (and available from dropped()).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <google/protobuf/message.h>

#include "proto/runlog.pb.h"
#include "runlog/mcap_writer.hpp"

namespace rfms {

// The log's topics.
namespace topic {
inline constexpr const char* kSensors = "/rfms/sensors";
inline constexpr const char* kSMail = "/rfms/smail";
inline constexpr const char* kMMail = "/rfms/mmail";
inline constexpr const char* kParcel = "/rfms/parcel";
inline constexpr const char* kJMail = "/rfms/jmail";
inline constexpr const char* kTorque = "/rfms/torque";
inline constexpr const char* kRequest = "/rfms/request";
inline constexpr const char* kEvent = "/rfms/event";
inline constexpr const char* kDrops = "/rfms/drops";
inline constexpr const char* kTiming = "/rfms/timing";
inline constexpr const char* kApplied = "/rfms/applied";  // cluster runs: which torque drove each arm period
}  // namespace topic

// The header: metadata record "rfms" of the log.
struct RunLogHeader {
  std::string source;          // "rfms-sim", "cluster"
  std::string robot_name, robot_model_text;
  std::string cluster_config_text;
  std::string task_text;
  double dt_ms = 1.0;
  std::string clock = "lockstep";
  int update_periods = 1;
  std::string pik;
  bool serial_ik = false;
  mcap::KeyValues settings;  // every setting needed to run the same controller again ("harness.*")
  mcap::KeyValues toMetadata() const;
};

// The software version this binary was built from (git describe at configure time).
const char* softwareVersion();

class RunLogger {
 public:
  RunLogger(const std::string& path, const RunLogHeader& header, std::size_t queue_capacity = 1 << 16);
  ~RunLogger();

  // A message on `topic` at period k (log time k * dt). Never blocks; drops when the queue is full.
  void log(const char* topic, std::uint64_t k, const google::protobuf::Message& message);
  // Drains the queue, writes the drop count and closes the file.
  void finish();

  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t written() const { return written_; }

 private:
  struct Item {
    std::uint16_t channel;
    std::uint64_t time_ns;
    std::string bytes;
  };
  void addTopic(const char* topic, const google::protobuf::Descriptor* type);
  void drain();

  mcap::Writer writer_;
  double dt_ns_;
  std::map<std::string, std::uint16_t> channels_;  // topic -> channel, all made by the constructor
  std::map<std::string, std::uint16_t> schemas_;   // full message name -> schema
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> queue_;
  std::size_t capacity_;
  static constexpr std::size_t kBatch = 512;
  bool stopping_ = false, finished_ = false;
  std::atomic<std::uint64_t> dropped_{0}, written_{0};
  std::thread thread_;
};

}  // namespace rfms
