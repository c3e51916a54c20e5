// CPU cell-list pair-histogram kernel: sequential (one StarPU task runs it on one core). Only
// pairs of neighbouring cells (include/pairhist/cell_grid.hpp) are examined; every examined pair
// is binned with the same arithmetic as the all-pairs kernel, so the histograms are identical.
#pragma once

#include <cstdint>
#include <vector>

#include "codelets/cpu/cell_bounds.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::cpu {

/// One species' points sorted by cell key: the coordinates as the kernels load them (bin units;
/// in a rectangular single-precision cell moved into the cell: geometry.hpp's `loaded`), in
/// structure-of-arrays form, and where each cell's points start (cell_start[key] ..
/// cell_start[key + 1]; keys + 1 entries), and each point's index in the input (the all-pairs
/// kernel orients a pair of one species by it, which a triclinic cell list must follow).
/// Where the grid prunes (CellGrid::prune) also each point's relative position and each cell's
/// box of them (cell_bounds.hpp), in the raw coordinates' unit.
template <class T>
struct CellSortedSpecies {
  std::vector<T> x, y, z;
  std::vector<int64_t> index;
  std::vector<int64_t> cell_start;
  std::vector<double> rel[3];
  CellBoxes boxes;
  int64_t size() const { return static_cast<int64_t>(x.size()); }
};

/// Sorts the points into the grid's cells (a counting sort by key, stable: points of a cell keep
/// their input order). The cell of a point comes from its raw coordinates
/// (cells::cell_of_point, identical on every worker); the stored coordinates are `loaded`.
template <class T>
void sort_into_cells(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& params,
                     CellSortedSpecies<T>& out);

/// Adds to hist[0..nbins) the bins of the pairs (i in a, j in b) whose i lies in a home cell
/// with key in [key_begin, key_end) and whose j lies in that cell's stencil (where the grid
/// prunes, only in the stencil cells whose box i's test keeps: cell_bounds.hpp); with same_species
/// (b is then a too) each unordered pair once: cells of higher key, and j > i within the home
/// cell. Adds the number of pairs examined (the candidates) to hist[nbins], so hist has
/// nbins + 1 entries. Returns the candidates. Counts are exact (32-bit partial counters are
/// flushed before they can overflow).
template <class T>
uint64_t cell_histogram(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                        bool same_species, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                        const HistogramParams<T>& params, uint64_t* hist);

/// sort_into_cells and cell_histogram with the kernels built for `isa` (kernel_isa.hpp); the
/// ones above run kernel_isa()'s. Throw std::invalid_argument for AVX-512 where
/// avx512_kernels_available() is false.
template <class T>
void sort_into_cells(KernelIsa isa, Coords<T> raw, const CellGrid& grid,
                     const HistogramParams<T>& params, CellSortedSpecies<T>& out);
template <class T>
uint64_t cell_histogram(KernelIsa isa, const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                        bool same_species, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                        const HistogramParams<T>& params, uint64_t* hist);

}  // namespace pairhist::cpu
