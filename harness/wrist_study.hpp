// Appendix A.1 of the RFMS report (Xu & Paul) run on its one-axis plants (arm_sim/wrist_axis.hpp)
// with the controller's discrete laws (common/force_law.hpp): the experiments the tests check
// against the paper's closed forms and rfms-force-study prints beside them.
#pragma once

#include <vector>

#include "arm_sim/wrist_axis.hpp"
#include "common/force_law.hpp"

namespace rfms {

// A step of the desired force against the environment, from contact at zero force.
struct ForceStep {
  std::vector<double> force;  // the wrist's reading, every period (N)
  double final_error = 0.0;   // (F_d - F) / F_d at the end
  double overshoot = 0.0;     // (max F - F_final) / F_final
};
ForceStep forceStep(const ForceGains& gains, double seconds, const ForceAxisParams& plant = {}, double desired_n = 10.0,
                    double dt = 1e-3);

// A desired force that grows as a ramp, r t, or a parabola, r t^2 / 2 (order 1 or 2; r in N/s or
// N/s^2), against the environment from contact at zero force: the error F_d - F at two times, to
// tell an error that settles from one that grows (A.1, Eq. 27 with the inputs 1/s^2 and 1/s^3).
struct ForceInputError {
  double early = 0.0, late = 0.0;  // N: the error at `seconds` / 2 and at `seconds`
};
ForceInputError forceInput(const ForceGains& gains, int order, double rate, double seconds,
                           const ForceAxisParams& plant = {}, double dt = 1e-3);

// The compensator holding the end effector at 0 while a constant load pushes it.
struct LoadHold {
  double offset = 0.0;  // m: where the end effector is at the end
  bool settles = true;  // the deflection's swing about F/K shrinks from the run's middle to its end
  double worst = 0.0;   // m: the end effector's largest distance from 0 over the run
};
LoadHold holdUnderLoad(double k1, double k2, double seconds, double load_n, const PositionAxisParams& plant = {},
                       double dt = 1e-3);
// The same with A.1 §2.3's lead-lag network, H = K_pi (1 + T_lead s) / (1 + T_lag s).
LoadHold holdUnderLoadByLeadLag(double k, double t_lead, double t_lag, double seconds, double load_n,
                                const PositionAxisParams& plant = {}, double dt = 1e-3);
// The largest T_lead whose loop settles with the lead-lag at K_pi = 1 and this T_lag (bisection on
// the simulated plant to 0.1 %; J = 0). With T_lag = 0 it is the PD compensator's K_2 bound, Eq. 16.
double stableLeadBound(double t_lag, const PositionAxisParams& plant = {}, double dt = 1e-3);
// The same from the Routh-Hurwitz condition on the loop's quartic, Eq. 7 with the lead-lag
// (J = 0; Eq. 21 is this quartic with the network's lead equal to the joint's K_v):
//   s^4 m T_lag K_v + s^3 (m K_v + T_lag (m K_p + C K_v) - m K_p K_pi T_lead)
//   + s^2 (m K_p (1 - K_pi) + C K_v + T_lag (C K_p + K K_v)) + s (C K_p + K K_v + T_lag K K_p) + K K_p.
double eq21LeadBound(double t_lag, const PositionAxisParams& plant = {});

// The same with A.1 §2.4's compensator, the inverse of the link's loop with its inertia taken as
// `j_estimate` (s^2, the plant's J in its units).
LoadHold holdUnderLoadByInverse(double j_estimate, double seconds, double load_n, const PositionAxisParams& plant = {},
                                double dt = 1e-3);

// The largest K_1 whose loop settles (bisection on the simulated plant, to 0.002).
double stableK1Bound(double k2, const PositionAxisParams& plant = {}, double dt = 1e-3);

// The paper's bounds on K_1: Eq. 17, 1 + C K_v / (K_p m), and Eq. 18, the Routh condition of the
// whole cubic, which tends to Eq. 17 as K_2 approaches K_v / K_p (Eq. 16).
double eq17Bound(const PositionAxisParams& p);
double eq18Bound(const PositionAxisParams& p, double k2);

// The P law's bound on K_p against an elastic environment: the Routh-Hurwitz condition on Eq. 39's
// quartic, f3 f2 > f4 f1 and f3 f2 f1 > f1^2 f4 + f3^2 f0, scanned up from 0.01 in 0.1 % steps
// (+infinity: stable to 1e4). From Eq. 38 expanded: Eq. 39 prints m K_w (1 + K_p) in f2 where the
// expansion gives m_e K_w (1 + K_p), and Eq. 40 prints f2^2 f0 where the quartic's condition has
// f3^2 f0; these are the expansion's.
double eq39RouthBound(const ForceAxisParams& p);

}  // namespace rfms
