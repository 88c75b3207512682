// A reader's doorbell, in place of the interrupts RFMS's boards raised on each other: one futex
// word per reader, beside the mailboxes it reads. Before it sleeps, the reader writes into the
// word which of its boxes it waits for, in two groups: all of (the low 16 bits: the mail that
// completes its period) and any of (the high 16: a stop). A writer clears its box's bits after
// writing and wakes the reader only when that completes what it waits for, so a joint's six
// torques wake the arm once, not six times, and mail nobody waits for wakes nobody.
//
// A bit is the box's place among the boxes its reader reads (at most 16). The word is a hint,
// never the truth: the reader decides from the mailboxes themselves once it is awake, so a word
// another process scribbles on costs at most a spurious wake or a wait until the deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace rfms {

namespace doorbell {

inline constexpr std::uint32_t kAllOf = 0xFFFFu;
constexpr std::uint32_t allOf(unsigned bit) { return std::uint32_t{1} << bit; }
constexpr std::uint32_t anyOf(unsigned bit) { return std::uint32_t{1} << (bit + 16); }

// The writer's side, after the mail is written: clears `bit` and wakes the reader when that
// completes its wait. One atomic operation, and a system call only for a wake.
void ring(std::atomic<std::uint32_t>& word, unsigned bit);

// Wakes every thread asleep on `word`, whatever it holds (the caller has changed it first).
void wakeAll(std::atomic<std::uint32_t>& word);

enum class Slept { kWoken, kTimedOut, kInterrupted };
// The reader's side: sleeps while the word still holds `expected`, until `deadline` on the
// steady clock (CLOCK_MONOTONIC). kWoken also when the word had already changed.
Slept sleep(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::steady_clock::time_point deadline);

}  // namespace doorbell

}  // namespace rfms
