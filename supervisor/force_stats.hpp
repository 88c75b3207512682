// How well a move held its force: the figures a force-controlled move completes with (per period
// of the move, the size of the force error across its force axes, and the force applied along
// the setpoint's direction), measured against the setpoint and against the force the move ended
// with, and whether that is the force its law settles to. Real-time safe: the error distribution
// is a fixed histogram, so that a median and a 99th percentile come without storing the samples,
// and the settling to the end's force is found in a fixed ring of the last samples.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "common/force_figures.hpp"
#include "common/types.hpp"
#include "proto/task.pb.h"

namespace rfms {

class ForceStats {
 public:
  static constexpr double kBinN = 0.005;  // histogram resolution (N)
  static constexpr int kBins = 20000;     // up to 100 N; larger errors count in the last bin

  static constexpr int kRing = 16384;  // samples kept for the settling to the end's force

  // A new move under force control, with its setpoint and what its law settles to (N); the band
  // is 5 % of the setpoint, at least 0.2 N. An impedance move has neither (both 0).
  void begin(double setpoint, double law_force, double dt);
  // One period: the size of the force error, and the force applied along the setpoint's direction
  // (an impedance move: the force along its compliant axes, for both).
  void add(double error, double applied);
  std::optional<ForceFigures> figures(double dt) const;

 private:
  double quantile(double q) const;

  std::array<std::uint32_t, kBins> bins_{};
  std::array<float, kRing> ring_{};
  std::uint64_t count_ = 0, last_outside_ = 0;
  bool ever_outside_ = false;
  double setpoint_ = 0.0, law_ = 0.0, band_ = 0.0, max_ = 0.0, peak_ = 0.0;
  double final_ = 0.0, final_alpha_ = 1.0, start_ = 0.0;
};

}  // namespace rfms
