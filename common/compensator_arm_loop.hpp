// A.1's position compensator on the whole arm, sampled: the loop the controller closes when it
// moves the flange back by H of the wrist's measured deflection, with what the arm puts in it.
// The continuous model of A.1's link (common/compensator_loop.hpp) bounds K_1 without a lag at 1
// on this arm; the arm rings from about 0.4. What that model leaves out, and this one holds:
//
//   - The joints' feed-forward carries the tool as if it rode on link 6 (their model is the
//     scene's: the tool's mass properties on the flange). On the compliant wrist the tool does
//     not follow the flange above the wrist's resonance, so each joint pushes for a body that is
//     not there, and the flange overshoots its setpoint by about the tool's share of the mass the
//     joints move. One axis shows it: the loop's highest term is (M - K_1 M_ff) m, which turns
//     over at K_1 = M / M_ff (M the arm's inertia along the axis, M_ff the joints' model of it).
//   - The three base axes at once: the arm's inertia couples them, so that a compensation along
//     z moves the flange along x and y as well, where the compensator answers again.
//   - The joints' pipeline as it runs: the servo's setpoint is the last update (the
//     interpolation's first step), its velocity and acceleration the updates' differences, each
//     joint's own acceleration this period and the others' a period old (as the S_MAIL carries
//     them), its velocity filtered and damped against the setpoint's, the torque held.
//
// The loop, per period k, the arm's coordinates q (n), the tool a point mass m on the wrist's
// isotropic spring and damper (K, C) at a point of the flange whose base velocity is A q':
//
//   plant      M q'' = tau - B q' + A^T (K d + C d'),   m x'' = -(K d + C d'),   d = x - A q
//   law        c_k = -H(d_k) along each compensated base axis (common/force_law.hpp's discrete H)
//   setpoints  the joints' offsets S c_k (S: the flange's inverse Jacobian for a pure translation)
//   servo      tau_k = K_p (S c_{k-1} - q) + K_d (v_d - v) + M_ff a_d + F v_d,  v_d, a_d the
//              differences of S c
//
// What it leaves out, each measured on the arm with no change to where the loop rings: the inverse
// kinematics' extrapolation (the serial IK rings at the same K_1), the tool's turning on the wrist
// (its turning damper tenfold either way), Coulomb friction (set to zero), the servos' integral.
// Linear, so one period is a matrix on the loop's state; stable when its eigenvalues lie inside
// the unit circle. Pure; not for the period thread (it allocates and takes eigenvalues).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>

#include "common/force_law.hpp"

namespace rfms {

struct ArmCompensatorPlant {
  double dt = 1e-3;                      // s: the sample period
  Eigen::MatrixXd mass;                  // n x n: the arm's inertia in its coordinates, without the tool
  Eigen::MatrixXd feedforward_mass;      // n x n: the joints' model of it, which carries the tool
  Eigen::MatrixXd wrist_point;           // 3 x n: the velocity (base axes) of the point the wrist holds per joint speed
  Eigen::VectorXd friction;              // n: each coordinate's viscous friction
  Eigen::VectorXd servo_stiffness;       // n: each servo's K_p
  Eigen::VectorXd servo_damping;         // n: its K_d
  Eigen::VectorXd feedforward_friction;  // n: its friction feed-forward per unit of setpoint speed F
  double velocity_filter_hz = 0.0;       // the joints' velocity low pass (0: none)
  Eigen::MatrixXd setpoint_shift;        // n x 3: the joints' setpoints per metre the flange moves along base x, y, z
  double tool_mass = 1.0;                // kg
  double wrist_stiffness = 4000.0;       // N/m, each translational axis
  double wrist_damping = 0.0;            // N s/m
  std::uint32_t axes = 0x7;              // the base axes compensated (bits x, y, z; a compliant axis is not)
};

// The largest magnitude among the sampled loop's poles: below 1, stable.
double compensatorArmRadius(const ArmCompensatorPlant& plant, const CompensatorGains& gains);

// "" when the loop holds with H times `margin`, else why not, naming a term's bound
// (common/compensator_verdict.hpp).
std::string compensatorArmVerdict(const ArmCompensatorPlant& plant, const CompensatorGains& gains, double margin);

}  // namespace rfms
