// The compliant wrist's sensing linkage (appendix A.1 §5, Xu and Paul): a serial chain of six
// revolute joints between the wrist's two plates, one potentiometer on each. The report chose a
// serial chain over a parallel one because its direct kinematics — the plates' relative pose from
// the six angles, Eq. 43 — is a product of six transforms, where a parallel one's needs a search:
//
//   T_w = Trans(-l7, l3, l1) Rot(z, θ1) Trans(-l2, 0, 0) Rot(x, θ2) Trans(0, -l3, 0) Rot(x, θ3)
//         Trans(l4, -l5, 0) Rot(z, θ4) Trans(0, 0, l6) Rot(y, θ5) Trans(0, l5, 0) Rot(z, θ6)
//         Trans(l7, 0, l8)
//
// The lower plate is the flange (T6's frame), the upper one carries the tool. The controller reads
// the wrist this way: six angles in, the tool's deflection out. The emulated arm needs the other
// direction, the angles a deflection gives its potentiometers, which for a serial chain is the hard
// one: a few Newton steps from the last period's angles.
//
// The report does not give the lengths. Ours (metres) keep the three z axes off one line, without
// which the chain could not sense a slide along y at rest, and were picked on a 5 mm grid for the
// best conditioned Jacobian at rest (its singular values, metres over a 30 mm lever against
// radians, within a factor 5.4 of each other): each potentiometer's noise reaches the deflection
// amplified the least. Pure and real-time safe.
#pragma once

#include <array>

#include "common/types.hpp"

namespace rfms {

struct WristLinkage {
  std::array<double, 8> l = {0.025, 0.050, 0.025, 0.015, 0.050, 0.010, 0.020, 0.010};  // l1 .. l8, m
};

// Eq. 43: the upper plate in the lower plate's frame for the potentiometers' angles (rad).
Transform linkagePose(const WristLinkage& linkage, const Vec6& angles);

// The upper plate at rest, every angle zero: Eq. 43's rotations drop out and its offsets add up to
// Trans(l4 - l2, 0, l1 + l6 + l8). Read each period on both sides, so written out.
Transform linkageRest(const WristLinkage& linkage);

// The linkage's Jacobian at `angles`: column i is joint i's twist, the upper plate's linear velocity
// (at its origin) over its angular velocity, in the lower plate's axes.
Mat6 linkageJacobian(const WristLinkage& linkage, const Vec6& angles);

// The deflection the angles say: the tool's centre of mass `com` (T6's axes, at rest) moved by d and
// the tool turned by R with a = vee of R's skew part — the form the wrist's springs are written in.
Vec6 deflectionFromAngles(const WristLinkage& linkage, const Vec3& com, const Vec6& angles);

// The angles for a deflection given as the tool's displacement `moved` (its rest points p carried to
// moved * p, T6's axes), by Newton's method from `angles`, which holds the answer on return. False
// when it did not converge to 1e-12 m and rad in `iterations` steps (the last iterate is kept).
bool anglesForDisplacement(const WristLinkage& linkage, const Transform& moved, Vec6& angles, int iterations = 8);

}  // namespace rfms
