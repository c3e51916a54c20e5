#include "cell_list_cpu.hpp"

#include <algorithm>

#include "row_bins.hpp"

namespace pairhist::cpu {
namespace {

template <BoxKind K, class T>
void sort_for_box(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& p,
                  CellSortedSpecies<T>& out) {
  const int64_t n = raw.n;
  // Keys fit 32 bits: a grid has at most 2^30 keys (cell_grid_setup.hpp).
  std::vector<uint32_t> key(static_cast<size_t>(n));
  out.cell_start.assign(static_cast<size_t>(grid.keys) + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    key[i] = static_cast<uint32_t>(cells::key_of_point(grid, raw.x()[i], raw.y()[i], raw.z()[i]));
    ++out.cell_start[key[i] + 1];
  }
  for (int64_t k = 0; k < grid.keys; ++k) out.cell_start[k + 1] += out.cell_start[k];
  out.x.resize(static_cast<size_t>(n));
  out.y.resize(static_cast<size_t>(n));
  out.z.resize(static_cast<size_t>(n));
  std::vector<int64_t> next(out.cell_start.begin(), out.cell_start.end() - 1);
  for (int64_t i = 0; i < n; ++i) {  // stable: a cell's points keep their input order
    const int64_t to = next[key[i]]++;
    out.x[to] = loaded<K>(raw.x()[i], p, 0);
    out.y[to] = loaded<K>(raw.y()[i], p, 1);
    out.z[to] = loaded<K>(raw.z()[i], p, 2);
  }
}

/// One home cell's candidates, gathered contiguously: the neighbour cells' points are copied
/// once per home cell and then swept by every home point in vectorised passes.
template <class T>
struct Candidates {
  std::vector<T> x, y, z;
  std::vector<int32_t> bins;
  RowScratchStorage<T> scratch;
  int64_t size = 0;

  void clear() { size = 0; }
  void append(const CellSortedSpecies<T>& s, int64_t begin, int64_t end) {
    const int64_t count = end - begin;
    if (count <= 0) return;
    const auto needed = static_cast<size_t>(size + count);
    if (x.size() < needed) {
      const size_t grown = std::max(needed, 2 * x.size());
      x.resize(grown), y.resize(grown), z.resize(grown), bins.resize(grown);
    }
    std::copy(s.x.begin() + begin, s.x.begin() + end, x.begin() + size);
    std::copy(s.y.begin() + begin, s.y.begin() + end, y.begin() + size);
    std::copy(s.z.begin() + begin, s.z.begin() + end, z.begin() + size);
    size += count;
  }
};

template <BoxKind K, class T>
uint64_t count_cells(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b, bool same,
                     const CellGrid& grid, int64_t key_begin, int64_t key_end,
                     const HistogramParams<T>& p, uint64_t* hist) {
  thread_local Candidates<T> cand;
  PartialHistogram partial(p.nbins, hist);
  const Box<T> box = p.box;  // a local copy: the compiler may keep it in registers
  const int nbins = p.nbins;
  uint64_t examined = 0;
  for (int64_t key = key_begin; key < key_end; ++key) {
    const int64_t h0 = a.cell_start[key], h1 = a.cell_start[key + 1];
    if (h0 == h1) continue;
    CellIndex home;
    cells::cell_of_key(grid, key, home);  // a key holding points names a cell of the grid
    cand.clear();
    // Same species: the home cell's own points first, so home point i sweeps from i + 1 on.
    if (same) cand.append(b, h0, h1);
    cells::for_each_stencil_cell(grid, home, same, [&](int64_t k) {
      if (!same || k != key) cand.append(b, b.cell_start[k], b.cell_start[k + 1]);
    });
    if (cand.size == 0) continue;
    const RowScratch<T> scratch =
        K == BoxKind::triclinic ? cand.scratch.reserve(cand.size) : RowScratch<T>{};
    for (int64_t i = h0; i < h1; ++i) {
      const int64_t first = same ? i - h0 + 1 : 0;
      const int64_t n = cand.size - first;
      if (n <= 0) continue;
      int32_t* bins = cand.bins.data();
      bins_of_row<K>(box, nbins, a.x[i], a.y[i], a.z[i], cand.x.data() + first,
                     cand.y.data() + first, cand.z.data() + first, n, bins, scratch);
      partial.add_sparse(bins, n);
      examined += static_cast<uint64_t>(n);
    }
  }
  partial.flush();
  hist[nbins] += examined;
  return examined;
}

}  // namespace

template <class T>
void sort_into_cells(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& params,
                     CellSortedSpecies<T>& out) {
  switch (params.box.kind) {
    case BoxKind::orthorhombic:
      return sort_for_box<BoxKind::orthorhombic>(raw, grid, params, out);
    case BoxKind::triclinic:
      return sort_for_box<BoxKind::triclinic>(raw, grid, params, out);
    default:
      return sort_for_box<BoxKind::none>(raw, grid, params, out);
  }
}

template <class T>
uint64_t histogram_cells(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                         bool same_species, const CellGrid& grid, int64_t key_begin,
                         int64_t key_end, const HistogramParams<T>& params, uint64_t* hist) {
  key_begin = std::max<int64_t>(key_begin, 0);
  key_end = std::min(key_end, grid.keys);
  if (key_begin >= key_end || params.nbins <= 0 || a.size() == 0) return 0;
  switch (params.box.kind) {
    case BoxKind::orthorhombic:
      return count_cells<BoxKind::orthorhombic>(a, b, same_species, grid, key_begin, key_end,
                                                params, hist);
    case BoxKind::triclinic:
      return count_cells<BoxKind::triclinic>(a, b, same_species, grid, key_begin, key_end, params,
                                             hist);
    default:
      return count_cells<BoxKind::none>(a, b, same_species, grid, key_begin, key_end, params, hist);
  }
}

template void sort_into_cells<float>(Coords<float>, const CellGrid&, const HistogramParams<float>&,
                                     CellSortedSpecies<float>&);
template void sort_into_cells<double>(Coords<double>, const CellGrid&,
                                      const HistogramParams<double>&, CellSortedSpecies<double>&);
template uint64_t histogram_cells<float>(const CellSortedSpecies<float>&,
                                         const CellSortedSpecies<float>&, bool, const CellGrid&,
                                         int64_t, int64_t, const HistogramParams<float>&,
                                         uint64_t*);
template uint64_t histogram_cells<double>(const CellSortedSpecies<double>&,
                                          const CellSortedSpecies<double>&, bool, const CellGrid&,
                                          int64_t, int64_t, const HistogramParams<double>&,
                                          uint64_t*);

}  // namespace pairhist::cpu
