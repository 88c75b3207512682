// The client library's plain values (client/arm_status.hpp) read from the wire's messages; inside
// the library and the tools that speak the wire (rfms-client, the desk, the Python module).
#pragma once

#include "client/arm_status.hpp"
#include "proto/task.pb.h"

namespace rfms {

ArmStatus statusOf(const proto::ArmStatus& s);
MoveOutcome outcomeOf(const proto::MoveOutcome& o);

}  // namespace rfms
