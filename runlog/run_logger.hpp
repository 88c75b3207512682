// A run's log: one MCAP file with the run's header (robot model, cluster configuration, controller
// settings, clock, software version) as metadata, and on their own channels every period's
// mailboxes, every task request with its period and answer, and the supervisor's events.
//
// Messages are serialised into a preallocated ring (runlog/record_ring.hpp) that a writer thread
// drains into the file. When the ring is full a message is dropped and counted (realtime runs),
// or the caller waits for room (runs whose clock may wait); drops are written into the log at the
// end and are available from dropped().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>

#include "proto/controller.pb.h"
#include "proto/runlog.pb.h"
#include "runlog/mcap_writer.hpp"
#include "runlog/record_ring.hpp"

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

// The header: metadata record "rfms" of the log. The controller's settings are one message
// (proto/controller.proto), stored in text format with every default written out.
struct RunLogHeader {
  std::string source;  // "rfms-sim", "cluster"
  std::string robot_name, robot_model_text;
  std::string cluster_config_text;
  std::string task_text;
  std::string clock = "lockstep";
  proto::ControllerSettings settings;
  mcap::KeyValues toMetadata() const;
};

// The controller settings a log's header holds. A log written before the settings were one
// message is refused with a ConfigError naming the version that wrote it.
proto::ControllerSettings settingsOfHeader(const mcap::KeyValues& header);

// The software version this binary was built from (git describe at configure time).
const char* softwareVersion();

class RunLogger {
 public:
  // What log() does when the ring is full: a realtime clock cannot wait, so it drops and counts;
  // a run whose clock may wait (rfms-sim, lockstep, paced) waits for the writer and loses nothing.
  enum class WhenFull { kDrop, kWait };

  RunLogger(const std::string& path, const RunLogHeader& header, WhenFull when_full = WhenFull::kDrop,
            std::size_t ring_bytes = kDefaultRingBytes);
  ~RunLogger();

  // A message on `topic` at period k (log time k * dt), serialised straight into the ring:
  // real-time safe with kDrop (no allocation, no lock, no wait). False when it was dropped.
  bool log(const char* topic, std::uint64_t k, const google::protobuf::Message& message);
  // Drains the ring, writes the drop count and closes the file. Throws ConfigError when the file
  // could not be written (the run went on; what could not be written was counted as dropped).
  void finish();

  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t written() const { return written_; }

  // About four seconds of a 1 kHz cluster's mail.
  static constexpr std::size_t kDefaultRingBytes = 16u << 20;

 private:
  void addTopic(const char* topic, const google::protobuf::Descriptor* type);
  void drain();

  mcap::Writer writer_;
  double dt_ns_;
  WhenFull when_full_;
  // The log's topics and their channels, all made by the constructor; looked up without allocating.
  std::vector<std::pair<const char*, std::uint16_t>> channels_;
  std::map<std::string, std::uint16_t> schemas_;  // full message name -> schema
  RecordRing ring_;
  std::mutex mutex_;  // only for the writer's sleep
  std::condition_variable ready_;
  std::uint64_t since_wake_ = 0;  // messages since the writer was last woken (the producer's count)
  static constexpr std::uint64_t kBatch = 512;
  std::atomic<bool> stopping_{false}, failed_{false};
  std::string error_;  // why the file could not be written; set by the writer before failed_
  bool finished_ = false;
  std::atomic<std::uint64_t> dropped_{0}, written_{0};
  std::thread thread_;
};

// A task request as the supervisor took it, at period k, with its answer; `desk_only`: the remote
// desk answered it alone and the supervisor core never saw it.
void logRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply,
                bool desk_only = false);

}  // namespace rfms
