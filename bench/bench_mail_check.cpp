// rfms-bench-mail-check: what the check on every mail costs (runtime/crc32c.hpp): CRC-32C with
// the CPU's instruction and with the table, beside zlib's CRC-32 (the peer: the CRC a well-kept
// library gives), over the mailboxes' sizes — a torque (about 30 bytes), a J_MAIL (about 120),
// the arm's sensors and S_MAIL (up to 2 kB) and a box's largest capacity (4 kB). A lockstep period
// writes about 17 mails and reads about 30, so the period's cost is some 50 checks of these sizes.
#include <zlib.h>

#include <cstdint>
#include <vector>

#include "bench/benchmark_main.hpp"
#include "runtime/crc32c.hpp"

namespace {

std::vector<unsigned char> bytes(std::size_t n) {
  std::vector<unsigned char> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 131 + 7);
  return b;
}

void BM_Crc32c(benchmark::State& state) {
  const auto b = bytes(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(rfms::crc32c(0, b.data(), b.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
  state.SetLabel(rfms::crc32cInHardware() ? "SSE 4.2 crc32" : "table (no SSE 4.2)");
}

void BM_Crc32cTable(benchmark::State& state) {
  const auto b = bytes(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(rfms::crc32cPortable(0, b.data(), b.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_ZlibCrc32(benchmark::State& state) {
  const auto b = bytes(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32(0, b.data(), static_cast<uInt>(b.size())));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

BENCHMARK(BM_Crc32c)->Arg(32)->Arg(128)->Arg(2048)->Arg(4096);
BENCHMARK(BM_Crc32cTable)->Arg(32)->Arg(128)->Arg(2048)->Arg(4096);
BENCHMARK(BM_ZlibCrc32)->Arg(32)->Arg(128)->Arg(2048)->Arg(4096);

}  // namespace

RFMS_BENCHMARK_MAIN();
