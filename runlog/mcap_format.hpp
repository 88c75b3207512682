// The byte-level pieces of MCAP shared by the writer and the reader: opcodes, the magic, and
// little-endian primitives (integers, length-prefixed strings and byte arrays, maps).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rfms::mcap {

inline constexpr char kMagic[8] = {'\x89', 'M', 'C', 'A', 'P', '0', '\r', '\n'};

enum Op : std::uint8_t {
  kHeader = 0x01,
  kFooter = 0x02,
  kSchema = 0x03,
  kChannel = 0x04,
  kMessage = 0x05,
  kChunk = 0x06,
  kMessageIndex = 0x07,
  kChunkIndex = 0x08,
  kAttachment = 0x09,
  kAttachmentIndex = 0x0A,
  kStatistics = 0x0B,
  kMetadata = 0x0C,
  kMetadataIndex = 0x0D,
  kSummaryOffset = 0x0E,
  kDataEnd = 0x0F,
};

template <class T>
void putLe(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xffu));
}
inline void putString(std::string& out, std::string_view s) {
  putLe<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

// Reads primitives from a record's content; throws std::out_of_range past its end.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  T le() {
    need(sizeof(T));
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += sizeof(T);
    return static_cast<T>(v);
  }
  std::string_view bytes(std::size_t n) {
    need(n);
    auto s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::string string() { return std::string(bytes(le<std::uint32_t>())); }
  std::string_view rest() { return bytes(bytes_.size() - at_); }
  std::size_t position() const { return at_; }
  bool done() const { return at_ >= bytes_.size(); }

 private:
  void need(std::size_t n) const {
    if (n > bytes_.size() - at_) throw std::out_of_range("record ends early");
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace rfms::mcap
