// How a move under force control held its force, or what an impedance came to: the figures the
// supervisor measures (supervisor/force_stats.hpp), the summary prints, the wire carries
// (proto::ForceFigures, in a move's outcome: common/force_figures_wire.hpp) and a client reads
// (client/arm_status.hpp, and Python's ForceFigures). One type for all of them; this header
// includes no generated code, so that the client library's own headers need none.
#pragma once

#include <algorithm>

#include "common/types.hpp"

namespace rfms {

struct ForceFigures {
  double setpoint_n = 0;  // |F_d| over the force axes; 0 for an impedance, whose figures are of its compliant axes
  double error_p50_n = 0, error_p99_n = 0, error_max_n = 0;  // |F_d - F| over the move's periods
  double peak_n = 0;                                         // the most force applied along F_d
  double settle_s = -1;  // until the error stayed within 5 % of F_d (at least 0.2 N) to the end; -1: never
  Transform end_pose = Transform::Identity();  // the tool frame where the move ended
  // Against what the move ended with: the force along F_d at its end (a 100 ms low pass), what
  // its law settles to (A.1: F_d for PI, K_p / (1 + K_p) of it for P and PD), the settling time to
  // within the same band about the end's force, the force at the move's first period and the
  // overshoot past the end as a fraction of the step from it.
  double final_n = 0, law_n = 0, settle_final_s = -1, start_n = 0, overshoot_final = 0;
  bool held = false;  // final_n within max(0.5 N, 10 % of F_d) of law_n (heldTolerance)
  bool impedance = false;
};

// How far the end's force may be from what the law settles to, for a move that held its force
// (inline: the force watch asks it every period).
inline double heldTolerance(double setpoint_n) { return std::max(0.5, 0.1 * setpoint_n); }

}  // namespace rfms
