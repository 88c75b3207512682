#include "runtime/doorbell.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>

namespace rfms::doorbell {

namespace {
// The word lives in memory other processes map: a shared futex, not FUTEX_PRIVATE_FLAG.
long futex(std::atomic<std::uint32_t>& word, int op, std::uint32_t value, const timespec* at) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, value, at, nullptr, FUTEX_BITSET_MATCH_ANY);
}
}  // namespace

void ring(std::atomic<std::uint32_t>& word, unsigned bit) {
  const std::uint32_t mine = allOf(bit) | anyOf(bit);
  const std::uint32_t before = word.fetch_and(~mine, std::memory_order_seq_cst);
  const bool any = (before & anyOf(bit)) != 0;
  const bool last = (before & allOf(bit)) != 0 && (before & kAllOf & ~allOf(bit)) == 0;
  if (any || last) futex(word, FUTEX_WAKE, 1, nullptr);
}

void wakeAll(std::atomic<std::uint32_t>& word) { futex(word, FUTEX_WAKE, INT_MAX, nullptr); }

Slept sleep(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::steady_clock::time_point deadline) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  const timespec at{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  // FUTEX_WAIT_BITSET takes an absolute time on CLOCK_MONOTONIC, the steady clock's.
  if (futex(word, FUTEX_WAIT_BITSET, expected, &at) == 0) return Slept::kWoken;
  switch (errno) {
    case ETIMEDOUT: return Slept::kTimedOut;
    case EINTR: return Slept::kInterrupted;
    default: return Slept::kWoken;  // EAGAIN: the word changed before the sleep
  }
}

}  // namespace rfms::doorbell
