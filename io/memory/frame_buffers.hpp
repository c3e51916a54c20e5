// The big buffers a reader refills every frame (compressed bytes, decoded coordinates): sized once
// for the largest frame and then reused, never grown step by step. At 11M atoms a frame is 44 MB
// compressed and 130 MB decoded; faulting such a buffer in afresh, 4 KiB at a time, cost a 2-core
// machine as much kernel time as decoding the frame took (docs/performance.md, "XTC decoding").
#pragma once

#include <cstddef>
#include <vector>

namespace pairhist::io {

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge
/// pages (where the kernel offers them on request): one fault per 2 MiB instead of 512. Advice
/// only; does nothing for small ranges.
void advise_huge_pages(void* p, std::size_t bytes);

/// Sizes `v` to `n` elements that the caller overwrites: what it held before is lost when the
/// storage must grow. Growing allocates once, at the size asked (no copy of the old contents, no
/// doubling), in huge pages where big enough; a buffer that is big enough is only resized.
template <class T>
void size_for_overwrite(std::vector<T>& v, std::size_t n) {
  if (v.capacity() < n) {
    std::vector<T>().swap(v);  // free the old storage first: one buffer at a time in memory
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

}  // namespace pairhist::io
