#include "supervisor/force_stats.hpp"

#include <algorithm>
#include <cmath>

#include "common/mail_codec.hpp"

namespace rfms {

void ForceStats::begin(double setpoint, double law_force, double dt) {
  bins_.fill(0);
  count_ = last_outside_ = 0;
  ever_outside_ = false;
  setpoint_ = setpoint;
  law_ = law_force;
  band_ = std::max(0.05 * setpoint, 0.2);
  max_ = peak_ = final_ = 0.0;
  // The end's force: a low pass of 100 ms over the force applied.
  constexpr double kFinalS = 0.1;
  final_alpha_ = 1.0 - std::exp(-dt / kFinalS);
}

void ForceStats::add(double error, double applied) {
  const double e = std::abs(error);
  const int bin = std::isfinite(e) ? static_cast<int>(std::min(e / kBinN, static_cast<double>(kBins - 1))) : kBins - 1;
  ++bins_[static_cast<std::size_t>(bin)];
  ring_[static_cast<std::size_t>(count_ % kRing)] = static_cast<float>(applied);
  if (count_ == 0) start_ = final_ = applied;
  final_ += final_alpha_ * (applied - final_);
  ++count_;
  max_ = std::max(max_, e);
  peak_ = std::max(peak_, applied);
  if (!(e <= band_)) {
    ever_outside_ = true;
    last_outside_ = count_;
  }
}

double ForceStats::quantile(double q) const {
  // The upper edge of the bin that holds the q-th sample: never below the true quantile.
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (int b = 0; b < kBins; ++b) {
    seen += bins_[static_cast<std::size_t>(b)];
    if (seen >= std::max<std::uint64_t>(want, 1)) return std::min((b + 1) * kBinN, max_);
  }
  return max_;
}

std::optional<ForceFigures> ForceStats::figures(double dt) const {
  if (count_ == 0) return std::nullopt;
  ForceFigures f;
  f.setpoint_n = setpoint_;
  f.error_p50_n = quantile(0.5);
  f.error_p99_n = quantile(0.99);
  f.error_max_n = max_;
  f.peak_n = peak_;
  // Settled: inside the band from some period on to the end of the move.
  const bool inside_at_end = last_outside_ < count_;
  f.settle_s = inside_at_end ? static_cast<double>(ever_outside_ ? last_outside_ : 0) * dt : -1.0;
  f.impedance = setpoint_ == 0.0;
  f.final_n = final_;
  f.law_n = law_;
  f.held = f.impedance || std::abs(final_ - law_) <= heldTolerance(setpoint_);
  // Back from the end to the last sample outside the band about the end's force. Past the ring
  // (a long move settled all along it), the settling is at most where the ring begins.
  const double band = band_;
  const std::uint64_t kept = std::min<std::uint64_t>(count_, kRing);
  std::uint64_t settled_from = count_ - kept;
  for (std::uint64_t n = count_; n > count_ - kept; --n) {
    if (std::abs(static_cast<double>(ring_[static_cast<std::size_t>((n - 1) % kRing)]) - final_) > band) {
      settled_from = n;
      break;
    }
  }
  f.settle_final_s = settled_from < count_ ? static_cast<double>(settled_from) * dt : -1.0;
  // The step from the first period's force to the end's, and how far past the end it went (the
  // whole move when the ring holds it, else its last kRing periods).
  f.start_n = start_;
  const double step = final_ - start_;
  if (std::abs(step) > band) {
    double past = 0.0;
    for (std::uint64_t n = count_ - kept; n < count_; ++n)
      past = std::max(past,
                      (static_cast<double>(ring_[static_cast<std::size_t>(n % kRing)]) - final_) * (step > 0 ? 1 : -1));
    f.overshoot_final = past / std::abs(step);
  }
  return f;
}

}  // namespace rfms
