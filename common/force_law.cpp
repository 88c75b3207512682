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
  memory_.lagged = output;
  memory_.primed = 0;
}

double compensatorStep(const CompensatorGains& g, double dt, CompensatorMemory& m, double deflection) {
  const double rate = m.primed > 0 ? (deflection - m.last) / dt : 0.0;
  const double acceleration = m.primed > 1 ? (rate - m.last_rate) / dt : 0.0;
  m.last = deflection;
  m.last_rate = rate;
  m.primed = m.primed < 2 ? m.primed + 1 : 2;
  // T_lag y' + y = K_1 (d + T_lead d'), by the backward difference.
  m.lagged = (g.t_lag / dt * m.lagged + g.k1 * (deflection + g.t_lead * rate)) / (g.t_lag / dt + 1.0);
  return m.lagged + g.k2 * rate + g.k3 * acceleration;
}

}  // namespace rfms
