// A run's log: MCAP with the run's header (robot model, cluster configuration, controller
// settings, clock, software version) as metadata, and, by topic, every period's mailboxes, every
// task request with its period and answer, and the supervisor's events; on disk one message per
// period (proto::PeriodRecord on /rfms/period) holds them all, each mailbox's header left out
// where it is the one its sender's stream predicts (runlog/header_prediction.hpp).
//
// Messages are serialised into a preallocated ring (runlog/record_ring.hpp) that a writer thread,
// below the nodes' priority, drains into the file. When the ring is full a message is dropped and
// counted per topic (realtime runs), or the caller waits for room (runs whose clock may wait);
// drops are written into the log at the end and are available from dropped() and dropReport().
//
// The settings' `log` block says how: chunks compressed with zstd or not, the ring's size in
// seconds of mail, whether the log is split into several files (runlog/log_files.hpp) of which
// only the newest are kept, and how many pictures of the arm a second the writer draws beside the
// mail (runlog/display_track.hpp) for Foxglove's 3D panel.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>

#include "proto/controller.pb.h"
#include "proto/runlog.pb.h"
#include "runlog/header_prediction.hpp"
#include "runlog/mcap_writer.hpp"
#include "runlog/record_ring.hpp"

namespace rfms {

class DisplayTrack;  // runlog/display_track.hpp

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
// The MCAP channel the topics above travel on, a period's mailboxes in one message
// (proto::PeriodRecord, whose field numbers follow the order of LogTopic).
inline constexpr const char* kPeriod = "/rfms/period";
}  // namespace topic

// The topics as writers name them: a mailbox of topic t is field t + 1 of a PeriodRecord. A
// period's thread logs by this number, never by the name (which readers and reports use).
enum class LogTopic : std::uint8_t {
  kSensors,
  kSMail,
  kMMail,
  kParcel,
  kJMail,
  kTorque,
  kRequest,
  kEvent,
  kDrops,
  kTiming,
  kApplied,
};
inline constexpr std::size_t kLogTopics = static_cast<std::size_t>(LogTopic::kApplied) + 1;
// The topic's name ("/rfms/smail"); "" for a number that is none.
const char* topicName(LogTopic t);

// The header: metadata record "rfms" of the log. The controller's settings are one message
// (proto/controller.proto), stored in text format with every default written out.
struct RunLogHeader {
  std::string source;  // "rfms-sim", "cluster"
  std::string robot_name, robot_model_text;
  std::string scene_text;  // the scene file's text ("" without a scene)
  std::string cluster_config_text;
  std::string task_text;
  std::string clock = "lockstep";
  proto::ControllerSettings settings;
  // A fault record (runlog/fault_recorder.hpp) holds the last periods before an emergency: the
  // first of them, and what happened (empty in a run's own log, which starts at period 0).
  std::uint64_t first_period = 0;
  std::string fault;
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

  // The ring holds header.settings.log().ring_s seconds of mail unless `ring_bytes` says otherwise
  // (the tests' small rings). Throws ConfigError when the file cannot be created.
  RunLogger(const std::string& path, const RunLogHeader& header, WhenFull when_full = WhenFull::kDrop,
            std::size_t ring_bytes = 0);
  ~RunLogger();

  // A message on `topic` at period k (log time k * dt), serialised straight into the ring:
  // real-time safe with kDrop (no allocation, no lock, no wait). False when it was dropped.
  bool log(LogTopic topic, std::uint64_t k, const google::protobuf::Message& message);
  // The same with the message already serialised (a fault record's copy of it).
  bool logSerialized(LogTopic topic, std::uint64_t k, std::string_view bytes);
  // `bytes` and then `more`, as one message.
  bool logSerialized(LogTopic topic, std::uint64_t k, std::string_view bytes, std::string_view more);
  // Drains the ring, writes the drop count and closes the file. A file that cannot be written (a
  // full disk) never stops the run: from then on the mailboxes are counted as dropped, the file
  // keeps what came before, and failure() says why.
  void finish();
  // Why writing stopped, or "" while the log is whole. Any thread after finish(); the writer's
  // own report before it is dropReport().
  std::string failure() const;
  // Whether writing has stopped: real-time safe (one atomic load), any thread, any time.
  bool stopped() const { return failed_; }

