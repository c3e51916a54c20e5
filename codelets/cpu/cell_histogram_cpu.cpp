#include "codelets/cpu/cell_histogram_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "codelets/cpu/cell_stencil.hpp"
#include "codelets/cpu/counted_bins.hpp"
#include "codelets/cpu/kernel_variants.hpp"

namespace pairhist::cpu {
namespace {

// The distance passes run over whole blocks of kBlock candidates (a gathered stencil is padded
// with NaN points, which land in no bin), so they have no scalar remainder; a pass covers at most
// kChunk candidates, so its squared distances and the triclinic temporaries stay in L1 however
// many points a stencil holds (the all-pairs kernel's tile width).
constexpr int64_t kBlock = 8;
constexpr int64_t kChunk = 1024;

/// Uninitialised storage aligned for whole-vector loads; grows, forgetting its contents.
template <class U>
class AlignedArray {
 public:
  U* data() { return data_.get(); }
  void reserve(int64_t n) {
    if (n <= size_) return;
    size_ = std::max(n, 2 * size_);
    data_.reset(static_cast<U*>(
        ::operator new(static_cast<size_t>(size_) * sizeof(U), std::align_val_t(64))));
  }

 private:
  struct Free {
    void operator()(U* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  std::unique_ptr<U, Free> data_;
  int64_t size_ = 0;
};

/// The stencil's points of species b, gathered contiguously for one home cell.
template <class T>
struct Gathered {
  AlignedArray<T> x, y, z;
  AlignedArray<int64_t> index;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // point ranges of b, merged where adjacent
  int64_t n = 0;

  void add_range(int64_t begin, int64_t end) {
    if (begin == end) return;
    if (!ranges.empty() && ranges.back().second == begin)
      ranges.back().second = end;
    else
      ranges.emplace_back(begin, end);
    n += end - begin;
  }

  void copy(const CellSortedSpecies<T>& b, bool with_index) {
    // Room for the last range's whole blocks and then a block of padding.
    x.reserve(n + 2 * kBlock), y.reserve(n + 2 * kBlock), z.reserve(n + 2 * kBlock);
    if (with_index) index.reserve(n + 2 * kBlock);
    const int64_t limit = b.size();
    int64_t at = 0;
    for (const auto& [begin, end] : ranges) {
      copy_blocks(b.x.data(), begin, end, limit, x.data() + at);
      copy_blocks(b.y.data(), begin, end, limit, y.data() + at);
      copy_blocks(b.z.data(), begin, end, limit, z.data() + at);
      if (with_index) copy_blocks(b.index.data(), begin, end, limit, index.data() + at);
      at += end - begin;
    }
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::fill(x.data() + n, x.data() + n + kBlock, nan);
    std::fill(y.data() + n, y.data() + n + kBlock, nan);
    std::fill(z.data() + n, z.data() + n + kBlock, nan);
    if (with_index) std::fill(index.data() + n, index.data() + n + kBlock, int64_t(0));
  }

