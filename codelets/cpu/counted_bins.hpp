// Counting a pass's bins when most of them are "not counted" (a cell list's candidates lie
// mostly beyond r_max). Incrementing an overflow counter for each of those would chain every
// miss through one memory address (a store-forwarding dependency of several cycles each); the
// counted bins are first compacted, branch-free and eight at a time, and only they are added.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace pairhist::cpu {

namespace detail {
/// For each 8-bit mask, the positions of its set bits in order (one byte each): the permutation
/// that packs the selected lanes of a vector to its front.
struct CompactionTable {
  std::array<uint64_t, 256> lanes{};
  constexpr CompactionTable() {
    for (int mask = 0; mask < 256; ++mask) {
      uint64_t packed = 0;
      int out = 0;
      for (int lane = 0; lane < 8; ++lane)
        if (mask & (1 << lane)) packed |= static_cast<uint64_t>(lane) << (8 * out++);
      lanes[static_cast<size_t>(mask)] = packed;
    }
  }
};
inline constexpr CompactionTable kCompaction{};
}  // namespace detail

/// Copies the bins below nbins of bins[0..m) (m a multiple of 8) to out, in order; returns how
/// many. out needs room for m entries (the last vector store writes up to 7 beyond the count).
inline int64_t compact_counted(const int32_t* bins, int64_t m, int nbins, int32_t* out) {
  int64_t w = 0;
#if defined(__AVX2__)
  const __m256i limit = _mm256_set1_epi32(nbins);
  for (int64_t k = 0; k < m; k += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bins + k));
    const int mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(limit, v)));
    const __m256i lanes = _mm256_cvtepu8_epi32(
        _mm_cvtsi64_si128(static_cast<long long>(detail::kCompaction.lanes[mask])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + w), _mm256_permutevar8x32_epi32(v, lanes));
    w += __builtin_popcount(static_cast<unsigned>(mask));
  }
#else
  for (int64_t k = 0; k < m; ++k) {
    out[w] = bins[k];
    w += bins[k] < nbins ? 1 : 0;
  }
#endif
  return w;
}

/// Thread-private 32-bit counts of the bins below nbins, flushed into the 64-bit result before
/// any counter can overflow.
class CountedBins {
 public:
  CountedBins(int nbins, uint64_t* target) : target_(target), nbins_(nbins) {
    counts_.assign(static_cast<size_t>(nbins), 0);
  }
  ~CountedBins() { flush(); }
  CountedBins(const CountedBins&) = delete;
  CountedBins& operator=(const CountedBins&) = delete;

  /// Adds the bins of bins[0..m) that are below nbins; `scratch` holds m entries.
  void add(const int32_t* bins, int64_t m, int32_t* scratch) {
    if (pending_ + static_cast<uint64_t>(m) > kMaxPending) flush();
    const int64_t w = compact_counted(bins, m, nbins_, scratch);
    pending_ += static_cast<uint64_t>(w);
    uint32_t* c = counts_.data();
    for (int64_t k = 0; k < w; ++k) ++c[scratch[k]];
  }

  void flush() {
    if (pending_ == 0) return;
    for (int k = 0; k < nbins_; ++k) target_[k] += counts_[static_cast<size_t>(k)];
    std::fill(counts_.begin(), counts_.end(), 0u);
    pending_ = 0;
  }

 private:
  static constexpr uint64_t kMaxPending = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> counts_;
  uint64_t* target_;
  uint64_t pending_ = 0;
  int nbins_;
};

}  // namespace pairhist::cpu
