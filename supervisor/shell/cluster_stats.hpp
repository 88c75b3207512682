// The cluster's running figures, recorded by the supervisor's period thread and read by any other
// (the status file's writer, the summary at the end): mail that missed its period by node, how
// late answers came after their tick (realtime), bytes on the wire, periods run and the rtstate.
// Recording is real-time safe: relaxed atomics and fixed-bin histograms, no allocation.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/mail_names.hpp"
#include "proto/mailboxes.pb.h"
#include "runtime/lateness_histogram.hpp"

namespace rfms {

class RunLogger;

class ClusterStats {
 public:
  ClusterStats() : lateness_(std::make_unique<std::array<LatenessHistogram, kNodeSlots>>()) {}

  void missed(proto::Node n, std::uint64_t count = 1) noexcept { slot(misses_, n).fetch_add(count, kRelaxed); }
  void late(proto::Node n, double ms) noexcept { (*lateness_)[static_cast<std::size_t>(n)].add(ms); }
  void bytes(std::uint64_t n) noexcept { bytes_.fetch_add(n, kRelaxed); }
  void ran(std::uint64_t periods, proto::RtState state) noexcept {
    periods_.store(periods, kRelaxed);
    state_.store(state, kRelaxed);
  }

  std::uint64_t misses(proto::Node n) const { return misses_[static_cast<std::size_t>(n)].load(kRelaxed); }
  LatenessHistogram::Summary lateness(proto::Node n) const {
    return (*lateness_)[static_cast<std::size_t>(n)].summary();
  }
  std::uint64_t periods() const { return periods_.load(kRelaxed); }
  double bytesPerPeriod() const;

  // One line a node: misses and lateness; and what the run log wrote and dropped (`log` may be null).
  std::string statusText(const RunLogger* log) const;
  // Periods, bytes per period, and each node's misses and lateness percentiles.
  std::string json() const;

 private:
  static constexpr auto kRelaxed = std::memory_order_relaxed;
  static std::atomic<std::uint64_t>& slot(std::array<std::atomic<std::uint64_t>, kNodeSlots>& a, proto::Node n) {
    return a[static_cast<std::size_t>(n)];
  }

  std::array<std::atomic<std::uint64_t>, kNodeSlots> misses_{};
  std::unique_ptr<std::array<LatenessHistogram, kNodeSlots>> lateness_;  // 400 kB: not on the stack
  std::atomic<std::uint64_t> bytes_{0}, periods_{0};
  std::atomic<proto::RtState> state_{proto::RT_IDLE};
};

}  // namespace rfms
