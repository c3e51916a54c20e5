#include "codelets/cpu/pair_histogram_cpu.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "codelets/cpu/kernel_variants.hpp"
#include "codelets/cpu/row_bins.hpp"

namespace pairhist::cpu {
namespace {

// Columns of b handled per sweep: the bin-index buffer and the tile's columns in bin units stay in
// L1 (1024 * (4 + 3 * sizeof(T)) bytes; triclinic cells add the reduced coordinates), while the
// partial histogram lives in L2. Widths of 256 to 4096 (swept in
// docs/bench/2026-11-27-performance-history.md, "CPU tile width") were within the noise, except
// triclinic boxes on the H100 host, 16% faster at 256: a width per box kind is left to try.
constexpr int64_t kTileColumns = 1024;

template <BoxKind K, bool Shifted, class T>
uint64_t histogram_tiled(Coords<T> a, Coords<T> b, bool same, int64_t row_begin, int64_t row_end,
                         const HistogramParams<T>& p, uint64_t* hist) {
  constexpr int64_t Tile = kTileColumns;
  if (same) b = a;
  PartialHistogram partial(p.nbins, hist);
  alignas(64) int32_t bins[Tile], octant[Tile];
  alignas(64) T rx[Tile], ry[Tile], rz[Tile], best[Tile];
  const RowScratch<T> scratch{octant, rx, ry, rz, best};
  // The tile's columns in bin units (scaled once per tile, not once per pair), indexed by j - j0.
  alignas(64) T cx[Tile], cy[Tile], cz[Tile];
  uint64_t examined = 0;
  const Box<T> box = p.box;  // a local copy: the compiler may keep it in registers
  const int nbins = p.nbins;
  const T limit = p.limit, lower = p.lower;
  for (int64_t j0 = 0; j0 < b.n; j0 += Tile) {
    const int64_t j1 = std::min(b.n, j0 + Tile);
    // Same species: no row of this call reaches columns at or below row_begin.
    const int64_t jfirst = same ? std::max(j0, row_begin + 1) : j0;
    if (jfirst >= j1) continue;
    for (int64_t j = jfirst; j < j1; ++j) {
      cx[j - j0] = loaded<K>(b.x()[j], p, 0);
      cy[j - j0] = loaded<K>(b.y()[j], p, 1);
      cz[j - j0] = loaded<K>(b.z()[j], p, 2);
    }
    for (int64_t i = row_begin; i < row_end; ++i) {
      // Same species: only j > i, so the tile starts after the diagonal.
      const int64_t jstart = same ? std::max(j0, i + 1) : j0;
      if (jstart >= j1) continue;
      const T xi = loaded<K>(a.x()[i], p, 0), yi = loaded<K>(a.y()[i], p, 1),
              zi = loaded<K>(a.z()[i], p, 2);
      const T* bx = cx + (jstart - j0);
      const T* by = cy + (jstart - j0);
      const T* bz = cz + (jstart - j0);
      const int64_t n = j1 - jstart;
      bins_of_row<K, Shifted>(box, lower, limit, nbins, xi, yi, zi, bx, by, bz, n, bins, scratch);
      partial.add(bins, n);
      examined += static_cast<uint64_t>(n);
    }
  }
  return examined;
}

}  // namespace

// This build's entry points (kernel_isa.hpp): cpu::avx2 or cpu::avx512.
namespace PAIRHIST_CPU_ISA {

template <class T>
uint64_t pair_histogram(Coords<T> a, Coords<T> b, bool same_species, int64_t row_begin,
                        int64_t row_end, const HistogramParams<T>& params, uint64_t* hist) {
  row_begin = std::max<int64_t>(0, row_begin);
  row_end = std::min(row_end, a.n);
  if (row_begin >= row_end || params.nbins <= 0) return 0;
  return dispatch_box_kind(params.box.kind, [&](auto kind) {
    constexpr BoxKind K = decltype(kind)::value;
    // Bins from r_min in their own instantiation: the everyday bins from 0 keep the row loop
    // without the subtraction and its compare.
    return params.lower != T(0)
               ? histogram_tiled<K, true>(a, b, same_species, row_begin, row_end, params, hist)
               : histogram_tiled<K, false>(a, b, same_species, row_begin, row_end, params, hist);
  });
}

template <class T>
void pair_histogram_reference(Coords<T> a, Coords<T> b, bool same_species,
                              const HistogramParams<T>& params, uint64_t* hist) {
  if (same_species) b = a;
  dispatch_box_kind(params.box.kind, [&](auto kind) {
    for (int64_t i = 0; i < a.n; ++i) {
      for (int64_t j = same_species ? i + 1 : 0; j < b.n; ++j) {
        const T ax = a.x()[i], ay = a.y()[i], az = a.z()[i];
        const T bx = b.x()[j], by = b.y()[j], bz = b.z()[j];
        const int k = bin_of_points<decltype(kind)::value>(params, ax, ay, az, bx, by, bz);
        if (k < params.nbins) ++hist[k];
      }
    }
  });
}

template uint64_t pair_histogram<float>(Coords<float>, Coords<float>, bool, int64_t, int64_t,
                                        const HistogramParams<float>&, uint64_t*);
template uint64_t pair_histogram<double>(Coords<double>, Coords<double>, bool, int64_t, int64_t,
                                         const HistogramParams<double>&, uint64_t*);
template void pair_histogram_reference<float>(Coords<float>, Coords<float>, bool,
                                              const HistogramParams<float>&, uint64_t*);
template void pair_histogram_reference<double>(Coords<double>, Coords<double>, bool,
                                               const HistogramParams<double>&, uint64_t*);

}  // namespace PAIRHIST_CPU_ISA
}  // namespace pairhist::cpu
