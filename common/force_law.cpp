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

double InverseLinkCompensator::update(double command, double deflection) {
  const double rate = primed_ > 0 ? (deflection - last_) / dt_ : 0.0;
  const double acceleration = primed_ > 1 ? (rate - last_rate_) / dt_ : 0.0;
  last_ = deflection;
  last_rate_ = rate;
  primed_ = primed_ < 2 ? primed_ + 1 : 2;
  return command - (deflection + kv_ / kp_ * rate + j_ / kp_ * acceleration);
}

double LeadLagCompensator::update(double command, double deflection) {
  // T_lag y' + y = K_pi (d + T_lead d'), each rate over the period just ended.
  if (!primed_) {
    out_ = k_ * deflection;  // from rest: no rate before the first reading
    last_ = deflection;
    primed_ = true;
    return command - out_;
  }
  const double rate = (deflection - last_) / dt_;
  last_ = deflection;
  out_ = (lag_ / dt_ * out_ + k_ * (deflection + lead_ * rate)) / (lag_ / dt_ + 1.0);
  return command - out_;
}

double DeflectionCompensator::update(double command, double deflection) {
  const double rate = primed_ ? (deflection - last_) / dt_ : 0.0;
  last_ = deflection;
  primed_ = true;
  return command - k1_ * deflection - k2_ * rate;
}

}  // namespace rfms
