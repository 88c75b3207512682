// A protobuf message's schema as MCAP and the Foxglove protocol carry it: a FileDescriptorSet of
// the file that declares the message and every file that file imports, dependencies first,
// serialised. The run logger's channels and rfms-view's advertise theirs this way.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>

namespace rfms {

std::string descriptorSet(const google::protobuf::Descriptor* type);

}  // namespace rfms
