// The least value of a gain at which a loop is unstable, and how a message names it: shared by the
// force loop's check (force_loop.hpp) and the position compensator's (compensator_verdict.hpp).
// Pure; not for the period thread (the predicate takes eigenvalues).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/number_text.hpp"

namespace rfms {

// Up from up_to * 1e-6 by 5 % steps to the first value `stable` refuses, then halving the interval
// to 1e-6 of it: the least unstable value in (0, up_to], +infinity when there is none.
template <typename Stable>
double leastUnstable(Stable stable, double up_to) {
  double below = 0.0, value = 0.0;
  for (double at = up_to * 1e-6;; at *= 1.05) {
    value = std::min(at, up_to);
    if (!stable(value)) break;
    below = value;
    if (value >= up_to) return std::numeric_limits<double>::infinity();
  }
  double above = value;
  for (int i = 0; i < 40 && above - below > 1e-6 * above; ++i) {
    const double mid = 0.5 * (below + above);
    (stable(mid) ? below : above) = mid;
  }
  return above;
}

// A bound for a message: three significant figures, rounded down (a bound rounded up would name a
// gain that is unstable).
inline std::string boundText(double bound) {
  const double scale = std::pow(10.0, std::floor(std::log10(bound)) - 2.0);
  return numberText(std::floor(bound / scale) * scale);
}

}  // namespace rfms
