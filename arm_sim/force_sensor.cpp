#include "arm_sim/force_sensor.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rfms {

ForceTorqueSensor::ForceTorqueSensor(const ForceTorqueModel& model, double dt)
    : model_(model), alpha_(1.0 - std::exp(-2.0 * std::numbers::pi * model.bandwidth_hz * dt)), rng_(model.seed) {}

void ForceTorqueSensor::sample(const Vec6& truth) {
  // The filter starts on the first value: a sensor powered up under a load reads it, not a ramp.
  filtered_ = primed_ ? Vec6(filtered_ + alpha_ * (truth - filtered_)) : truth;
  primed_ = true;
  saturated_ = 0;
  for (int i = 0; i < 6; ++i) {
    const bool force = i < 3;
    const double range = force ? model_.range_force : model_.range_moment;
    const double noise = (force ? model_.noise_force : model_.noise_moment) * unit_(rng_);
    const double v = filtered_[i] + model_.bias[i] + noise;
    reading_[i] = std::clamp(v, -range, range);
    if (std::abs(v) >= range) saturated_ |= 1u << i;
  }
}

}  // namespace rfms
