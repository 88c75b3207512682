// One client's watch (RFMS's debug(), TaskRequest.watch): the mailbox signals it asked for,
// sampled every `every` periods into a ring of fixed size that status answers drain. Sampling is
// real-time safe (the ring is allocated when the watch is made) and costs the period a few
// reflection reads per signal; a client that asks for more than the link carries loses the
// oldest samples, counted, never the period's time.
#pragma once

#include <cstdint>
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
  std::size_t held() const { return count_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  std::vector<MailSignal> signals_;
  double rate_hz_ = 0.0;
  int every_ = 1;
  std::vector<std::uint64_t> periods_;  // kCapacity
  std::vector<double> values_;          // kCapacity x signals
  std::size_t head_ = 0, count_ = 0;    // the oldest sample, and how many
  std::uint64_t dropped_ = 0;
};

}  // namespace rfms
