// Names of the mailboxes' enumerations, for logs, summaries and clients, and the size of the
// table a value of proto::Node indexes.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "proto/mailboxes.pb.h"

namespace rfms {

// Arrays indexed by proto::Node (NODE_NONE .. NODE_ARM) have this many entries.
inline constexpr std::size_t kNodeSlots = static_cast<std::size_t>(proto::Node_MAX) + 1;

// The eight nodes that answer the supervisor, in the order summaries list them.
inline constexpr std::array<proto::Node, 8> kAnsweringNodes{proto::NODE_ARM,    proto::NODE_MATH,   proto::NODE_JOINT1,
                                                            proto::NODE_JOINT2, proto::NODE_JOINT3, proto::NODE_JOINT4,
                                                            proto::NODE_JOINT5, proto::NODE_JOINT6};
// All nine, the supervisor first.
inline constexpr std::array<proto::Node, 9> kClusterNodes{
    proto::NODE_SUPERVISOR, proto::NODE_ARM,    proto::NODE_MATH,   proto::NODE_JOINT1, proto::NODE_JOINT2,
    proto::NODE_JOINT3,     proto::NODE_JOINT4, proto::NODE_JOINT5, proto::NODE_JOINT6};

const char* describe(proto::EmergencyReason reason);
const char* nodeName(proto::Node node);
// The axis a force move's fault was found along, 0 .. 2 for x y z, as summaries say it: "x", or
// "tool x" when the axis is the tool frame's; "" for none.
const char* forceAxisName(int axis, bool in_tool);

// An enumeration value's generated name without its type's prefix (RT_HOLD -> "HOLD", TS_S40 ->
// "S40", JA_RX -> "RX"): the spelling logs, summaries and clients use. The generated names live as
// long as the program, and so does what this points into.
const char* withoutPrefix(const std::string& generated_name);
inline const char* stateName(proto::RtState s) { return withoutPrefix(proto::RtState_Name(s)); }
inline const char* segmentName(proto::TrajState s) { return withoutPrefix(proto::TrajState_Name(s)); }

}  // namespace rfms
