// Paul's drive transform for straight-line Cartesian motion ("Robot Manipulators", ch. 5): the
// motion from pose A to pose B is A D(r), r from 0 to 1, with
//   D(r) = Trans(r x, r y, r z) Rot(k, r theta) Rot(z, r phi),   k = (-sin psi, cos psi, 0),
// a translation along the straight line, a rotation about a fixed axis k that turns A's approach
// vector into B's, and a rotation about the approach vector. The six drive parameters are kept as
// d = (x, y, z, theta kx, theta ky, phi), in A's frame, so that D(r) = driveTransform(r d) and a
// quadratic blend of parameter vectors is Paul's transition. Real-time safe.
#pragma once

#include "common/types.hpp"

namespace rfms {

// d with driveTransform(d) == A^-1 B.
Vec6 driveParams(const Transform& a, const Transform& b);
Transform driveTransform(const Vec6& d);

// The same for a move whose straight line is a tool frame's, T6 TOOL (the identity: T6's own):
// the drive parameters from a TOOL to b TOOL, and the T6 that puts the tool frame at
// a TOOL D(d), i.e. a TOOL D(d) TOOL^-1. The trajectory's segments and transitions and the
// supervisor's reach check of a Cartesian move both go through these, so they agree on the line.
Vec6 driveParams(const Transform& a, const Transform& b, const Transform& tool);
Transform drivenT6(const Transform& a, const Vec6& d, const Transform& tool);

}  // namespace rfms
