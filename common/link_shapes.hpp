// The simple picture of an arm that its URDF (rfms-model urdf) and the live view (rfms-view)
// both draw: a cylinder along each link's d and one along its a. The cylinders are placed in
// joint i's own frame, DH frame i-1 turned by joint i's angle, which is where URDF puts link i;
// in DH frame i itself that frame is `T_0i * fixedPart(dh).inverse()`.
#pragma once

#include <vector>

#include "common/robot_model.hpp"
#include "common/transform.hpp"

namespace rfms {

inline constexpr double kLinkRadius = 0.02;  // m

// Centred on `centre`, its axis centre's z.
struct LinkCylinder {
  Transform centre = Transform::Identity();
  double length = 0.0;  // m
};

// The part of DH frame i that does not turn with its joint: Tz(d) Tx(a) Rx(alpha).
Transform fixedPart(const DhParams& dh);

// Link i's cylinders in joint i's frame: none for a length of zero.
std::vector<LinkCylinder> linkCylinders(const DhParams& dh);

}  // namespace rfms
