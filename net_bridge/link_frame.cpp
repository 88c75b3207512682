#include "net_bridge/link_frame.hpp"

#include <zlib.h>

#include <cstdint>

namespace rfms {

namespace {

constexpr std::size_t kHeader = 2, kCrcBytes = 4, kMacBytes = 32;

std::uint32_t crcOf(std::string_view bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// Whether the last four bytes are the CRC-32 (big-endian) of the bytes before them.
bool crcMatches(std::string_view bytes) {
  const std::string_view body = bytes.substr(0, bytes.size() - kCrcBytes);
  std::uint32_t crc = 0;
  for (std::size_t i = body.size(); i < bytes.size(); ++i) crc = (crc << 8) | static_cast<unsigned char>(bytes[i]);
  return crc == crcOf(body);
}

std::string withHeader(const proto::LinkFrame& frame, Trailer t) {
  std::string bytes;
  bytes.push_back(static_cast<char>(kLinkVersion));
  bytes.push_back(static_cast<char>(t == Trailer::kCrc ? 0 : 1));
  frame.AppendToString(&bytes);
  return bytes;
}

bool knownType(proto::FrameType t) {
  switch (t) {
    case proto::FT_REG:
    case proto::FT_ACK:
    case proto::FT_SENDREQ:
    case proto::FT_HELLO:
    case proto::FT_CHALLENGE:
    case proto::FT_AUTH:
    case proto::FT_REFUSE:
    case proto::FT_RETRY: return true;
    default: return false;
  }
}

}  // namespace

Trailer trailerOf(proto::FrameType type) {
  return type == proto::FT_HELLO || type == proto::FT_CHALLENGE || type == proto::FT_REFUSE ? Trailer::kCrc
                                                                                            : Trailer::kMac;
}

std::string encodeDatagram(const proto::LinkFrame& frame) {
  std::string bytes = withHeader(frame, Trailer::kCrc);
  const std::uint32_t crc = crcOf(bytes);
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((crc >> shift) & 0xffu));
  return bytes;
}

std::string encodeDatagram(const proto::LinkFrame& frame, const Key& key) {
  std::string bytes = withHeader(frame, Trailer::kMac);
  const Mac mac = macOf(key, bytes);
  bytes.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  return bytes;
}

Datagram decodeDatagram(std::string_view bytes, proto::LinkFrame& frame, Trailer* trailer) {
  if (bytes.size() < kHeader + kCrcBytes || bytes.size() > kMaxDatagram) return Datagram::kBadChecksum;
  const unsigned char kind = static_cast<unsigned char>(bytes[1]);
  // Another version is answered only when its datagram is checksummed as ours are: random bytes
  // are noise, not a client to tell (and answering them would make the bridge a reflector).
  if (static_cast<unsigned char>(bytes[0]) != kLinkVersion)
    return crcMatches(bytes) ? Datagram::kWrongVersion : Datagram::kBadChecksum;
  if (kind > 1) return Datagram::kMalformed;
  const Trailer t = kind == 0 ? Trailer::kCrc : Trailer::kMac;
  const std::size_t tail = t == Trailer::kCrc ? kCrcBytes : kMacBytes;
  if (bytes.size() < kHeader + tail) return Datagram::kMalformed;
  const std::string_view body = bytes.substr(0, bytes.size() - tail);
  if (t == Trailer::kCrc && !crcMatches(bytes)) return Datagram::kBadChecksum;
  const std::string_view frame_bytes = body.substr(kHeader);
  if (!frame.ParseFromArray(frame_bytes.data(), static_cast<int>(frame_bytes.size()))) return Datagram::kMalformed;
  // proto3 keeps enum values it does not know: a type 10 is not a frame of this version. A REFUSE
  // is signed where the bridge holds the session's keys, checksummed where it cannot be.
  if (!knownType(frame.type()) || (frame.type() != proto::FT_REFUSE && trailerOf(frame.type()) != t))
    return Datagram::kMalformed;
  if (frame.seq() != (frame.count() & 1u)) return Datagram::kMalformed;
  if (trailer != nullptr) *trailer = t;
  return Datagram::kOk;
}

proto::LinkFrame refusalOf(const proto::LinkFrame& of, proto::RefuseCode code, const std::string& reason) {
  proto::LinkFrame r;
  r.set_type(proto::FT_REFUSE);
  r.set_session(of.session());
  r.set_count(of.count());
  r.set_seq(static_cast<std::uint32_t>(of.count() & 1u));
  r.set_refuse(code);
  r.set_reason(reason);
  // A nonce of any other size is not one a client made: it is not echoed (a refusal of a HELLO
  // with 60 kB of "nonce" would be 60 kB).
  if (of.handshake().client_nonce().size() == 24)
    r.mutable_handshake()->set_client_nonce(of.handshake().client_nonce());
  return r;
}

bool macValid(std::string_view bytes, const Key& key) {
  if (bytes.size() < kHeader + kMacBytes || static_cast<unsigned char>(bytes[1]) != 1) return false;
  const std::string_view body = bytes.substr(0, bytes.size() - kMacBytes);
  return macMatches(key, body, reinterpret_cast<const unsigned char*>(bytes.data() + body.size()));
}

}  // namespace rfms
