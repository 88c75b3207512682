#include "supervisor/force_stats.hpp"

#include <algorithm>
#include <cmath>

#include "common/mail_codec.hpp"

namespace rfms {

void encode(const ForceFigures& f, proto::ForceFigures& out) {
  out.set_setpoint_n(f.setpoint);
  out.set_error_p50_n(f.error_p50);
  out.set_error_p99_n(f.error_p99);
  out.set_error_max_n(f.error_max);
  out.set_peak_n(f.peak);
  out.set_settle_s(f.settle_s);
  encode(f.end_pose, *out.mutable_end_pose());
}

ForceFigures decode(const proto::ForceFigures& f) {
  ForceFigures out;
  out.valid = f.setpoint_n() > 0.0;
  out.setpoint = f.setpoint_n();
  out.error_p50 = f.error_p50_n();
  out.error_p99 = f.error_p99_n();
  out.error_max = f.error_max_n();
  out.peak = f.peak_n();
  out.settle_s = f.settle_s();
  if (!decode(f.end_pose(), out.end_pose)) out.end_pose = Transform::Identity();
  return out;
}

void ForceStats::begin(double setpoint) {
  bins_.fill(0);
  count_ = last_outside_ = 0;
  ever_outside_ = false;
  setpoint_ = setpoint;
  band_ = std::max(0.05 * setpoint, 0.2);
  max_ = peak_ = 0.0;
}

void ForceStats::add(double error, double applied) {
  const double e = std::abs(error);
  const int bin = std::isfinite(e) ? static_cast<int>(std::min(e / kBinN, static_cast<double>(kBins - 1))) : kBins - 1;
  ++bins_[static_cast<std::size_t>(bin)];
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

ForceFigures ForceStats::figures(double dt) const {
  ForceFigures f;
  if (count_ == 0) return f;
  f.valid = true;
  f.setpoint = setpoint_;
  f.error_p50 = quantile(0.5);
  f.error_p99 = quantile(0.99);
  f.error_max = max_;
  f.peak = peak_;
  // Settled: inside the band from some period on to the end of the move.
  const bool inside_at_end = last_outside_ < count_;
  f.settle_s = inside_at_end ? static_cast<double>(ever_outside_ ? last_outside_ : 0) * dt : -1.0;
  return f;
}

}  // namespace rfms
