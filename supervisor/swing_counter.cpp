#include "supervisor/swing_counter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rfms {

SwingCounter::SwingCounter(double dt, int half_swings, double window_s)
    : dt_(dt),
      mean_alpha_(1.0 - std::exp(-2.0 * std::numbers::pi * kMeanHz * dt)),
      half_swings_(std::clamp(half_swings, 1, kMostHalfSwings)),
      window_s_(window_s) {}

void SwingCounter::begin() { *this = SwingCounter(dt_, half_swings_, window_s_); }

bool SwingCounter::update(double value, double large) {
  ++k_;
  if (rings_) return true;
  mean_ = primed_ ? mean_ + mean_alpha_ * (value - mean_) : value;
  primed_ = true;
  const double swing = value - mean_;
  const int sign = swing > 0.0 ? 1 : -1;
  if (sign != lobe_) {
    if (lobe_ != 0 && lobe_peak_ >= large) {
      swings_[static_cast<std::size_t>(swing_count_ % half_swings_)] = k_;
      ++swing_count_;
    }
    lobe_ = sign;
    lobe_peak_ = 0.0;
  }
  lobe_peak_ = std::max(lobe_peak_, std::abs(swing));
  if (swing_count_ >= half_swings_) {
    const std::uint64_t oldest = swings_[static_cast<std::size_t>(swing_count_ % half_swings_)];
    rings_ = static_cast<double>(k_ - oldest) * dt_ <= window_s_;
  }
  return rings_;
}

}  // namespace rfms
