// The few pieces of protobuf's wire format that the run log handles itself: a PeriodRecord is
// built from mailboxes already serialised, and read field by field so that damage costs only
// the field it is in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rfms::wire {

// A varint at `at`, which it moves past; false when the bytes end first or it runs on past ten.
inline bool readVarint(std::string_view data, std::size_t& at, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && at < data.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(data[at++]);
    value |= static_cast<std::uint64_t>(byte & 0x7fu) << shift;
    if ((byte & 0x80u) == 0) return true;
  }
  return false;
}

inline void putVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline constexpr std::uint64_t tag(int field, unsigned wire_type) {
  return (static_cast<std::uint64_t>(field) << 3) | wire_type;
}
inline constexpr unsigned kVarint = 0, kLengthDelimited = 2;

}  // namespace rfms::wire
