// What tells an unstable loop from a settling one, by its signal alone: half-swings about the
// signal's own slow mean. A step and its settling cross the mean a few times with shrinking
// swings; a loop that rings at any frequency from a few hertz up keeps crossing it with large
// ones. kHalfSwings half-swings, each at least `large` past the mean, within kWindowS: it rings.
// The force monitor watches a force law's error with it, the compensation watch the offset a
// position compensator gives the setpoint. Pure and real-time safe.
#pragma once

#include <array>
#include <cstdint>

namespace rfms {

class SwingCounter {
 public:
  static constexpr int kHalfSwings = 8;
  static constexpr double kWindowS = 0.5;
  static constexpr double kMeanHz = 2.0;  // follows a settling; leaves a ringing outside it
  static constexpr int kMostHalfSwings = 64;

  // `half_swings` (at most kMostHalfSwings) large half-swings within `window_s`: it rings.
  explicit SwingCounter(double dt, int half_swings = kHalfSwings, double window_s = kWindowS);

  void begin();
  // One period's value: true once it rings (and from then until begin()).
  bool update(double value, double large);

 private:
  double dt_, mean_alpha_;
  int half_swings_;
  double window_s_;
  std::uint64_t k_ = 0;
  double mean_ = 0.0;
  bool primed_ = false;  // the mean starts on the first value seen
  int lobe_ = 0;         // the sign of the swing about the mean now (0: none yet)
  double lobe_peak_ = 0.0;
  std::array<std::uint64_t, kMostHalfSwings> swings_{};  // periods of the last large half-swings
  int swing_count_ = 0;
  bool rings_ = false;
};

}  // namespace rfms
