// The CPU kernels' inner pass, shared by the all-pairs and cell-list kernels: bins of one point
// (already loaded: bin units, in the cell) against a run of loaded points, in vectorisable passes,
// and the thread-private 32-bit partial histogram they are counted into.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "codelets/cpu/kernel_isa.hpp"
#include "codelets/cpu/spread_counts.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::cpu {
inline namespace PAIRHIST_CPU_HELPERS {  // one per build: kernel_isa.hpp

/// Per-pair scratch of the triclinic passes: as many entries as columns in a pass.
template <class T>
struct RowScratch {
  int32_t* octant;
  T *rx, *ry, *rz, *best;
};

/// RowScratch in growable storage, for passes of varying length.
template <class T>
struct RowScratchStorage {
  std::vector<int32_t> octant;
  std::vector<T> rx, ry, rz, best;
  RowScratch<T> reserve(int64_t capacity) {
    const auto n = static_cast<size_t>(capacity);
    if (octant.size() < n)
      octant.resize(n), rx.resize(n), ry.resize(n), rz.resize(n), best.resize(n);
    return {octant.data(), rx.data(), ry.data(), rz.data(), best.data()};
  }
};

/// The bin of a squared distance in bins_of_row.
template <bool Shifted, class T>
inline int row_bin(T d2, T lower, T limit, int nbins) {
  if constexpr (Shifted) {
    return bin_of(d2, lower, limit, nbins);
  } else {
    (void)lower;
    return bin_of(d2, limit, nbins);
  }
}

/// bins[k] = bin of the pair (point (xi, yi, zi), column k) for k < n; nbins = not counted. The
/// columns bx, by, bz and the point are in the kernels' loaded form (geometry.hpp). Shifted: bins
/// from lower > 0 (r_min); without, lower is 0 and its subtraction is left out (the same bins).
template <BoxKind K, bool Shifted, class T>
inline void bins_of_row(const Box<T>& box, T lower, T limit, int nbins, T xi, T yi, T zi,
                        const T* __restrict__ bx, const T* __restrict__ by,
                        const T* __restrict__ bz, int64_t n, int32_t* __restrict__ bins,
                        RowScratch<T> scratch) {
  if constexpr (K == BoxKind::triclinic) {
    // Same arithmetic as distance2_triclinic, in passes over the columns so each vectorises.
    int32_t* __restrict__ octant = scratch.octant;
    T* __restrict__ rx = scratch.rx;
    T* __restrict__ ry = scratch.ry;
    T* __restrict__ rz = scratch.rz;
    T* __restrict__ best = scratch.best;
    const CellVectors<T> cell(box);
    for (int64_t k = 0; k < n; ++k) {
      T dx = fp::sub(bx[k], xi), dy = fp::sub(by[k], yi), dz = fp::sub(bz[k], zi);
      reduce_triclinic(cell, dx, dy, dz);
      rx[k] = dx;
      ry[k] = dy;
      rz[k] = dz;
      octant[k] = octant_of(dx, dy, dz);
      best[k] = norm2(dx, dy, dz);
    }
    const int images = box.octant_images;
    for (int m = 0; m < images; ++m) {
      // Candidate m of each octant as three 8-entry tables: the lookup by octant vectorises
      // (a gather or a permute), where the array of structures did not.
      T sx[8], sy[8], sz[8];
      for (int o = 0; o < 8; ++o) {
        sx[o] = box.octant_image[o][m].x;
        sy[o] = box.octant_image[o][m].y;
        sz[o] = box.octant_image[o][m].z;
      }
      for (int64_t k = 0; k < n; ++k) {
        const int o = octant[k];
        best[k] = fp::min(
            norm2(fp::add(rx[k], sx[o]), fp::add(ry[k], sy[o]), fp::add(rz[k], sz[o])), best[k]);
      }
    }
    for (int64_t k = 0; k < n; ++k) bins[k] = row_bin<Shifted>(best[k], lower, limit, nbins);
  } else {
    (void)scratch;
    for (int64_t k = 0; k < n; ++k) {
      const T d2 = pair_distance2<K>(box, image_table(box), fp::sub(bx[k], xi), fp::sub(by[k], yi),
                                     fp::sub(bz[k], zi));
      bins[k] = row_bin<Shifted>(d2, lower, limit, nbins);
    }
  }
}

/// Thread-private 32-bit partial histogram with one extra bin that swallows uncounted pairs, so the
/// update loop needs no branch. Flushed into the 64-bit result before any counter can overflow.
class PartialHistogram {
 public:
  PartialHistogram(int nbins, uint64_t* target)
      : counts_(nbins + 1, nbins, target), nbins_(nbins) {}

  /// Counts n bins (nbins: not counted).
  void add(const int32_t* bins, int64_t n) { counts_.add(bins, n); }

  /// Counts n bins of which most are nbins (not counted): the counted ones are packed first, so
  /// the increments of the miss bin do not chain through one memory location.
  void add_sparse(int32_t* bins, int64_t n) {
    int64_t kept = 0;
    for (int64_t k = 0; k < n; ++k) {
      bins[kept] = bins[k];
      kept += bins[k] < nbins_ ? 1 : 0;
    }
    add(bins, kept);
  }

  void flush() { counts_.flush(); }

 private:
  SpreadCounts counts_;
  int nbins_;
};

}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
