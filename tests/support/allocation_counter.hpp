// Counts the heap allocations made by the calling thread. Linking allocation_counter.cpp into a
// test binary interposes malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign and every
// form of operator new (plain, array, aligned, nothrow), so nothing that reaches the heap from this
// thread escapes it: Eigen's dynamic matrices (malloc), aligned types, protobuf and std containers.
// Other threads' allocations (a logger's writer, ZeroMQ's I/O threads) are not counted, nor those
// of a library excluded by excludeCallsFrom() (tests/support/excluded_code.hpp).
#pragma once

namespace rfms::test {

long allocationsOnThisThread();

}  // namespace rfms::test
