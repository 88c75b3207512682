// Paul's motion scheme for the trajectory generator (RFMS manual §4.1.2; Paul, "Robot
// Manipulators", ch. 5), in drive parameters — the six of the drive transform for a Cartesian
// segment (common/drive_transform.hpp), the joint angles' differences for a joint one:
//  - a straight segment goes from its start to its target at constant rate: r = s / T of its
//    parameters;
//  - a transition of half-width tau blends the way back from the via point to where it began (dB)
//    into the way on into the next segment (dC = tau/T of that segment's parameters):
//      p(x) = (dC + dB) x^2 - 2 dB x + dB,   x in [0, 1] over 2 tau,
//    so that p(0) = dB and p(1) = dC, its slope goes from -2 dB to 2 dC (the two segments'
//    velocities over 2 tau) and its curvature is constant. From rest dB = 0; the final stop has
//    dC = 0. Pure.
#pragma once

#include <algorithm>

#include "common/types.hpp"

namespace rfms {

// The drive parameters at x (0..1) of a transition from `back` (dB) to `on` (dC).
inline Vec6 transitionParams(const Vec6& back, const Vec6& on, double x) {
  return (on + back) * x * x - 2.0 * back * x + back;
}

// How far through a transition of half-width `tau` the time `u` since its start is (0..1).
inline double transitionFraction(double u, double tau) { return std::min(u, 2.0 * tau) / (2.0 * tau); }

// The way on into a segment of `segment` seconds with parameters `full` that a transition of
// half-width `tau` takes: dC = tau/T of them.
inline Vec6 wayOn(const Vec6& full, double tau, double segment) { return full * (tau / segment); }

}  // namespace rfms
