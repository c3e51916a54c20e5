// Which algorithm counts a species pair: every pair (tiles of rows x columns), or only pairs of
// neighbouring cells of the frame's cell grid. Both give the same counts; the choice is speed.
#pragma once

#include <cstdint>
#include <string>

#include "pairhist/algorithm.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist {

const char* algorithm_name(Algorithm a);  // "auto", "all-pairs", "cell-list"
/// "auto", "all-pairs" or "cell-list"; throws UsageError otherwise.
Algorithm parse_algorithm(const std::string& name);

/// Cell-list settings: cells of r_cut / reach, keys along `order`. The defaults are what measured
/// fastest (docs/performance.md); an engine's config (--cell-reach, --cell-order) overrides them.
struct CellOptions {
  int reach = 2;
  CellOrder order = CellOrder::row_major;
};
CellOrder parse_cell_order(const std::string& name);  // throws UsageError

/// Pairs every algorithm must account for: na (na - 1) / 2 for a species with itself, else na nb.
uint64_t all_pair_count(int64_t na, int64_t nb, bool same_species);

/// Neighbour cells a home cell searches (its own included), as for_each_stencil_cell visits
/// them away from the edges of a grid without a box.
int stencil_cells(const CellGrid& g);

/// Candidate pairs a cell-list pass examines when na and nb points are spread evenly over the
/// grid (same species: the upper half of the stencil and i < j in the home cell). Never more than
/// all_pair_count.
double estimated_cell_candidates(const CellGrid& g, int64_t na, int64_t nb, bool same_species);

/// Throughputs the choice assumes: pairs per second of the all-pairs kernels, candidates per
/// second of the cell-list kernels, points per second sorted into cells (which every cell-list
/// task repeats once per worker and frame). From measurements on the H100 host and its cores
/// (docs/performance.md); only the ratios matter.
struct AlgorithmRates {
  double all_pairs = 0;
  double cell_candidates = 0;
  double cell_sort = 0;
};
AlgorithmRates assumed_rates(bool gpu);

/// Estimated seconds for one frame of a pair counted with `a` (all pairs, or cell lists: their
/// candidates plus sorting both species) at rates r.
double estimated_pair_seconds(Algorithm a, const AlgorithmRates& r, const CellGrid& g, int64_t na,
                              int64_t nb, bool same_species);

/// `requested` unless it is automatic; then the cell list where its estimated time (candidates
/// plus sorting both species) is below 0.8 of the all-pairs time, else all pairs. A pair with
/// r_max reaching across most of the system (CADISHI's F1) stays all-pairs: the stencil covers
/// the whole grid and the cell list saves nothing.
Algorithm choose_pair_algorithm(Algorithm requested, const CellGrid& g, int64_t na, int64_t nb,
                                bool same_species, bool gpu);

}  // namespace pairhist
