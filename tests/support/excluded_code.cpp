#include "tests/support/excluded_code.hpp"

#include <link.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rfms::test {

namespace {
// Plain arrays: the counters ask from inside malloc and pthread_mutex_lock, where nothing may
// allocate or lock.
struct Range {
  std::uintptr_t begin = 0, end = 0;
};
std::array<Range, 16> g_excluded{};
std::atomic<int> g_excluded_count{0};
}  // namespace

bool calledFromExcludedCode(const void* caller) {
  const auto at = reinterpret_cast<std::uintptr_t>(caller);
  const int n = g_excluded_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (at >= g_excluded[static_cast<std::size_t>(i)].begin && at < g_excluded[static_cast<std::size_t>(i)].end)
      return true;
  return false;
}

bool excludeCallsFrom(const char* name) {
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

}  // namespace rfms::test
