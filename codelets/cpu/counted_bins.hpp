// Counting a pass's squared distances when most of them are not counted (a cell list's
// candidates lie mostly beyond r_max). Incrementing an overflow counter for each of those would
// chain every miss through one memory address (a store-forwarding dependency of several cycles
// each), and their square roots alone would take a third of the pass. So the counted ones are
// first picked out by their squared distance (bin_of is monotone: below a threshold found once),
// compacted branch-free a vector at a time, and only they get a square root and a bin.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "codelets/cpu/kernel_isa.hpp"
#include "codelets/cpu/spread_counts.hpp"
#include "pairhist/geometry.hpp"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace pairhist::cpu {
inline namespace PAIRHIST_CPU_HELPERS {  // one per build: kernel_isa.hpp

/// The least squared distance above the counted ones: d2 is counted only if d2 < it (NaN never
/// is), and then iff bin_of(d2, lower, limit, nbins) < nbins (with lower > 0, those below lower
/// are not counted either: their bin is nbins). Above lower, bin_of only grows with d2, so a
/// bisection over the bit patterns of the non-negative T (ordered like the values) finds it
/// exactly. Only where T(nbins) >= nbins: else (float, beyond 2^24 bins) bin_of never reaches
/// nbins and every pair is counted, NaN too.
template <class T>
T uncounted_from(T lower, T limit, int nbins) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const auto value = [](Bits b) {
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  };
  const auto above = [&](T d2) {
    return !(fp::sqrt(d2) < lower) && bin_of(d2, lower, limit, nbins) >= nbins;
  };
  const T inf = std::numeric_limits<T>::infinity();
  Bits lo = 0, hi;  // !above(lo), above(hi)
  std::memcpy(&hi, &inf, sizeof hi);
  if (above(T(0))) return T(0);
  while (hi - lo > 1) {
    const Bits mid = lo + (hi - lo) / 2;
    (above(value(mid)) ? hi : lo) = mid;
  }
  return value(hi);
}

/// Bins from 0.
template <class T>
T uncounted_from(T limit, int nbins) {
  return uncounted_from(T(0), limit, nbins);
}

/// A cut-off on the last bin's upper edge.
template <class T>
T uncounted_from(int nbins) {
  return uncounted_from(T(nbins), nbins);
}

namespace detail {
/// For each lane mask of 8 (float) or 4 (double) lanes, the 32-bit lanes that pack the selected
/// elements to the front of a vector, one index per byte.
struct CompactionTable {
  std::array<uint64_t, 256> float_lanes{};
  std::array<uint64_t, 16> double_lanes{};
  constexpr CompactionTable() {
    for (int mask = 0; mask < 256; ++mask) {
      int out = 0;
      for (int lane = 0; lane < 8; ++lane)
        if (mask & (1 << lane))
          float_lanes[static_cast<size_t>(mask)] |= static_cast<uint64_t>(lane) << (8 * out++);
    }
    for (int mask = 0; mask < 16; ++mask) {
      int out = 0;
      for (int lane = 0; lane < 4; ++lane)
        if (mask & (1 << lane)) {
          double_lanes[static_cast<size_t>(mask)] |= static_cast<uint64_t>(2 * lane) << (8 * out++);
          double_lanes[static_cast<size_t>(mask)] |= static_cast<uint64_t>(2 * lane + 1)
                                                     << (8 * out++);
        }
    }
  }
};
inline constexpr CompactionTable kCompaction{};
}  // namespace detail

/// Copies the d2[k] < limit (every d2[k] where CountAll) of k in [lead, valid) to out, in
/// order; returns how many. m, a multiple of 8 with valid <= m < valid + 8, is what d2 holds,
/// lead < 8. Past `valid` d2 holds NaN padding, never below the limit (but counted where CountAll,
/// so masked there). out needs room for m entries (a vector store writes past the count).
template <bool CountAll, class T>
int64_t compact_below(const T* d2, int64_t m, int64_t valid, T limit, int lead, T* out) {
  int64_t w = 0;
  unsigned keep = 0xffu << lead;
  if (CountAll && valid - (m - 8) < 8) m -= 8;  // the last block goes through the scalar tail
#if defined(__AVX512F__)
  // The AVX-512 build (kernel_isa.hpp) compacts with vcompress, 16 floats or 8 doubles a step; a
  // last block of 8 floats is a masked half. The masked store writes no lane past k + 8 there.
  constexpr int kBelow = CountAll ? _CMP_TRUE_UQ : _CMP_LT_OQ;
  if constexpr (sizeof(T) == 4) {
    const __m512 lim = _mm512_set1_ps(limit);
    unsigned keep16 = 0xffffu << lead;
    for (int64_t k = 0; k < m; k += 16, keep16 = 0xffffu) {
      const __mmask16 lanes = m - k >= 16 ? 0xffffu : 0x00ffu;
      const __m512 v = _mm512_maskz_loadu_ps(lanes, d2 + k);
      const __mmask16 mask =
          _mm512_mask_cmp_ps_mask(static_cast<__mmask16>(lanes & keep16), v, lim, kBelow);
      _mm512_mask_storeu_ps(out + w, lanes, _mm512_maskz_compress_ps(mask, v));
      w += __builtin_popcount(mask);
    }
  } else {
    const __m512d lim = _mm512_set1_pd(limit);
    for (int64_t k = 0; k < m; k += 8, keep = 0xffu) {
      const __m512d v = _mm512_loadu_pd(d2 + k);
      const __mmask8 mask = _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(keep), v, lim, kBelow);
      _mm512_storeu_pd(out + w, _mm512_maskz_compress_pd(mask, v));
      w += __builtin_popcount(mask);
    }
  }
  const int64_t tail = m;
