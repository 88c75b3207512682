// RoboNet frames on the wire: a serialised proto::LinkFrame followed by its CRC-32 (zlib's,
// 4 bytes big-endian). RoboNet relied on the Ethernet checksum; UDP's own is optional and weak,
// so every datagram carries one of its own.
#pragma once

#include <string>
#include <string_view>

#include "proto/link.pb.h"

namespace rfms {

std::string encodeDatagram(const proto::LinkFrame& frame);

enum class Datagram { kOk, kBadChecksum, kMalformed };
// kBadChecksum: too short or the CRC does not match (drop and count); kMalformed: the CRC matches
// but the bytes are not a frame, or the frame is not one of the four types with seq 0 or 1.
Datagram decodeDatagram(std::string_view bytes, proto::LinkFrame& frame);

}  // namespace rfms
