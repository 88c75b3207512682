// What the arm's sensor mail says the tool puts on the flange, whichever sensor the scene has: the
// force/torque sensor's reading as it is, or the compliant wrist's deflection through its known
// springs (wrenchFromDeflection). The supervisor and the run-log plots read it the same way.
#pragma once

#include "common/scene.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

// The wrench on the flange in T6's axes about its origin; false when the mail has no reading.
// `wrist` is the scene's wrist, nullptr when it has none.
bool sensedFlangeWrench(const proto::ArmSensors& s, const WristModel* wrist, const ToolModel& tool, Vec6& out);

}  // namespace rfms
