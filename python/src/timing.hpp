// The C++ side of the Python package's benchmark: the cost of a call made from C++, for the same
// call made from Python to be set beside in the same run.
#pragma once

#include <chrono>

namespace rfms::python {

// Mean seconds per call of fn over n calls; its results are summed into a value the compiler must
// keep, so that the calls are not optimised away.
template <typename Fn>
double secondsPerCall(int n, Fn fn) {
  volatile double sink = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) sink = sink + fn();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return n > 0 ? took.count() / n : 0.0;
}

}  // namespace rfms::python
