// Order statistics for the figures the tools and benchmarks print.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace rfms {

// The p-th percentile (0..100) of `values`, interpolating linearly between order statistics; 0 for
// no values.
inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace rfms
