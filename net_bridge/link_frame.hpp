// Link datagrams on the wire (docs/link-protocol.md):
//
//   byte 0      the link version, 2
//   byte 1      the trailer: 0 = CRC-32 (4 bytes), 1 = HMAC-SHA-512-256 (32 bytes)
//   bytes 2..   a serialised proto::LinkFrame
//   last bytes  the trailer, computed over every byte before it
//
// HELLO, CHALLENGE and REFUSE carry the CRC (zlib's CRC-32, big-endian): no key exists yet, or the
// bridge does not know the session. Every other frame carries the MAC under its session's key for
// its direction. A frame whose type may not carry the trailer it has is malformed.
#pragma once

#include <string>
#include <string_view>

#include "net_bridge/link_keys.hpp"
#include "proto/link.pb.h"

namespace rfms {

constexpr unsigned char kLinkVersion = 2;
// Datagrams longer than this are not frames: the largest request is far below it.
constexpr std::size_t kMaxDatagram = 65507;

std::string encodeDatagram(const proto::LinkFrame& frame);                  // CRC trailer
std::string encodeDatagram(const proto::LinkFrame& frame, const Key& key);  // MAC trailer

enum class Datagram { kOk, kBadChecksum, kMalformed, kWrongVersion };
enum class Trailer { kCrc, kMac };
// Decodes the frame and checks what can be checked without a key: the version, the CRC, the frame's
// shape (a known type, seq = count's low bit, the trailer its type must have). A MAC-carrying
// frame is not yet authentic: check it with macValid() under its session's key.
// kBadChecksum: too short, or the CRC does not match; kWrongVersion: another version byte on a
// datagram whose last four bytes are its CRC (anything else of another version is noise);
// kMalformed: anything else wrong.
Datagram decodeDatagram(std::string_view bytes, proto::LinkFrame& frame, Trailer* trailer = nullptr);
bool macValid(std::string_view bytes, const Key& key);

// Which trailer a frame type carries.
Trailer trailerOf(proto::FrameType type);

// A REFUSE of frame `of`: it names what `of` named (session and count, or a handshake's client
// nonce), so that the sender can match it to what it has in flight.
proto::LinkFrame refusalOf(const proto::LinkFrame& of, proto::RefuseCode code, const std::string& reason);

}  // namespace rfms
