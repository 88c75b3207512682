// One client's watch (RFMS's debug(), TaskRequest.watch): the mailbox signals it asked for,
// sampled every `every` periods into a ring of fixed size that status answers drain. Sampling is
// real-time safe (the ring is allocated when the watch is made) and costs the period a few
// reflection reads per signal; a client that asks for more than the link carries loses the
// oldest samples, counted, never the period's time.
//
// The period thread samples and the background drains, each on its own thread: the ring is
// theirs without a lock. Each place carries the number of the sample in it, written after the
// values; a drain that finds a place overwritten while it read counts that sample as dropped.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/mail_signal.hpp"
#include "proto/task.pb.h"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

class SignalWatch {
 public:
  static constexpr std::size_t kMaxSignals = 16;
  static constexpr std::size_t kMaxNameLength = 128;
  static constexpr std::size_t kCapacity = 1024;            // samples held
  static constexpr std::size_t kMaxValuesPerAnswer = 4096;  // keeps an answer well inside a datagram

  // The watch `w` asks for at sample period dt, or nullopt with `why` it cannot be had.
  static std::optional<SignalWatch> make(const proto::Watch& w, double dt, std::string& why);

  // Period k's mail: sampled when k is a multiple of every().
  void sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out);
  // The signals, the rate and as many of the oldest samples as one answer carries, which leave
  // the ring.
  void drain(proto::ArmStatus& s);

  int every() const { return every_; }
  double rateHz() const { return rate_hz_; }
  std::size_t held() const;
  std::uint64_t dropped() const;

 private:
  // What both threads touch, in one block that stays put when the watch is moved.
  struct Ring {
    explicit Ring(std::size_t signals);
    std::vector<std::atomic<std::uint64_t>> stamp;   // kCapacity: the sample's number + 1 (0: none)
    std::vector<std::atomic<std::uint64_t>> period;  // kCapacity
    std::vector<std::atomic<double>> values;         // kCapacity x signals
    std::atomic<std::uint64_t> written{0};           // samples ever taken
  };
  std::vector<MailSignal> signals_;
  double rate_hz_ = 0.0;
  int every_ = 1;
  std::unique_ptr<Ring> ring_;
  std::uint64_t read_ = 0;     // the drain's: the next sample it answers with
  std::uint64_t dropped_ = 0;  // the drain's: samples it found overwritten or skipped
};

}  // namespace rfms
