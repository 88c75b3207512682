// How late a node's answers come after their period's tick, kept as a fixed-bin histogram: adding
// a sample is one relaxed atomic increment (real-time safe: no allocation, no sort, no growth, an
// hour or a week alike), and any other thread may read the percentiles while samples come in.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace rfms {

class LatenessHistogram {
 public:
  static constexpr double kBinMs = 0.005;      // 5 µs bins
  static constexpr std::size_t kBins = 10000;  // up to 50 ms; later samples share the last bin

  void add(double ms) noexcept {
    const double clamped = ms < 0.0 ? 0.0 : ms;
    const auto bin = static_cast<std::size_t>(clamped / kBinMs);
    bins_[bin < kBins ? bin : kBins - 1].fetch_add(1, std::memory_order_relaxed);
    samples_.fetch_add(1, std::memory_order_relaxed);
    double seen = max_.load(std::memory_order_relaxed);
    while (clamped > seen && !max_.compare_exchange_weak(seen, clamped, std::memory_order_relaxed)) {
    }
  }

  struct Summary {
    double p50 = 0, p99 = 0, p999 = 0, max = 0;  // ms; a percentile is its bin's upper edge
    std::uint64_t samples = 0;
  };
  // Any thread; not real-time safe only in that it walks the bins (10,000 loads).
  Summary summary() const noexcept {
    Summary s;
    s.samples = samples_.load(std::memory_order_relaxed);
    s.max = max_.load(std::memory_order_relaxed);
    if (s.samples == 0) return s;
    const double targets[3] = {0.5, 0.99, 0.999};
    double* out[3] = {&s.p50, &s.p99, &s.p999};
    std::uint64_t below = 0;
    int next = 0;
    for (std::size_t b = 0; b < kBins && next < 3; ++b) {
      below += bins_[b].load(std::memory_order_relaxed);
      while (next < 3 && static_cast<double>(below) >= targets[next] * static_cast<double>(s.samples)) {
        *out[next] = std::min(static_cast<double>(b + 1) * kBinMs, s.max);
        ++next;
      }
    }
    for (; next < 3; ++next) *out[next] = s.max;  // samples still arriving while we read
    return s;
  }

 private:
  std::array<std::atomic<std::uint32_t>, kBins> bins_{};
  std::atomic<std::uint64_t> samples_{0};
  std::atomic<double> max_{0.0};
};

}  // namespace rfms
