// The kernels' 32-bit per-bin counters, kept as several interleaved copies. Bins of consecutive
// pairs are random, and every so often the same bin comes again while its last increment is
// still in flight: the CPU then replays the load behind the store (a memory-ordering stall, or a
// store-forwarding chain), which made the increment loop most of a kernel's time (AMD Zen 4:
// 2 to 3 times the distance passes). With one copy per lane of four, an increment can only wait
// for the one four pairs earlier. The copies of a bin share a cache line; flushing sums them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "codelets/cpu/kernel_isa.hpp"

namespace pairhist::cpu {
inline namespace PAIRHIST_CPU_HELPERS {  // one per build: kernel_isa.hpp

class SpreadCounts {
 public:
  /// Counters for bins 0..bins-1 (the callers' extra bins included), added to target[0..added)
  /// by flush (the bins from `added` on are dropped).
  SpreadCounts(int bins, int added, uint64_t* target)
      : copies_(bins <= kMostSpreadBins ? kCopies : 1),
        // Sized by the constructor, not assign(): std::vector::assign is emitted out of line,
        // one copy for both kernel builds (tests/check_kernel_isa_objects.py).
        counts_(static_cast<size_t>(bins) * static_cast<size_t>(copies_), 0u),
        target_(target),
        added_(added) {}
  ~SpreadCounts() { flush(); }
  SpreadCounts(const SpreadCounts&) = delete;
  SpreadCounts& operator=(const SpreadCounts&) = delete;

  /// Counts bins[0..n); flushes first if a counter could overflow.
  void add(const int32_t* bins, int64_t n) {
    if (pending_ + static_cast<uint64_t>(n) > kMaxPending) flush();
    pending_ += static_cast<uint64_t>(n);
    uint32_t* c = counts_.data();
    int64_t k = 0;
    if (copies_ == kCopies) {
      for (; k + kCopies <= n; k += kCopies)
        for (int lane = 0; lane < kCopies; ++lane) ++c[kCopies * bins[k + lane] + lane];
      for (; k < n; ++k) ++c[kCopies * bins[k]];
    } else {
      for (; k < n; ++k) ++c[bins[k]];
    }
  }

  void flush() {
    if (pending_ == 0) return;
    const uint32_t* c = counts_.data();
    for (int b = 0; b < added_; ++b) {
      uint64_t sum = 0;
      for (int lane = 0; lane < copies_; ++lane) sum += c[copies_ * b + lane];
      target_[b] += sum;
    }
    std::fill(counts_.begin(), counts_.end(), 0u);
    pending_ = 0;
  }

 private:
  static constexpr int kCopies = 4;
  // Beyond this many bins (256 KiB of copies) repeats are rare and the copies would crowd L2.
  static constexpr int kMostSpreadBins = 16384;
  static constexpr uint64_t kMaxPending = std::numeric_limits<uint32_t>::max();
  int copies_;
  std::vector<uint32_t> counts_;
  uint64_t* target_;
  uint64_t pending_ = 0;
  int added_;
};

}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
