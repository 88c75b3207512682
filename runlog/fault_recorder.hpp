// The last periods before a fault, kept by every node whether or not a run log is on: what
// libfranka attaches to its control exceptions, here as an MCAP file that rfms-replay reads like
// any run log (its header names the node, the fault and the first period it holds).
//
// The period's thread copies each mail it takes and sends into a preallocated ring of the last
// `periods` periods (serialised straight into a fixed slot: no allocation, no lock, no system
// call). When the node learns of an emergency it calls fault(): the ring stops taking mail and a
// writer thread of its own, below the period's priority, writes it out and then lets the ring
// take mail again (the next emergency, after a reset, gets a file of its own). A period's mail
// beyond its slot, or mail while the ring is being written, is counted, not kept.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <google/protobuf/message.h>

#include "runlog/run_logger.hpp"

namespace rfms {

class FaultRecorder {
 public:
  struct Options {
    std::size_t periods = 100;
    std::size_t bytes_per_period = 16384;  // a supervisor's period takes about 4 KB
    unsigned max_files = 10;               // per run: a run that keeps faulting must not fill the disk
  };

  // Files are `directory`/fault-`node`-p<period>.mcap; `header` is the run's (its fault fields are
  // filled in here). The writer logs through `log`.
  FaultRecorder(std::string directory, std::string node, RunLogHeader header, const Options& options,
                spdlog::logger& log);
  FaultRecorder(std::string directory, std::string node, RunLogHeader header, spdlog::logger& log)
      : FaultRecorder(std::move(directory), std::move(node), std::move(header), Options{}, log) {}
  // A fault declared and not yet written is written first.
  ~FaultRecorder();
  FaultRecorder(const FaultRecorder&) = delete;
  FaultRecorder& operator=(const FaultRecorder&) = delete;

  // The period's thread. Mail on a run log topic (runlog/run_logger.hpp) that belongs to the
  // node's period k (what it took and what it sent), logged at its own period `mail_period` (the
  // joints' answers of k-1 that the supervisor takes in its period k). Real-time safe.
  void record(LogTopic topic, std::uint64_t k, const google::protobuf::Message& mail, std::uint64_t mail_period);
  void record(LogTopic topic, std::uint64_t k, const google::protobuf::Message& mail) { record(topic, k, mail, k); }
  // An emergency at period k: `why`, owed to `culprit` (static strings, which the writer puts in
  // the file's header). Real-time safe: a few stores; the writer notices within its poll.
  void fault(std::uint64_t k, const char* why, const char* culprit);

  // Any thread: files written so far, and mail not kept (a full slot, or while writing).
  unsigned filesWritten() const { return files_.load(); }
  std::uint64_t notKept() const { return not_kept_.load(); }
  // The path of the file for a fault at period k.
  std::string pathFor(std::uint64_t k) const;

 private:
  // One period's mail: records of [topic index u8][period u64][size u32][bytes], one after another.
  struct Slot {
    std::uint64_t period = 0;
    std::size_t used = 0;
    bool valid = false;
  };
  std::uint8_t* slotBytes(std::size_t i) { return block_.get() + i * options_.bytes_per_period; }
  void writer();
  void writeOut();

  std::string directory_, node_;
  RunLogHeader header_;
  Options options_;
  spdlog::logger& log_;
  std::unique_ptr<std::uint8_t[]> block_;
  std::unique_ptr<Slot[]> slots_;
  std::size_t current_ = 0;  // the slot of the period being recorded
  // kRecording: the period's thread owns the ring; kFaulted: the writer does, until it is written.
  enum State : int { kRecording, kFaulted };
  std::atomic<int> state_{kRecording};
  std::uint64_t fault_period_ = 0;  // written before state_ turns kFaulted, read after
  const char* fault_why_ = "";
  const char* fault_culprit_ = "";
  std::atomic<unsigned> files_{0};
  std::atomic<std::uint64_t> not_kept_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace rfms
