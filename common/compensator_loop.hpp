// A.1 §2's position loop through the compliant wrist, in continuous time, closed by any of its
// compensators (PositionCompensator, common/force_law.hpp): whether it is stable, and by what
// margin. The report's own analysis (Eqs. 7, 16-18, 21) generalised to one polynomial:
//
//   link      x_l = G_c (X_c - H d),  G_c = P(s) / D_c,  D_c = (J/K_p) s^2 + (K_v/K_p) s + 1,
//             P(s) = N_p / D_p the link's delay tau by its (2, 2) Pade approximant (1 when none)
//   wrist     m x'' = K (x_l - x) + C (x_l' - x') + F,  d = x - x_l
//   H         N_h / D_h = (K_1 (1 + T_lead s) + (K_2 s + K_3 s^2)(1 + T_lag s)) / (1 + T_lag s)
//   loop      d (m s^2 (D_p D_c D_h - N_p N_h) + (K + C s) D_p D_c D_h) = F D_p D_c D_h
//
// With J = 0, no delay and the lead-lag it is Eq. 21's quartic; with K_2 alone, Eq. 7's cubic,
// whose Routh conditions are Eqs. 16-18. H = 1/G_c exactly (K_1 = 1, K_2 = K_v/K_p, K_3 = J/K_p,
// no delay) cancels m s^2 and leaves D_c (K + C s): stable, but any gain above it is not — the
// report's compensator sits on the boundary.
//
// The controller's arm is another link: its joints feed their setpoints' velocity and acceleration
// forward, so that the flange follows the setpoint late by the pipeline's delay and otherwise
// closely — G_c = e^(-s tau), D_c = 1. Then 1 - G_c H is about tau s at K_1 = 1, the loop's s^2 term
// is only what the delay and the wrist's damper leave, and an unlagged K_1 = 1 rings where
// m tau w^2 = C: at 31 Hz on the default 1 kg tool (docs/force.md). Pure; not for the period thread
// (it allocates).
#pragma once

#include <Eigen/Core>
#include <string>

#include "common/force_law.hpp"

namespace rfms {

struct CompensatorPlant {
  double m = 2.0;            // kg: the end effector on the wrist
  double k = 4000.0;         // N/m: the wrist's spring
  double c = 200.0;          // N s/m: its damper
  double kv_over_kp = 0.01;  // s: the link's loop
  double j_over_kp = 0.0;    // s^2 (0: the link's inertia neglected, as in Eqs. 16-18)
  double delay_s = 0.0;      // s: the link follows its command this late

  // A link that is a PD servo critically damped at `bandwidth_hz` on its own inertia, as each of
  // the controller's joints is designed (common/servo_gains.hpp), without feed-forward:
  // K_v/K_p = 2/w and J/K_p = 1/w^2 with w = 2 pi bandwidth.
  static CompensatorPlant ofServo(double bandwidth_hz, double m, double k, double c);
  // The controller's arm: its setpoints followed `delay_s` late (feed-forward on).
  static CompensatorPlant ofArm(double delay_s, double m, double k, double c);
};

// The loop's characteristic polynomial, the coefficient of s^i at i.
Eigen::VectorXd compensatorLoopPolynomial(const CompensatorPlant& plant, const CompensatorGains& gains);

// The loop's poles (the polynomial's roots).
Eigen::VectorXcd compensatorLoopPoles(const CompensatorPlant& plant, const CompensatorGains& gains);

// The largest real part among the loop's poles: below 0, stable.
double compensatorLoopAbscissa(const CompensatorPlant& plant, const CompensatorGains& gains);

// "" when the loop stays stable with H multiplied by `margin` (>= 1), else why not, with a bound on
// one of its terms at the others' values ("... : K_2 must be below 0.0199 s").
std::string compensatorVerdict(const CompensatorPlant& plant, const CompensatorGains& gains, double margin);

}  // namespace rfms
