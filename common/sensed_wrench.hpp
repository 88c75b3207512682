// What the arm's sensor mail says the tool puts on the flange, whichever sensor the scene has: the
// force/torque sensor's reading as it is, or the compliant wrist's deflection — its potentiometers'
// angles through the linkage's kinematics — through its known springs (wrenchFromDeflection). The
// supervisor and the run-log plots read it the same way.
#pragma once

#include "common/scene.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

// The compliant wrist's deflection (dx dy dz in m, rx ry rz in rad, T6's axes) the mail says: from
// its six potentiometers' angles, or as an older arm sent it. False when the mail has neither.
bool sensedWristDeflection(const proto::ArmSensors& s, const WristModel& wrist, const ToolModel& tool, Vec6& out);

// The wrench on the flange in T6's axes about its origin; false when the mail has no reading.
// `wrist` is the scene's wrist, nullptr when it has none.
bool sensedFlangeWrench(const proto::ArmSensors& s, const WristModel* wrist, const ToolModel& tool, Vec6& out);

}  // namespace rfms
