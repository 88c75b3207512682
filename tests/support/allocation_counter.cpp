#include "tests/support/allocation_counter.hpp"

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

void* counted(void* p) {
  ++t_allocations;
  return p;
}

void* alignedOrThrow(std::size_t n, std::size_t align) {
  if (void* p = __libc_memalign(align, n == 0 ? 1 : n)) return counted(p);
  throw std::bad_alloc();
}
void* plainOrThrow(std::size_t n) {
  if (void* p = __libc_malloc(n == 0 ? 1 : n)) return counted(p);
  throw std::bad_alloc();
}
}  // namespace

long rfms::test::allocationsOnThisThread() { return t_allocations; }

extern "C" {
void* malloc(std::size_t n) noexcept { return counted(__libc_malloc(n)); }
void* calloc(std::size_t n, std::size_t size) noexcept { return counted(__libc_calloc(n, size)); }
void* realloc(void* p, std::size_t n) noexcept { return counted(__libc_realloc(p, n)); }
void* memalign(std::size_t align, std::size_t n) noexcept { return counted(__libc_memalign(align, n)); }
void* aligned_alloc(std::size_t align, std::size_t n) noexcept { return counted(__libc_memalign(align, n)); }
int posix_memalign(void** out, std::size_t align, std::size_t n) noexcept {
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = counted(p);
  return 0;
}
void free(void* p) noexcept { __libc_free(p); }
}

void* operator new(std::size_t n) { return plainOrThrow(n); }
void* operator new[](std::size_t n) { return plainOrThrow(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted(__libc_malloc(n == 0 ? 1 : n)); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted(__libc_malloc(n == 0 ? 1 : n)); }
void* operator new(std::size_t n, std::align_val_t a) { return alignedOrThrow(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return alignedOrThrow(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
