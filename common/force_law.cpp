#include "common/force_law.hpp"

#include <algorithm>

namespace rfms {

double ForceLaw::update(double desired, double measured, bool integrate) {
  const double e = desired - measured;
  // The first period has no earlier measurement to take a rate from.
  const double rate = primed_ ? (measured - last_measured_) / dt_ : 0.0;
  last_measured_ = measured;
  primed_ = true;
  switch (gains_.law) {
    case ForceLawKind::kP: return gains_.kp * e;
    case ForceLawKind::kPD: return gains_.kp * (e - gains_.kv * rate);
    case ForceLawKind::kPI:
      if (integrate) integral_ = std::clamp(integral_ + e * dt_, -gains_.integral_limit, gains_.integral_limit);
      return gains_.kp * (e + gains_.ki * integral_);
  }
  return 0.0;
}

void ForceLaw::reset() {
  integral_ = 0.0;
  primed_ = false;
}

void PositionCompensator::start(double output) {
  lagged_ = output;
  primed_ = 0;
}

double PositionCompensator::update(double deflection) {
  const double rate = primed_ > 0 ? (deflection - last_) / dt_ : 0.0;
  const double acceleration = primed_ > 1 ? (rate - last_rate_) / dt_ : 0.0;
  last_ = deflection;
  last_rate_ = rate;
  primed_ = primed_ < 2 ? primed_ + 1 : 2;
  // T_lag y' + y = K_1 (d + T_lead d'), by the backward difference.
  lagged_ = (g_.t_lag / dt_ * lagged_ + g_.k1 * (deflection + g_.t_lead * rate)) / (g_.t_lag / dt_ + 1.0);
  return lagged_ + g_.k2 * rate + g_.k3 * acceleration;
}

}  // namespace rfms
