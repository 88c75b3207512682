// The requests a Motion and a Jog (client/motion.hpp) become on the wire: the protobuf stays on
// this side of the client library.
#pragma once

#include <string>

#include "client/motion.hpp"
#include "proto/task.pb.h"

namespace rfms {

proto::ForceControl forceControlOf(const Force& f);
proto::DefineMotion motionRecordOf(const std::string& name, const Motion& m);
proto::Control jogControlOf(const Jog& j);

}  // namespace rfms
