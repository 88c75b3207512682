#include "tests/support/allocation_counter.hpp"

#include <link.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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

// Code ranges whose allocations are not counted (excludeAllocationsFrom).
struct Range {
  std::uintptr_t begin = 0, end = 0;
};
std::array<Range, 16> g_excluded{};
std::atomic<int> g_excluded_count{0};

bool excluded(const void* caller) {
  const auto at = reinterpret_cast<std::uintptr_t>(caller);
  const int n = g_excluded_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (at >= g_excluded[static_cast<std::size_t>(i)].begin && at < g_excluded[static_cast<std::size_t>(i)].end)
      return true;
  return false;
}

// `caller`: the return address of the allocating function, i.e. who asked for the memory.
void* counted(void* p, const void* caller = nullptr) {
  if (caller == nullptr || !excluded(caller)) ++t_allocations;
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

bool rfms::test::excludeAllocationsFrom(const char* name) {
  struct Search {
    const char* name;
    int found;
  } search{name, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, s->name) == nullptr) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type != PT_LOAD || (h.p_flags & PF_X) == 0) continue;
          const int n = g_excluded_count.load();
          if (n >= static_cast<int>(g_excluded.size())) return 1;
          g_excluded[static_cast<std::size_t>(n)] = {info->dlpi_addr + h.p_vaddr,
                                                     info->dlpi_addr + h.p_vaddr + h.p_memsz};
          g_excluded_count.store(n + 1, std::memory_order_release);
          ++s->found;
        }
        return 0;
      },
      &search);
  return search.found > 0;
}

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