 private:
  // A range holds a few points: whole blocks (one or two vector moves each; the excess is
  // overwritten by the next range or the padding) where the source has them, not memmove.
  template <class U>
  static void copy_blocks(const U* from, int64_t begin, int64_t end, int64_t limit, U* to) {
    if (end + kBlock <= limit) {
      for (int64_t q = begin; q < end; q += kBlock, to += kBlock)
        for (int64_t l = 0; l < kBlock; ++l) to[l] = from[q + l];
    } else {
      for (int64_t q = begin; q < end; ++q) *to++ = from[q];
    }
  }
};

template <class T>
struct HomePoint {
  T x, y, z;
  int64_t index;
};

/// Per-pass temporaries (kChunk candidates and the padding of the last block).
template <class T>
struct PassBuffers {
  alignas(64) T d2[kChunk + kBlock];
  alignas(64) T counted_d2[kChunk + kBlock];
  alignas(64) int32_t counted_bins[kChunk + kBlock];
  alignas(64) int32_t octant[kChunk + kBlock];
  alignas(64) T rx[kChunk + kBlock];
  alignas(64) T ry[kChunk + kBlock];
  alignas(64) T rz[kChunk + kBlock];
};

/// s.d2[k] for candidates b[k], k < m, exactly as the all-pairs kernel computes them.
///
/// Orient (a species with itself in a triclinic cell): that kernel bins p_j - p_i for input
/// indices i < j, the cell list p_b - p_home. Reversed, every rounding of the displacement and of
/// its reduction is negated exactly, except that an exact zero does not change sign; only in
/// a triclinic cell does that sign matter (it picks the octant, and with it the image list that is
/// searched). So the passes run in the cell list's orientation and the pairs with a reduced
/// component of zero that the kernel would have reversed (rare: equal coordinates) are binned
/// again its way.
template <BoxKind K, class T, bool Orient>
void distance_pass(const Box<T>& box, const HomePoint<T> h, const T* bx, const T* by, const T* bz,
                   const int64_t* bi, int64_t m, int lead, PassBuffers<T>& s) {
  T* d2 = s.d2;
  if constexpr (K == BoxKind::triclinic) {
    int zeros = 0;
    for (int64_t k = 0; k < m; ++k) {
      T dx = fp::sub(bx[k], h.x), dy = fp::sub(by[k], h.y), dz = fp::sub(bz[k], h.z);
      reduce_triclinic(box, dx, dy, dz);
      s.rx[k] = dx;
      s.ry[k] = dy;
      s.rz[k] = dz;
      s.octant[k] = octant_of(dx, dy, dz);
      d2[k] = norm2(dx, dy, dz);
      if constexpr (Orient) zeros += (dx == T(0)) | (dy == T(0)) | (dz == T(0));
    }
    for (int im = 0; im < box.octant_images; ++im) {
      T sx[8], sy[8], sz[8];
      for (int o = 0; o < 8; ++o) {
        sx[o] = box.octant_image[o][im].x;
        sy[o] = box.octant_image[o][im].y;
        sz[o] = box.octant_image[o][im].z;
      }
      for (int64_t k = 0; k < m; ++k) {
        const int o = s.octant[k];
        d2[k] = fp::min(
            norm2(fp::add(s.rx[k], sx[o]), fp::add(s.ry[k], sy[o]), fp::add(s.rz[k], sz[o])),
            d2[k]);
      }
    }
    if constexpr (Orient) {
      // The entries before `lead` are not candidates (the home point itself among them, at zero
      // distance): their zeros do not count.
      for (int k = 0; k < lead; ++k)
        zeros -= (s.rx[k] == T(0)) | (s.ry[k] == T(0)) | (s.rz[k] == T(0));
      if (zeros == 0) return;
      for (int64_t k = lead; k < m; ++k)
        if (bi[k] < h.index && (s.rx[k] == T(0) || s.ry[k] == T(0) || s.rz[k] == T(0)))
          d2[k] = distance2<BoxKind::triclinic>(box, fp::sub(h.x, bx[k]), fp::sub(h.y, by[k]),
                                                fp::sub(h.z, bz[k]));
    }
  } else {
    (void)bi;
    for (int64_t k = 0; k < m; ++k)
      d2[k] = pair_distance2<K>(box, image_table(box), fp::sub(bx[k], h.x), fp::sub(by[k], h.y),
                                fp::sub(bz[k], h.z));
  }
}

template <BoxKind K, class T, bool Orient>
uint64_t cell_histogram_kind(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                             bool same, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                             const HistogramParams<T>& p, uint64_t* hist) {
  const CellKeys keys(grid);
  const std::vector<StencilRow> rows = stencil_rows(grid);
  const Box<T> box = p.box;  // a local copy: the compiler may keep it in registers
  const int nbins = p.nbins;
  Gathered<T> g;
  g.ranges.reserve(static_cast<size_t>(cells::stencil_size(grid)) + 1);
  auto buffers = std::make_unique<PassBuffers<T>>();
  CountedBins<T> counts(p.lower, p.limit, nbins, hist);
  uint64_t candidates = 0;
  for (int64_t key = key_begin; key < key_end; ++key) {
    const int64_t home_begin = a.cell_start[static_cast<size_t>(key)];
    const int64_t home_count = a.cell_start[static_cast<size_t>(key) + 1] - home_begin;
    if (home_count == 0) continue;
    CellIndex home;
    cells::cell_of_key(grid, key, home);
    g.ranges.clear();
    g.n = 0;
    // A species with itself: the home cell's own points first, so home point i pairs with the
    // buffer from i + 1 on; then the stencil cells of higher key.
    if (same) g.add_range(home_begin, home_begin + home_count);
    for_each_stencil_run(grid, keys, rows, home, same ? key : -1, [&](int64_t k0, int64_t k1) {
      g.add_range(b.cell_start[static_cast<size_t>(k0)], b.cell_start[static_cast<size_t>(k1) + 1]);
    });
    if (g.n == 0) continue;
    g.copy(b, Orient);
    const int64_t n = g.n;
    for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
      const int64_t c1 = std::min(n, c0 + kChunk);
      const int64_t end = c1 < n ? c1 : (n + kBlock - 1) / kBlock * kBlock;  // into the padding
      for (int64_t i = 0; i < home_count; ++i) {
        const int64_t begin = same ? std::max(c0, i + 1) : c0;
        if (begin >= c1) break;  // only with same: later home points start later still
        const int64_t aligned = begin / kBlock * kBlock, m = end - aligned;
        const int lead = static_cast<int>(begin - aligned);
        const size_t at = static_cast<size_t>(home_begin + i);
        const HomePoint<T> h{a.x[at], a.y[at], a.z[at], Orient ? a.index[at] : 0};
        distance_pass<K, T, Orient>(box, h, g.x.data() + aligned, g.y.data() + aligned,
                                    g.z.data() + aligned,
                                    Orient ? g.index.data() + aligned : nullptr, m, lead, *buffers);
        counts.add(buffers->d2, m, c1 - aligned, lead, buffers->counted_d2, buffers->counted_bins);
        candidates += static_cast<uint64_t>(c1 - begin);
      }
    }
  }
  counts.flush();
  hist[nbins] += candidates;
  return candidates;
}

template <BoxKind K, class T>
void sort_kind(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& p,
               CellSortedSpecies<T>& out) {
  const CellKeys keys(grid);
  const int64_t n = raw.n;
  std::vector<int64_t> key(static_cast<size_t>(n));
  auto& start = out.cell_start;
  // Zeroed by clear and resize, not assign(): std::vector::assign is emitted out of line, one
  // copy for both kernel builds (tests/check_kernel_isa_objects.py).
  start.clear();
  start.resize(static_cast<size_t>(grid.keys) + 1);
  for (int64_t i = 0; i < n; ++i) {
    const CellIndex c =
        cells::cell_of_point(grid, static_cast<double>(raw.x()[i]), static_cast<double>(raw.y()[i]),
                             static_cast<double>(raw.z()[i]));
    key[static_cast<size_t>(i)] = keys(c.x, c.y, c.z);
    ++start[static_cast<size_t>(key[static_cast<size_t>(i)]) + 1];
  }
  for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  out.x.resize(static_cast<size_t>(n));
  out.y.resize(static_cast<size_t>(n));
  out.z.resize(static_cast<size_t>(n));
  out.index.resize(static_cast<size_t>(n));
  // Scatter with start[k] as cell k's cursor: afterwards start[k] is where cell k + 1 begins, so
  // the table is shifted back by one entry.
  for (int64_t i = 0; i < n; ++i) {
    const auto to = static_cast<size_t>(start[static_cast<size_t>(key[static_cast<size_t>(i)])]++);
    out.x[to] = loaded<K>(raw.x()[i], p, 0);
    out.y[to] = loaded<K>(raw.y()[i], p, 1);
    out.z[to] = loaded<K>(raw.z()[i], p, 2);
    out.index[to] = i;
  }
  for (size_t k = start.size() - 1; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;
}

}  // namespace

// This build's entry points (kernel_isa.hpp): cpu::avx2 or cpu::avx512.
namespace PAIRHIST_CPU_ISA {

template <class T>
void sort_into_cells(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& params,
                     CellSortedSpecies<T>& out) {
  dispatch_box_kind(params.box.kind,
                    [&](auto kind) { sort_kind<decltype(kind)::value>(raw, grid, params, out); });
}

template <class T>
uint64_t cell_histogram(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                        bool same_species, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                        const HistogramParams<T>& params, uint64_t* hist) {
  key_begin = std::max<int64_t>(key_begin, 0);
  key_end = std::min(key_end, grid.keys);
  if (key_begin >= key_end || params.nbins <= 0) return 0;
  const CellSortedSpecies<T>& other = same_species ? a : b;
  const auto table = static_cast<size_t>(grid.keys) + 1;
  if (a.cell_start.size() != table || other.cell_start.size() != table)
    throw std::invalid_argument("cell_histogram: species not sorted into this grid's cells");
  return dispatch_box_kind(params.box.kind, [&](auto kind) {
    constexpr BoxKind K = decltype(kind)::value;
    // Only the triclinic kernel has a variant for one species.
    if constexpr (K == BoxKind::triclinic) {
      if (same_species)
        return cell_histogram_kind<K, T, true>(a, other, true, grid, key_begin, key_end, params,
                                               hist);
    }
    return cell_histogram_kind<K, T, false>(a, other, same_species, grid, key_begin, key_end,
                                            params, hist);
  });
}

template void sort_into_cells<float>(Coords<float>, const CellGrid&, const HistogramParams<float>&,
                                     CellSortedSpecies<float>&);
template void sort_into_cells<double>(Coords<double>, const CellGrid&,
                                      const HistogramParams<double>&, CellSortedSpecies<double>&);
template uint64_t cell_histogram<float>(const CellSortedSpecies<float>&,
                                        const CellSortedSpecies<float>&, bool, const CellGrid&,
                                        int64_t, int64_t, const HistogramParams<float>&, uint64_t*);
template uint64_t cell_histogram<double>(const CellSortedSpecies<double>&,
                                         const CellSortedSpecies<double>&, bool, const CellGrid&,
                                         int64_t, int64_t, const HistogramParams<double>&,
                                         uint64_t*);

}  // namespace PAIRHIST_CPU_ISA
}  // namespace pairhist::cpu
