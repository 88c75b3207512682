// Libraries whose own allocations and locks the counters (allocation_counter.hpp,
// lock_counter.hpp) leave out, so that a test can hold the project's code to zero where a library
// it runs on cannot be: ZeroMQ copies every message larger than 33 bytes into one it allocates and
// hands it over under a mutex. Told apart by the counted call's return address.
#pragma once

namespace rfms::test {

// From now on, allocations and locks asked for by code of the loaded shared library whose path
// contains `name` (e.g. "libzmq") are not counted. False when no such library is loaded. Call
// before the measurement, not during it.
bool excludeCallsFrom(const char* name);

// Whether `caller` (a return address) lies in an excluded library's code.
bool calledFromExcludedCode(const void* caller);

}  // namespace rfms::test
