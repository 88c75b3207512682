#include "runtime/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace rfms {

namespace {

// The reflected polynomial 0x1EDC6F41.
constexpr std::uint32_t kPolynomial = 0x82F63B78u;

constexpr std::array<std::uint32_t, 256> makeTable() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) != 0 ? (c >> 1) ^ kPolynomial : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint32_t, 256> kTable = makeTable();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t hardware(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t c = ~crc;
  for (; size >= 8; size -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  auto c32 = static_cast<std::uint32_t>(c);
  for (; size > 0; --size, ++p) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}
const bool kHardware = __builtin_cpu_supports("sse4.2");
#else
std::uint32_t hardware(std::uint32_t crc, const void* data, std::size_t size) {
  return crc32cPortable(crc, data, size);
}
const bool kHardware = false;
#endif

}  // namespace

std::uint32_t crc32cPortable(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < size; ++i) c = kTable[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return ~c;
}

std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t size) {
  return kHardware ? hardware(crc, data, size) : crc32cPortable(crc, data, size);
}

bool crc32cInHardware() { return kHardware; }

}  // namespace rfms