  // Mail that never reached this logger: `n` messages of `topic` lost on their way (a mailbox a
  // stalled supervisor did not read in time). Counted as dropped, so that a re-run of the log knows
  // it is not whole there. Real-time safe.
  void lost(LogTopic topic, std::uint64_t n);

  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t written() const { return written_; }
  // What was dropped, topic by topic ("none", or "12: /rfms/jmail 10, /rfms/smail 2"), and why
  // writing stopped if it did. Any thread, any time.
  std::string dropReport() const;
  // The figures of the files written so far (final after finish()).
  struct FileFigures {
    std::uint64_t bytes = 0;               // on disk, every file of the run (removed ones included)
    std::uint64_t uncompressed_bytes = 0;  // the chunks' records before compression
    unsigned files = 0, files_removed = 0;
    double writer_cpu_s = 0.0;  // the writer thread's CPU time: serialising aside, the log's whole cost
  };
  FileFigures figures() const;
  // One line for summaries and status: messages, size on disk against uncompressed, files, the
  // writer's CPU per period of a run of `periods`, and the drops.
  std::string describe(std::uint64_t periods) const;

  // A cluster's mail per period, about: what ring_s seconds of it take.
  static constexpr std::size_t kRingBytesPerPeriod = 4096;
  // The ring for these settings: ring_s seconds of mail at dt_ms.
  static std::size_t ringBytesFor(const proto::ControllerSettings& settings);

 private:
  template <class Write>
  bool put(LogTopic topic, std::uint64_t k, std::size_t size, Write write);
  void openFile(unsigned number);  // the writer thread's, after the constructor's first
  void drain();
  struct Batch;
  void addToBatch(const RecordRing::Record& r);
  void writeBatch(Batch& b);
  void writeAllBatches();
  // A batch's record as it goes into the file: the headers that were predicted left out, and
  // marked (runlog/header_prediction.hpp).
  const std::string& storedRecord(const std::string& record);
  void count(std::size_t topic_index);  // a dropped message

  std::string path_;
  mcap::KeyValues header_;
  proto::LogSettings settings_;
  std::unique_ptr<mcap::Writer> writer_;
  double dt_ns_;
  WhenFull when_full_;
  std::uint16_t period_channel_ = 0, drops_channel_ = 0, frames_channel_ = 0, scene_channel_ = 0;
  std::unique_ptr<DisplayTrack> display_;  // the writer thread's; null without pictures
  // The writer's PeriodRecords in the making: wire-format bytes, log time, mailboxes by topic.
  // A few are open at once, because a period's mail is logged interleaved with the one before
  // (lockstep: the joints' answers of k-1 after the sensors of k; realtime: late mail); the
  // oldest is written when a newer period needs its place.
  struct Batch {
    std::string bytes;
    std::uint64_t time_ns = 0;
    std::array<std::uint64_t, kLogTopics> counts{};
  };
  static constexpr std::size_t kOpenBatches = 4;
  std::array<Batch, kOpenBatches> batches_;
  HeaderPrediction prediction_;
  std::uint64_t records_in_file_ = 0;
  std::string stored_, predicted_bits_;  // reused for every record
  std::array<std::atomic<std::uint64_t>, kLogTopics> dropped_by_topic_{};
  // The open file: its number, where its log time began, what the closed ones held.
  std::atomic<unsigned> file_number_{0};
  std::uint64_t file_start_ns_ = 0;
  bool file_has_messages_ = false;
  std::atomic<std::uint64_t> closed_bytes_{0}, closed_uncompressed_{0}, open_bytes_{0}, open_uncompressed_{0};
  std::atomic<unsigned> files_removed_{0};
  std::atomic<double> writer_cpu_s_{0.0};
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

// The same in two halves, for a supervisor whose background answers requests and whose period
// applies them: the background serialises the record without its period (requestRecord), and
// the period that applied it logs it (logRequestRecord) with its own number k and how many periods
// before k-1 the background checked it (0: against the view of period k-1, as in lockstep). The
// two fields are appended to the serialised record: in protobuf's wire format the last value of
// a field wins. Real-time safe: the record is copied into the logger's ring.
std::string requestRecord(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only);
void logRequestRecord(RunLogger& log, std::uint64_t k, std::string_view record, std::uint64_t checked_lag);

}  // namespace rfms
