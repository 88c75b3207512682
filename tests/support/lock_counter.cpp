#include "tests/support/lock_counter.hpp"

#include "tests/support/excluded_code.hpp"

#include <pthread.h>

// glibc's implementations, under the second names it exports for them (versioned GLIBC_2.2.5,
// so that a link names the version), so that the counting versions below hand the work on
// without dlsym, which may itself lock.
__asm__(".symver glibc_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver glibc_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver glibc_rwlock_rdlock, __pthread_rwlock_rdlock@GLIBC_2.2.5");
__asm__(".symver glibc_rwlock_wrlock, __pthread_rwlock_wrlock@GLIBC_2.2.5");
extern "C" {
int glibc_mutex_lock(pthread_mutex_t*);
int glibc_mutex_trylock(pthread_mutex_t*);
int glibc_rwlock_rdlock(pthread_rwlock_t*);
int glibc_rwlock_wrlock(pthread_rwlock_t*);
}

namespace {
thread_local long t_locks = 0;

void count(const void* caller) {
  if (!rfms::test::calledFromExcludedCode(caller)) ++t_locks;
}
}  // namespace

long rfms::test::locksOnThisThread() { return t_locks; }

extern "C" {
int pthread_mutex_lock(pthread_mutex_t* m) {
  count(__builtin_return_address(0));
  return glibc_mutex_lock(m);
}
int pthread_mutex_trylock(pthread_mutex_t* m) {
  count(__builtin_return_address(0));
  return glibc_mutex_trylock(m);
}
int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  count(__builtin_return_address(0));
  return glibc_rwlock_rdlock(l);
}
int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  count(__builtin_return_address(0));
  return glibc_rwlock_wrlock(l);
}
}
