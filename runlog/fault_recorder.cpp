#include "runlog/fault_recorder.hpp"

#include <chrono>
#include <cstring>
#include <filesystem>

#include "common/thread_role.hpp"

namespace rfms {

namespace {
struct RecordHead {
  std::uint8_t topic;
  std::uint64_t period;
  std::uint32_t size;
};
constexpr std::size_t kHeadBytes = 1 + 8 + 4;

// How often the writer looks for a fault: a file a few tens of milliseconds after the emergency
// is soon enough, and the period's thread never has to wake anyone.
constexpr auto kPoll = std::chrono::milliseconds(20);
}  // namespace

FaultRecorder::FaultRecorder(std::string directory, std::string node, RunLogHeader header, const Options& options,
                             spdlog::logger& log)
    : directory_(std::move(directory)),
      node_(std::move(node)),
      header_(std::move(header)),
      options_(options),
      log_(log),
      block_(new std::uint8_t[options.periods * options.bytes_per_period]),
      slots_(new Slot[options.periods]) {
  // Touched now, so that no page fault waits for the period's thread.
  std::memset(block_.get(), 0, options_.periods * options_.bytes_per_period);
  thread_ = std::thread([this] { writer(); });
}

FaultRecorder::~FaultRecorder() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string FaultRecorder::pathFor(std::uint64_t k) const {
  return directory_ + "/fault-" + node_ + "-p" + std::to_string(k) + ".mcap";
}

void FaultRecorder::record(LogTopic topic, std::uint64_t k, const google::protobuf::Message& mail,
                           std::uint64_t mail_period) {
  if (state_.load(std::memory_order_acquire) != kRecording) {
    not_kept_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Slot* slot = &slots_[current_];
  if (!slot->valid || slot->period != k) {
    if (slot->valid) {
      current_ = (current_ + 1) % options_.periods;
      slot = &slots_[current_];
    }
    *slot = Slot{k, 0, true};
  }
  const std::size_t size = mail.ByteSizeLong();
  // The drops are the log's own, written when it is finished.
  if (static_cast<std::size_t>(topic) >= kLogTopics || topic == LogTopic::kDrops ||
      slot->used + kHeadBytes + size > options_.bytes_per_period) {
    not_kept_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::uint8_t* at = slotBytes(current_) + slot->used;
  const RecordHead head{static_cast<std::uint8_t>(topic), mail_period, static_cast<std::uint32_t>(size)};
  std::memcpy(at, &head.topic, 1);
  std::memcpy(at + 1, &head.period, 8);
  std::memcpy(at + 9, &head.size, 4);
  mail.SerializeWithCachedSizesToArray(at + kHeadBytes);
  slot->used += kHeadBytes + size;
}

void FaultRecorder::fault(std::uint64_t k, const char* why, const char* culprit) {
  if (state_.load(std::memory_order_relaxed) != kRecording) return;
  fault_period_ = k;
  fault_why_ = why;
  fault_culprit_ = culprit;
  state_.store(kFaulted, std::memory_order_release);
}

void FaultRecorder::writer() {
  belowThePeriod("rfms-fault-rec", 10);  // it writes files
  for (;;) {
    const bool last = stopping_.load();
    if (state_.load(std::memory_order_acquire) == kFaulted) {
      writeOut();
      for (std::size_t i = 0; i < options_.periods; ++i) slots_[i] = Slot{};
      current_ = 0;
      state_.store(kRecording, std::memory_order_release);
    }
    if (last) return;
    std::this_thread::sleep_for(kPoll);
  }
}

void FaultRecorder::writeOut() {
  const std::uint64_t k = fault_period_;
  if (files_.load() >= options_.max_files) {
    if (files_.load() == options_.max_files)
      log_.warn("fault at period {}: {} fault records written already this run; no more", k, options_.max_files);
    return;
  }
  // The slots in period order: the oldest is the one after the current.
  std::size_t first = (current_ + 1) % options_.periods;
  while (!slots_[first].valid && first != current_) first = (first + 1) % options_.periods;
  if (!slots_[first].valid) {
    log_.warn("fault at period {}: no mail recorded before it; no fault record", k);
    return;
  }
  RunLogHeader header = header_;
  header.first_period = slots_[first].period;
  header.fault =
      std::string(fault_why_) + " (" + fault_culprit_ + ") at period " + std::to_string(k) + ", recorded by " + node_;
  const std::string path = pathFor(k);
  try {
    std::filesystem::create_directories(directory_);
    RunLogger out(path, header, RunLogger::WhenFull::kWait, options_.periods * options_.bytes_per_period * 2);
    std::size_t periods = 0;
    for (std::size_t n = 0, i = first; n < options_.periods; ++n, i = (i + 1) % options_.periods) {
      const Slot& s = slots_[i];
      if (!s.valid) continue;
      ++periods;
      const std::uint8_t* at = slotBytes(i);
      for (std::size_t used = 0; used + kHeadBytes <= s.used;) {
        RecordHead head{};
        std::memcpy(&head.topic, at + used, 1);
        std::memcpy(&head.period, at + used + 1, 8);
        std::memcpy(&head.size, at + used + 9, 4);
        out.logSerialized(static_cast<LogTopic>(head.topic), head.period,
                          std::string_view(reinterpret_cast<const char*>(at + used + kHeadBytes), head.size));
        used += kHeadBytes + head.size;
      }
      if (i == current_) break;
    }
    out.finish();
    if (const std::string failure = out.failure(); !failure.empty())
      log_.error("fault record {}: {}", path, failure);
    else
      log_.warn("fault record {}: the last {} periods before it ({} .. {})", path, periods, header.first_period,
                slots_[current_].period);
    files_.fetch_add(1);
  } catch (const std::exception& e) {
    log_.error("fault at period {}: the fault record {} could not be written: {}", k, path, e.what());
  }
}

}  // namespace rfms
