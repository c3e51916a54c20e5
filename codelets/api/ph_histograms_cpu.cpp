// ph_histograms_cpu: OpenMP threads share the work items of all pairs (row tiles, or key ranges of
// home cells for pairs counted with cell lists); each thread adds into its own histograms, summed
// at the end (integer sums: the result does not depend on the threads).
#include <omp.h>

#include <cstring>

#include "../cpu/cell_list_cpu.hpp"
#include "../cpu/pair_histogram_cpu.hpp"
#include "frame_prep.hpp"
#include "row_tiles.hpp"

namespace pairhist::capi {
namespace {

struct WorkItem {
  int pair;
  int a;
  int b;
  bool cells;
  int64_t begin;  // rows, or home-cell keys
  int64_t end;
};

// Items small enough that the last ones finish together, large enough to amortise scheduling.
constexpr uint64_t kPairsPerTile = uint64_t(1) << 22;
constexpr int64_t kKeyRangesPerThread = 16;

template <class T>
int histograms_cpu(const ph_frame& f, int n_threads, uint64_t* out) {
  const auto soa = species_soa<T>(f);
  const HistogramParams<T> params = frame_params<T>(f);
  const int threads = n_threads > 0 ? n_threads : omp_get_max_threads();
  const bool may_use_cells = f.algorithm != PH_ALL_PAIRS;
  const CellGrid grid = may_use_cells ? frame_cell_grid(f) : CellGrid{};
  std::vector<cpu::CellSortedSpecies<T>> sorted(static_cast<size_t>(f.n_species));
  std::vector<char> needs_sort(static_cast<size_t>(f.n_species), 0);
  std::vector<WorkItem> work;
  int pair = 0;
  for (int a = 0; a < f.n_species; ++a)
    for (int b = a; b < f.n_species; ++b, ++pair) {
      if (may_use_cells && pair_uses_cell_list(f, grid, a, b, false)) {
        needs_sort[static_cast<size_t>(a)] = needs_sort[static_cast<size_t>(b)] = 1;
        const int64_t ranges = std::min<int64_t>(grid.keys, kKeyRangesPerThread * threads);
        for (int64_t r = 0; r < ranges; ++r)
          work.push_back({pair, a, b, true, grid.keys * r / ranges, grid.keys * (r + 1) / ranges});
        continue;
      }
      for (const RowTile& t :
           split_rows(f.species_sizes[a], f.species_sizes[b], a == b, kPairsPerTile))
        work.push_back({pair, a, b, false, t.row_begin, t.row_end});
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int s = 0; s < f.n_species; ++s)
    if (needs_sort[static_cast<size_t>(s)])
      cpu::sort_into_cells(cpu::Coords<T>{soa[static_cast<size_t>(s)].data(), f.species_sizes[s]},
                           grid, params, sorted[static_cast<size_t>(s)]);
  // Each pair's histogram has one more entry: the candidates the cell-list kernel examined.
  const size_t stride = static_cast<size_t>(f.n_bins) + 1;
  std::vector<std::vector<uint64_t>> partial(static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    auto& mine = partial[static_cast<size_t>(omp_get_thread_num())];
    mine.assign(static_cast<size_t>(pair) * stride, 0);
#pragma omp for schedule(dynamic, 1)
    for (size_t w = 0; w < work.size(); ++w) {
      const WorkItem& item = work[w];
      uint64_t* hist = mine.data() + static_cast<size_t>(item.pair) * stride;
      if (item.cells) {
        cpu::histogram_cells(sorted[static_cast<size_t>(item.a)],
                             sorted[static_cast<size_t>(item.b)], item.a == item.b, grid,
                             item.begin, item.end, params, hist);
        continue;
      }
      const cpu::Coords<T> ca{soa[static_cast<size_t>(item.a)].data(), f.species_sizes[item.a]};
      const cpu::Coords<T> cb{soa[static_cast<size_t>(item.b)].data(), f.species_sizes[item.b]};
      cpu::histogram_pairs(ca, cb, item.a == item.b, item.begin, item.end, params, hist);
    }
  }
  const size_t bins = static_cast<size_t>(f.n_bins);
  for (const auto& p : partial)
    for (int q = 0; q < pair; ++q)
      for (size_t k = 0; k < bins; ++k) out[q * bins + k] += p[q * stride + k];
  return 0;
}

}  // namespace
}  // namespace pairhist::capi

extern "C" int ph_histograms_cpu(const ph_frame* frame, int n_threads, uint64_t* histograms) {
  using namespace pairhist::capi;
  if (std::string p = frame_problem(frame); !p.empty()) return fail(p);
  if (!histograms) return fail("histograms is NULL");
  try {
    return frame->precision == PH_SINGLE ? histograms_cpu<float>(*frame, n_threads, histograms)
                                         : histograms_cpu<double>(*frame, n_threads, histograms);
  } catch (const std::exception& e) {
    return fail(std::string("ph_histograms_cpu: ") + e.what());
  }
}
