// The mail's check (runtime/crc32c.hpp) against the CRC-32C check value every implementation
// publishes, and the CPU's instruction against the table over lengths and alignments that
// exercise both of its loops.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/crc32c.hpp"

namespace rfms {
namespace {

TEST(Crc32c, GivesTheCheckValueOfTheCastagnoliPolynomial) {
  const std::string nine = "123456789";
  EXPECT_EQ(crc32c(0, nine.data(), nine.size()), 0xE3069283u);
  EXPECT_EQ(crc32cPortable(0, nine.data(), nine.size()), 0xE3069283u);
  EXPECT_EQ(crc32c(0, nullptr, 0), 0u);
  // 32 bytes of zeros: RFC 3720's first example.
  const std::vector<unsigned char> zeros(32, 0);
  EXPECT_EQ(crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);
}

TEST(Crc32c, TheInstructionAndTheTableAgreeAndPiecesChainIntoTheWhole) {
  std::mt19937 random(7);
  std::vector<unsigned char> bytes(4100);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(random());
  for (std::size_t start : {0, 1, 3, 7}) {
    for (std::size_t size : {0, 1, 7, 8, 9, 63, 64, 1000, 4093}) {
      const unsigned char* at = bytes.data() + start;
      EXPECT_EQ(crc32c(0, at, size), crc32cPortable(0, at, size)) << start << " " << size;
      const std::size_t half = size / 3;
      EXPECT_EQ(crc32c(crc32c(0, at, half), at + half, size - half), crc32c(0, at, size));
    }
  }
}

}  // namespace
}  // namespace rfms
