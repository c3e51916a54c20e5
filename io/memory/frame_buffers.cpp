#include "io/memory/frame_buffers.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace pairhist::io {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (start + bytes) & ~(kHugePage - 1);
  if (p == nullptr || end <= first) return;
  madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);  // advice: may be refused
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace pairhist::io
