// Servo-gain design: each joint's PID loop critically damped at a chosen bandwidth on the joint's
// own inertia at the park pose. The joint servers run these gains; the math server weighs the
// compliant part of a servo error by the same position gains, so both derive them here.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// The joints' low pass on their encoder velocity (a first-order filter): what each servo damps,
// what the joints' mail reports, and what the supervisor's force loop model assumes.
inline constexpr double kJointVelocityFilterHz = 60.0;

struct ServoGains {
  double kp = 0.0, kd = 0.0, ki = 0.0;  // N m/rad, N m s/rad, N m/(rad s)
  double integral_limit = 0.0;          // N m
};

// `joint` 1..6; configuration time (computes the inertia matrix at `park`).
ServoGains designServoGains(const RobotModel& model, int joint, const JointVec& park, double bandwidth_hz);

}  // namespace rfms