#elif defined(__AVX2__)
  constexpr int kBelow = CountAll ? _CMP_TRUE_UQ : _CMP_LT_OQ;
  if constexpr (sizeof(T) == 4) {
    const __m256 lim = _mm256_set1_ps(limit);
    for (int64_t k = 0; k < m; k += 8, keep = 0xffu) {
      const __m256 v = _mm256_loadu_ps(d2 + k);
      const unsigned mask =
          static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, lim, kBelow))) & keep;
      const __m256i lanes = _mm256_cvtepu8_epi32(
          _mm_cvtsi64_si128(static_cast<long long>(detail::kCompaction.float_lanes[mask])));
      _mm256_storeu_ps(out + w, _mm256_permutevar8x32_ps(v, lanes));
      w += __builtin_popcount(mask);
    }
  } else {
    const __m256d lim = _mm256_set1_pd(limit);
    for (int64_t k = 0; k < m; k += 8, keep = 0xffu)
      for (int half = 0; half < 2; ++half) {
        const __m256d v = _mm256_loadu_pd(d2 + k + 4 * half);
        const unsigned mask =
            static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(v, lim, kBelow))) &
            (keep >> (4 * half)) & 0xfu;
        const __m256i lanes = _mm256_cvtepu8_epi32(
            _mm_cvtsi64_si128(static_cast<long long>(detail::kCompaction.double_lanes[mask])));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + w),
                            _mm256_permutevar8x32_epi32(_mm256_castpd_si256(v), lanes));
        w += __builtin_popcount(mask);
      }
  }
  const int64_t tail = m;
#else
  const int64_t tail = 0;
#endif
  for (int64_t k = tail; k < valid; ++k) {
    out[w] = d2[k];
    w += (k >= lead && (CountAll || d2[k] < limit)) ? 1 : 0;
  }
  (void)keep;
  return w;
}

/// Thread-private 32-bit counts of the counted pairs, flushed into the 64-bit result before any
/// counter can overflow. One counter more than bins: with bins from r_min > 0 the pairs below it
/// pass the compaction (below the upper threshold) and land there, uncounted.
template <class T>
class CountedBins {
 public:
  /// Counts the pairs at lower <= r < bin_limit (in bin units: HistogramParams::lower, ::limit).
  CountedBins(T lower, T bin_limit, int nbins, uint64_t* target)
      : counts_(nbins + 1, nbins, target),
        limit_(uncounted_from<T>(lower, bin_limit, nbins)),
        lower_(lower),
        bin_limit_(bin_limit),
        nbins_(nbins),
        // NaN gets the highest bin, T(nbins): below nbins only where every pair is counted.
        count_all_(bin_of(std::numeric_limits<T>::quiet_NaN(), lower, bin_limit, nbins) < nbins) {}

  /// Counts the squared distances d2[lead..valid) (see compact_below); d2_scratch and
  /// bin_scratch hold m entries.
  void add(const T* d2, int64_t m, int64_t valid, int lead, T* d2_scratch, int32_t* bin_scratch) {
    const int64_t w = count_all_ ? compact_below<true>(d2, m, valid, limit_, lead, d2_scratch)
                                 : compact_below<false>(d2, m, valid, limit_, lead, d2_scratch);
    // Bins from 0 without the subtraction and its compare (bit for bit the same bins): the
    // shifted loop cost CPU K1 (cell lists, every pair counted) a third on 16 cores.
    if (lower_ == T(0)) {
      for (int64_t k = 0; k < w; ++k) bin_scratch[k] = bin_of(d2_scratch[k], bin_limit_, nbins_);
    } else {
      for (int64_t k = 0; k < w; ++k)
        bin_scratch[k] = bin_of(d2_scratch[k], lower_, bin_limit_, nbins_);
    }
    counts_.add(bin_scratch, w);
  }

  void flush() { counts_.flush(); }

 private:
  SpreadCounts counts_;
  T limit_;      // in squared bin units: only d2 < limit_ can be counted
  T lower_;      // in bin units
  T bin_limit_;  // in bin units
  int nbins_;
  bool count_all_;
};

}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
