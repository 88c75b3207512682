// The sampled force loop along one translational axis, as the whole controller closes it, and its
// stability: the discrete form of A.1's analysis (Xu & Paul), with what sampling adds to it.
//
// A.1 finds the loop's bounds in continuous time (Eqs. 17, 18, 30), on one axis. The controller
// samples, and more stands in the loop than the law: the force/torque sensor reads through a
// first-order low pass, and reads the force that accelerates the tool as well as the contact; the
// axis's damping acts on joint velocities that are filtered and one period old; the supervisor
// draws the servo's setpoint to where the arm is (a 5 Hz low pass), and each joint feeds that
// setpoint's acceleration forward through the arm's inertia and damps its own filtered velocity
// against the setpoint's. On the stiff sensor these set the bound: what ends a law there is a
// period-2 oscillation (a pole near -1) that the continuous analysis has no room for. The loop,
// per period k, x along the force the tool applies, the arm's coordinates q:
//
//   plant, torques held over [k, k+1]:  M q'' = tau - B q' + a^T (spring), a the axis's row of the
//         Jacobian at the tool point, B the joints' friction at rest; the tool rides rigidly
//         (stiff sensor) or on the wrist (K_w, C_w; its own mass m_t), and meets the surface
//         (K_e, C_e), taken as in contact
//   measured force f_k:  stiff sensor     f_k = f_{k-1} + alpha (N_k + m_t (v_k - v_{k-1}) / dt - f_{k-1})
//                        compliant wrist  f_k = K_w (x_arm - x_tool)_k   (the springs only, as read)
//   held setpoint:       h_k = h_{k-1} + beta (x_{k-1} - h_{k-1});  joint setpoints s h_k
//   drive:               u_k = law(F_d - f_k) - D a v_{k-1}    (v: the joints' filtered velocities)
//   torques:             tau_k = a^T u_k + M acc_k + F vd_k + K_d (vd_k - v_k)
//                        (vd, acc: the setpoints' differences; joint i takes its own acc of this
//                        period and the others' of the last, as the joints' mail carries them)
//
// The servos' position gains are left out: the compliance matrix takes the force axis out of their
// errors. All of it is linear while in contact, so one period is a matrix on the loop's state, and
// the loop is stable when every eigenvalue of it lies inside the unit circle. Pure; not for the
// period thread (it allocates and takes eigenvalues).
#pragma once

#include <Eigen/Core>
#include <string>

#include "common/force_law.hpp"

namespace rfms {

struct ForceLoopPlant {
  double dt = 1e-3;                 // s: the sample period
  Eigen::MatrixXd mass;             // n x n: the arm's inertia in its coordinates (1 x 1: a mass on the axis)
  Eigen::RowVectorXd axis;          // 1 x n: the tool point's speed along the axis per unit speed of each coordinate
  Eigen::RowVectorXd tool_axis;     // 1 x n: the same of the tool's centre of mass (empty: `axis`)
  Eigen::VectorXd friction;         // n: each coordinate's friction per unit speed, near rest
  double axis_damping = 200.0;      // N s/m: the force axis's commanded damping D
  double velocity_filter_hz = 0.0;  // the joints' velocity low pass (0: none)
  // The joints' servos along the force axis (all empty: none, as on A.1's one-axis arm).
  Eigen::VectorXd servo_damping;         // n: each servo's velocity gain K_d
  Eigen::VectorXd feedforward_friction;  // n: its friction feed-forward per unit of setpoint speed F
  Eigen::VectorXd setpoint_shift;        // n: the joints' setpoints per metre the held setpoint moves, s
  double yield_hz = 0.0;                 // the held setpoint's low pass toward the arm
  // What the tool touches and how it is sensed.
  double surface_stiffness = 5e4;    // N/m (+infinity: rigid, the tool held where it touches)
  double surface_damping = 0.0;      // N s/m
  bool wrist = false;                // the compliant wrist, else a stiff force/torque sensor
  double sensor_bandwidth_hz = 0.0;  // the stiff sensor's low pass (0: none)
  double tool_mass = 0.0;            // kg: on the stiff sensor, within `mass`; on the wrist, a body of its own
  double wrist_stiffness = 4000.0;   // N/m
  double wrist_damping = 0.0;        // N s/m

  // A.1's one-axis arm: a mass m (kg) with damping c (N s/m) and no servo.
  static ForceLoopPlant onOneAxis(double m, double c);
};

// The largest magnitude among the sampled loop's poles: below 1, stable.
double forceLoopRadius(const ForceLoopPlant& plant, const ForceGains& gains);

// The least damping ratio among the sampled loop's oscillating poles (each pole z taken to
// s = ln(z) / dt; 1 when none oscillates): how lightly the loop rings, for a loop that is stable.
double forceLoopDamping(const ForceLoopPlant& plant, const ForceGains& gains);

// The largest real part among the continuous loop's poles (the same plant with the law acting on
// the force as it is, at once, with no filter): below 0, stable. A.1's analysis.
double forceLoopAbscissa(const ForceLoopPlant& plant, const ForceGains& gains);

enum class ForceLoopTime { kSampled, kContinuous };
// Which gain a bound is of, the others held.
enum class ForceGain { kKp, kKv, kKi };

// The least value of the gain in (0, up_to] at which the loop is unstable, the other gains as
// given (+infinity: stable over the whole range). Found on a geometric scan, then by bisection.
double forceGainBound(const ForceLoopPlant& plant, const ForceGains& gains, ForceGain which, double up_to,
                      ForceLoopTime time = ForceLoopTime::kSampled);

// A law judged on a plant: "" when it is stable with its gains multiplied by `margin` (>= 1), else
// why not, naming the gain and the bound ("unstable on this sensor at 1 kHz: K_p must be below
// 3.8 (with K_I = 40 /s)").
std::string forceLawVerdict(const ForceLoopPlant& plant, const ForceGains& gains, double margin);

}  // namespace rfms
