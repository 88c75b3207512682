#include "tests/support/allocation_counter.hpp"

#include "tests/support/excluded_code.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <new>

// glibc's own allocator, under the names it exports for interposers.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
// Plain thread-local data needs no allocation of its own, so the counter can sit inside malloc.
thread_local long t_allocations = 0;

// `caller`: the return address of the allocating function, i.e. who asked for the memory.
void* counted(void* p, const void* caller = nullptr) {
  if (caller == nullptr || !rfms::test::calledFromExcludedCode(caller)) ++t_allocations;
  return p;
}

void* alignedOrThrow(std::size_t n, std::size_t align, const void* caller) {
  if (void* p = __libc_memalign(align, n == 0 ? 1 : n)) return counted(p, caller);
  throw std::bad_alloc();
}
void* plainOrThrow(std::size_t n, const void* caller) {
  if (void* p = __libc_malloc(n == 0 ? 1 : n)) return counted(p, caller);
  throw std::bad_alloc();
}
}  // namespace

long rfms::test::allocationsOnThisThread() { return t_allocations; }

extern "C" {
void* malloc(std::size_t n) noexcept { return counted(__libc_malloc(n), __builtin_return_address(0)); }
void* calloc(std::size_t n, std::size_t size) noexcept {
  return counted(__libc_calloc(n, size), __builtin_return_address(0));
}
void* realloc(void* p, std::size_t n) noexcept { return counted(__libc_realloc(p, n), __builtin_return_address(0)); }
void* memalign(std::size_t align, std::size_t n) noexcept {
  return counted(__libc_memalign(align, n), __builtin_return_address(0));
}
void* aligned_alloc(std::size_t align, std::size_t n) noexcept {
  return counted(__libc_memalign(align, n), __builtin_return_address(0));
}
int posix_memalign(void** out, std::size_t align, std::size_t n) noexcept {
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = counted(p, __builtin_return_address(0));
  return 0;
}
void free(void* p) noexcept { __libc_free(p); }
}

#define RFMS_CALLER __builtin_return_address(0)
void* operator new(std::size_t n) { return plainOrThrow(n, RFMS_CALLER); }
void* operator new[](std::size_t n) { return plainOrThrow(n, RFMS_CALLER); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted(__libc_malloc(n == 0 ? 1 : n), RFMS_CALLER);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted(__libc_malloc(n == 0 ? 1 : n), RFMS_CALLER);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return alignedOrThrow(n, static_cast<std::size_t>(a), RFMS_CALLER);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return alignedOrThrow(n, static_cast<std::size_t>(a), RFMS_CALLER);
}
#undef RFMS_CALLER
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
