// CRC-32C (Castagnoli, the iSCSI polynomial), the check every mail in a shared segment carries
// (runtime/mail_ring.hpp). It catches every burst of up to 32 damaged bits and all but one in 2^32
// of the rest, and modern CPUs compute it with one instruction per 8 bytes (SSE 4.2's crc32): a
// 2 kB mail costs a fraction of a microsecond (build/bin/rfms-bench-mail-check prints it beside zlib's
// CRC-32). Where the CPU lacks the instruction a table does the same work, slower.
// Real-time safe: no allocation, no lock, no system call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rfms {

// The CRC of `size` bytes at `data`, continuing from `crc` (0 to start): crc32c(crc32c(0, a), b)
// is the CRC of a followed by b.
std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t size);

// The table's form, whatever the CPU has: for tests that hold both to the same values.
std::uint32_t crc32cPortable(std::uint32_t crc, const void* data, std::size_t size);
// Whether crc32c uses the CPU's instruction.
bool crc32cInHardware();

}  // namespace rfms
