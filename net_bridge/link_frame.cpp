#include "net_bridge/link_frame.hpp"

#include <zlib.h>

#include <cstdint>

namespace rfms {

namespace {
std::uint32_t crcOf(std::string_view bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}
}  // namespace

std::string encodeDatagram(const proto::LinkFrame& frame) {
  std::string bytes = frame.SerializeAsString();
  const std::uint32_t crc = crcOf(bytes);
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((crc >> shift) & 0xffu));
  return bytes;
}

Datagram decodeDatagram(std::string_view bytes, proto::LinkFrame& frame) {
  if (bytes.size() < 4) return Datagram::kBadChecksum;
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  std::uint32_t crc = 0;
  for (std::size_t i = body.size(); i < bytes.size(); ++i) crc = (crc << 8) | static_cast<unsigned char>(bytes[i]);
  if (crc != crcOf(body)) return Datagram::kBadChecksum;
  if (!frame.ParseFromArray(body.data(), static_cast<int>(body.size()))) return Datagram::kMalformed;
  if (frame.type() == proto::FT_NONE || frame.seq() > 1) return Datagram::kMalformed;
  return Datagram::kOk;
}

}  // namespace rfms
