#include "tasks/algorithm_choice.hpp"

#include <algorithm>
#include <cstdlib>

#include "pairhist/errors.hpp"

namespace pairhist {

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::all_pairs:
      return "all-pairs";
    case Algorithm::cell_list:
      return "cell-list";
    default:
      return "auto";
  }
}

Algorithm parse_algorithm(const std::string& name) {
  if (name == "auto") return Algorithm::automatic;
  if (name == "all-pairs") return Algorithm::all_pairs;
  if (name == "cell-list") return Algorithm::cell_list;
  throw UsageError("unknown algorithm '" + name + "' (use auto, all-pairs or cell-list)");
}

CellOrder parse_cell_order(const std::string& name) {
  if (name == "row-major") return CellOrder::row_major;
  if (name == "morton") return CellOrder::morton;
  if (name == "hilbert") return CellOrder::hilbert;
  throw UsageError("unknown cell order '" + name + "' (use row-major, morton or hilbert)");
}

uint64_t all_pair_count(int64_t na, int64_t nb, bool same_species) {
  if (na <= 0) return 0;
  const auto a = static_cast<uint64_t>(na);
  if (same_species) return a * (a - 1) / 2;
  return nb <= 0 ? 0 : a * static_cast<uint64_t>(nb);
}

int stencil_cells(const CellGrid& g) {
  int count = 0;
  for (int dz = g.offset_lo[2]; dz <= g.offset_hi[2]; ++dz)
    for (int dy = g.offset_lo[1]; dy <= g.offset_hi[1]; ++dy)
      for (int dx = g.offset_lo[0]; dx <= g.offset_hi[0]; ++dx)
        count += cells::offset_reaches(g, dx, dy, dz) ? 1 : 0;
  return count;
}

double estimated_cell_candidates(const CellGrid& g, int64_t na, int64_t nb, bool same_species) {
  const double all = static_cast<double>(all_pair_count(na, nb, same_species));
  const double cells = static_cast<double>(g.n[0]) * g.n[1] * g.n[2];
  const double stencil = std::min<double>(stencil_cells(g), cells);
  const double a = static_cast<double>(std::max<int64_t>(na, 0));
  const double per_cell_b =
      static_cast<double>(std::max<int64_t>(same_species ? na : nb, 0)) / cells;
  // Same species: the other stencil cells once per pair of cells, the home cell's i < j.
  const double candidates =
      same_species ? a * per_cell_b * (stencil - 1) / 2 + a * std::max(0.0, per_cell_b - 1) / 2
                   : a * per_cell_b * stencil;
  return std::min(candidates, all);
}

AlgorithmRates assumed_rates(bool gpu) {
  AlgorithmRates r;
  // GPU: H100, W1 (docs/gpu-cell-lists.md): all pairs 1.4e12/s, cell lists 1.0e12 candidates/s,
  // sorting 1.3e10 points/s. CPU, per core: all pairs ~0.9e9/s (10k bins; ~0.75e9 at 240 bins),
  // cell lists ~0.5e9 candidates/s, sorting ~5e7 points/s (2-core development machine).
  if (gpu) {
    r.all_pairs = 1.4e12;
    r.cell_candidates = 1.0e12;
    r.cell_sort = 1.3e10;
  } else {
    r.all_pairs = 0.9e9;
    r.cell_candidates = 0.5e9;
    r.cell_sort = 5e7;
  }
  return r;
}

double estimated_pair_seconds(Algorithm a, const AlgorithmRates& r, const CellGrid& g, int64_t na,
                              int64_t nb, bool same_species) {
  if (a != Algorithm::cell_list)
    return static_cast<double>(all_pair_count(na, nb, same_species)) / r.all_pairs;
  const double sorted = static_cast<double>(std::max<int64_t>(na, 0)) +
                        (same_species ? 0.0 : static_cast<double>(std::max<int64_t>(nb, 0)));
  return estimated_cell_candidates(g, na, nb, same_species) / r.cell_candidates +
         sorted / r.cell_sort;
}

Algorithm choose_pair_algorithm(Algorithm requested, const CellGrid& g, int64_t na, int64_t nb,
                                bool same_species, bool gpu) {
  if (requested != Algorithm::automatic) return requested;
  const AlgorithmRates r = assumed_rates(gpu);
  const double all = estimated_pair_seconds(Algorithm::all_pairs, r, g, na, nb, same_species);
  const double cell = estimated_pair_seconds(Algorithm::cell_list, r, g, na, nb, same_species);
  return cell < 0.8 * all ? Algorithm::cell_list : Algorithm::all_pairs;
}

}  // namespace pairhist
