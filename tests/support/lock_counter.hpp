// Counts the mutex and rwlock acquisitions made by the calling thread. Linking lock_counter.cpp
// into a test binary interposes pthread_mutex_lock and _trylock and the rwlocks' rdlock and wrlock
// (glibc's own entry points do the work), so every lock taken through them is seen: std::mutex
// and std::shared_mutex, spdlog's queue, protobuf's and ZeroMQ's mutexes. Timed locks are not
// counted (glibc exports no second name to hand them on to); nothing of ours takes one.
// A period thread must take none: a lock shared with a thread of lower priority can hold the
// period up for as long as that thread is preempted (priority inversion).
// glibc's internal locks (stdio's, the allocator's) do not go through these entry points; the
// allocation counter and the system-call watch cover those paths. Locks of a library excluded by
// excludeCallsFrom() (tests/support/excluded_code.hpp) are not counted.
#pragma once

namespace rfms::test {

long locksOnThisThread();

}  // namespace rfms::test
