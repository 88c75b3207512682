// Homogeneous transforms in the notation of Paul's "Robot Manipulators" and the RFMS manual:
// trans, rot, Euler (ZYZ) and roll–pitch–yaw constructors and their inverses.
// All functions are real-time safe (no allocation, no throw). Lengths in metres, angles in radians.
#pragma once

#include "common/types.hpp"

namespace rfms {

enum class Axis { kX, kY, kZ };

// Pure translation.
Transform trans(double x, double y, double z);
// Rotation by `angle` about a principal axis.
Transform rot(Axis axis, double angle);
// Rotation by `angle` about an arbitrary axis (normalised here; a zero axis gives the identity).
Transform rot(const Vec3& axis, double angle);

// Euler angles as Paul defines them: Euler(phi, theta, psi) = Rot(z, phi) Rot(y, theta) Rot(z, psi).
Transform eul(double phi, double theta, double psi);
// Roll–pitch–yaw as Paul defines them: RPY(phi, theta, psi) = Rot(z, phi) Rot(y, theta) Rot(x, psi).
Transform rpy(double phi, double theta, double psi);

// Angles (phi, theta, psi) with eul(phi, theta, psi) == R and theta in [0, pi]. At theta = 0 or pi
// only phi ± psi is defined: phi is then kept at `phi_hint` (e.g. the previous value).
Vec3 eulerAngles(const Mat3& r, double phi_hint = 0.0);
// Angles (phi, theta, psi) with rpy(phi, theta, psi) == R and theta in [-pi/2, pi/2]. At
// theta = ±pi/2 only phi ± psi is defined: phi is kept at `phi_hint`.
Vec3 rpyAngles(const Mat3& r, double phi_hint = 0.0);

// A 4x4 matrix is a homogeneous transform when its rotation part is orthonormal with determinant +1
// (within `tol`) and its last row is (0 0 0 1).
bool isHomogeneous(const Eigen::Matrix4d& m, double tol = 1e-6);

// Wraps an angle into (-pi, pi].
double wrapToPi(double angle);
// The angle equal to `angle` modulo 2 pi that is nearest to `reference`.
double nearestEquivalent(double angle, double reference);

}  // namespace rfms
