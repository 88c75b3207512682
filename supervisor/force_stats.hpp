// How well a move held its force: the figures a force-controlled move completes with (per period
// of the move, the size of the force error across its force axes, and the force applied along
// the setpoint's direction), measured against the setpoint and against the force the move ended
// with, and whether that is the force its law settles to. Real-time safe: the error distribution
// is a fixed histogram, so that a median and a 99th percentile come without storing the samples,
// and the settling to the end's force is found in a fixed ring of the last samples.
#pragma once

#include <array>
#include <cstdint>

#include "common/types.hpp"
#include "proto/task.pb.h"

namespace rfms {

struct ForceFigures {
  bool valid = false;
  double setpoint = 0.0;                                     // |F_d| over the force axes (N)
  double error_p50 = 0.0, error_p99 = 0.0, error_max = 0.0;  // |F_d - F| (N)
  double peak = 0.0;                                         // the most force applied along F_d (N)
  double settle_s = -1.0;  // from the move's start until the error stayed within the band; -1: it never did
  Transform end_pose = Transform::Identity();  // the tool frame where the move ended
  double final_force = 0.0;                    // N along F_d over the move's last 100 ms (a low pass)
  double law_force = 0.0;                      // N: what the law settles to (A.1: F_d, or K_p / (1 + K_p) of it)
  double settle_final_s = -1.0;                // until the force stayed within the band about final_force
  double start_force = 0.0;                    // N along F_d at the move's first period
  double overshoot_final = 0.0;                // past final_force, as a fraction of the step from start_force
  bool held = true;                            // final_force within max(0.5 N, 10 % of F_d) of law_force
  bool impedance = false;                      // no force axis: the figures are of the force along the compliant axes
};

// How far the end's force may be from what the law settles to, for a move that held its force.
double heldTolerance(double setpoint);

void encode(const ForceFigures& f, proto::ForceFigures& out);
// Invalid when the message holds none (no setpoint).
ForceFigures decode(const proto::ForceFigures& f);

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
  ForceFigures figures(double dt) const;

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
