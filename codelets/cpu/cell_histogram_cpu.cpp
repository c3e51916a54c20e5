#include "codelets/cpu/cell_histogram_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "codelets/cpu/cell_pass.hpp"
#include "codelets/cpu/cell_stencil.hpp"
#include "codelets/cpu/counted_bins.hpp"
#include "codelets/cpu/kernel_variants.hpp"

namespace pairhist::cpu {
namespace {

using cell_pass::distance_pass;
using cell_pass::Gathered;
using cell_pass::HomePoint;
using cell_pass::kBlock;
using cell_pass::kChunk;
using cell_pass::PassBuffers;

template <BoxKind K, class T, bool Orient>
uint64_t cell_histogram_kind(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                             bool same, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                             const HistogramParams<T>& p, uint64_t* hist) {
  const CellKeys keys(grid);
  const std::vector<StencilRow> rows = stencil_rows(grid);
  const Box<T> box = p.box;  // a local copy: the compiler may keep it in registers
  const int nbins = p.nbins;
  const bool prune = grid.prune != 0;
  const CellFrame frame(grid);
  const double cut2 = grid.prune_cut * grid.prune_cut;
  const int64_t* start = b.cell_start.data();
  Gathered<T> g;  // without pruning: the home cell's stencil; with it: one home point's picks
  g.ranges.reserve(static_cast<size_t>(cells::stencil_size(grid)) + 1);
  std::vector<StencilRun> runs;
  auto buffers = std::make_unique<PassBuffers<T>>();
  CountedBins<T> counts(p.lower, p.limit, nbins, hist);
  uint64_t candidates = 0;
  HomePoint<T> h{};

  // Home point h against the buffer's points [begin, end): passes of at most kChunk candidates
  // over whole blocks (the lanes before `begin` are not counted, those from `end` on padding).
  const auto examine = [&](int64_t begin, int64_t end) {
    for (int64_t c0 = begin; c0 < end;) {
      const int64_t aligned = c0 / kBlock * kBlock;
      const int64_t c1 = std::min(end, aligned + kChunk);
      const int64_t m = (c1 + kBlock - 1) / kBlock * kBlock - aligned;
      const int lead = static_cast<int>(c0 - aligned);
      distance_pass<K, T, Orient>(box, h, g.x.data() + aligned, g.y.data() + aligned,
                                  g.z.data() + aligned, Orient ? g.index.data() + aligned : nullptr,
                                  m, lead, *buffers);
      // A pass that stops short of the buffer's end has points of the buffer in its last
      // block, not padding: they get no bin.
      if (c1 < end)
        for (int64_t k = c1 - aligned; k < m; ++k)
          buffers->d2[k] = std::numeric_limits<T>::quiet_NaN();
      counts.add(buffers->d2, m, c1 - aligned, lead, buffers->counted_d2, buffers->counted_bins);
      candidates += static_cast<uint64_t>(c1 - c0);
      c0 = c1;
    }
  };

  for (int64_t key = key_begin; key < key_end; ++key) {
    const int64_t home_begin = a.cell_start[static_cast<size_t>(key)];
    const int64_t home_count = a.cell_start[static_cast<size_t>(key) + 1] - home_begin;
    if (home_count == 0) continue;
    CellIndex home;
    cells::cell_of_key(grid, key, home);
    g.ranges.clear();
    g.n = 0;
    runs.clear();
    // A species with itself: the home cell's own points first, so home point i pairs with the
    // buffer from i + 1 on; then the stencil cells of higher key.
    if (same) {
      g.add_range(home_begin, home_begin + home_count);
      if (prune) runs.push_back(stencil_run(grid, frame, b.boxes, key, key, 0, 0, 0));
    }
    for_each_stencil_run(grid, keys, rows, home, same ? key : -1,
                         [&](int64_t k0, int64_t k1, int dx, int dy, int dz) {
                           g.add_range(start[k0], start[k1 + 1]);
                           if (prune)
                             runs.push_back(stencil_run(grid, frame, b.boxes, k0, k1, dx, dy, dz));
                         });
    if (g.n == 0) continue;
    if (!prune) {
      g.copy(b, Orient);
      for (int64_t i = 0; i < home_count; ++i) {
        const size_t at = static_cast<size_t>(home_begin + i);
        h = HomePoint<T>{a.x[at], a.y[at], a.z[at], Orient ? a.index[at] : 0};
        examine(same ? i + 1 : 0, g.n);  // with same, the home cell's j > i
      }
      continue;
    }
    g.reserve(g.n, Orient);
    for (int64_t i = 0; i < home_count; ++i) {
      const size_t at = static_cast<size_t>(home_begin + i);
      h = HomePoint<T>{a.x[at], a.y[at], a.z[at], Orient ? a.index[at] : 0};
      const double rel[3] = {a.rel[0][at], a.rel[1][at], a.rel[2][at]};
      // The kept cells of each run (cell_bounds.hpp), picked into the buffer in run order.
      int64_t picked = 0;
      for (size_t r = 0; r < runs.size(); ++r) {
        const StencilRun& run = runs[r];
        const double gy = gap_to(rel[1], run.y_lo, run.y_hi);
        const double gz = gap_to(rel[2], run.z_lo, run.z_hi);
        const double room = cut2 - gy * gy - gz * gz;
        int64_t first, last;
        if (!(room > 0) || !kept_cells(run, b.boxes, frame.edge[0][0], rel, cut2, first, last))
          continue;
        int64_t begin = start[first];
        if (same && r == 0) begin = std::max(begin, home_begin + i + 1);  // the home cell: j > i
        picked = g.pick(b, begin, start[last + 1], picked, Orient);
      }
      g.pad(picked, Orient);
      examine(0, picked);
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
  const bool prune = grid.prune != 0;
  const CellFrame frame(grid);
  std::vector<int64_t> key(static_cast<size_t>(n));
  std::vector<double> rel(prune ? static_cast<size_t>(3 * n) : 0);
  std::vector<CellIndex> cells_of(prune ? static_cast<size_t>(n) : 0);
  auto& start = out.cell_start;
  // Zeroed by clear and resize, not assign(): std::vector::assign is emitted out of line, one
  // copy for both kernel builds (tests/check_kernel_isa_objects.py).
  start.clear();
  start.resize(static_cast<size_t>(grid.keys) + 1);
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(raw.x()[i]), y = static_cast<double>(raw.y()[i]),
                 z = static_cast<double>(raw.z()[i]);
    const CellIndex c = prune ? relative_position(grid, frame, x, y, z, &rel[3 * size_t(i)])
                              : cells::cell_of_point(grid, x, y, z);
    if (prune) cells_of[static_cast<size_t>(i)] = c;
    key[static_cast<size_t>(i)] = keys(c.x, c.y, c.z);
    ++start[static_cast<size_t>(key[static_cast<size_t>(i)]) + 1];
  }
  if (prune) {
    reset_boxes(out.boxes, grid);
    for (int a = 0; a < 3; ++a) out.rel[a].resize(static_cast<size_t>(n));
  } else {
    clear_boxes(out.boxes);
    for (int a = 0; a < 3; ++a) out.rel[a].clear();
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
    if (prune) {
      const double* r = &rel[3 * static_cast<size_t>(i)];
      for (int a = 0; a < 3; ++a) out.rel[a][to] = r[a];
    }
  }
  for (size_t k = start.size() - 1; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;
  if (!prune) return;
  // The boxes in key order (sequential: by input order they would be a cache miss a point).
  for (int64_t k = 0; k < grid.keys; ++k) {
    const auto k0 = static_cast<size_t>(start[static_cast<size_t>(k)]);
    const auto k1 = static_cast<size_t>(start[static_cast<size_t>(k) + 1]);
    if (k0 == k1) continue;
    const CellIndex c = cells_of[static_cast<size_t>(out.index[k0])];
    for (size_t q = k0; q < k1; ++q) {
      const double r[3] = {out.rel[0][q], out.rel[1][q], out.rel[2][q]};
      add_to_boxes(out.boxes, k, grid, c, r);
    }
  }
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
