// Counts the heap allocations made by the calling thread. Linking allocation_counter.cpp into a
// test binary interposes malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign and every
// form of operator new (plain, array, aligned, nothrow), so nothing that reaches the heap from this
// thread escapes it: Eigen's dynamic matrices (malloc), aligned types, protobuf and std containers.
// Other threads' allocations (a logger's writer, ZeroMQ's I/O threads) are not counted.
#pragma once

namespace rfms::test {

long allocationsOnThisThread();

// From now on, allocations made by code of the shared library whose path contains `name` (e.g.
// "libzmq": ZeroMQ copies every message larger than 33 bytes into one it allocates) are not
// counted, so that a test can hold our own code to zero. Returns false when no such library is
// loaded. Call before the measurement, not during it.
bool excludeAllocationsFrom(const char* name);

}  // namespace rfms::test
