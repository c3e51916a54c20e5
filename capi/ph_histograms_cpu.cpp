// ph_histograms_cpu: OpenMP threads share the work items of all pairs (row tiles of all-pairs
// pairs, home-key ranges of cell-list pairs); each thread adds into its own histograms, summed at
// the end (integer sums: the result does not depend on the threads).
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "capi/frame_prep.hpp"
#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/cpu/kernel_isa.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "tasks/row_tiles.hpp"

namespace pairhist::capi {
namespace {

struct WorkItem {
  int pair;
  int a;
  int b;
  bool cells;     // a key range of the cell list, else a row tile of all pairs
  int64_t begin;  // rows of a, or home keys
  int64_t end;
};

// Tiles small enough that the last ones finish together, large enough to amortise scheduling.
constexpr uint64_t kPairsPerTile = uint64_t(1) << 22;
// Cell-list pairs: key ranges of about this many home points each (at least a few per thread),
// so that a range's stencil walks and set-up stay small against its candidates.
constexpr int64_t kHomePointsPerRange = 2048;
constexpr int64_t kRangesPerThread = 8;

/// Home-key ranges of about equal numbers of a's points: boundaries where cell_start crosses
/// multiples of the range size (ranges without points are left out).
void add_key_ranges(const std::vector<int64_t>& cell_start, int pair, int a, int b, int threads,
                    std::vector<WorkItem>& work) {
  const int64_t keys = static_cast<int64_t>(cell_start.size()) - 1, points = cell_start.back();
  const int64_t ranges =
      std::clamp<int64_t>(points / kHomePointsPerRange, 1, kRangesPerThread * std::max(threads, 1));
  int64_t begin = 0;
  for (int64_t r = 1; r <= ranges && begin < keys; ++r) {
    const int64_t target = points * r / ranges;
    int64_t end = r == ranges ? keys
                              : std::lower_bound(cell_start.begin(), cell_start.end(), target) -
                                    cell_start.begin();
    end = std::clamp<int64_t>(end, begin, keys);
    if (cell_start[static_cast<size_t>(end)] > cell_start[static_cast<size_t>(begin)])
      work.push_back({pair, a, b, true, begin, end});
    begin = end;
  }
}

template <class T>
int histograms_cpu(const ph_frame& f, int n_threads, uint64_t* out) {
  const auto soa = species_soa<T>(f);
  const HistogramParams<T> params = frame_params<T>(f);
  const int threads = n_threads > 0 ? n_threads : omp_get_max_threads();
  const size_t species = static_cast<size_t>(f.n_species);
  auto coords = [&](int s) {
    return cpu::Coords<T>{soa[static_cast<size_t>(s)].data(), f.species_sizes[s]};
  };

  // Which pairs count with the cell list; their species are sorted into cells once.
  CellGrid grid;
  if (f.algorithm != PH_ALL_PAIRS) grid = frame_cell_grid(f);
  std::vector<char> use_cells, sorted_needed(species, 0);
  for (int a = 0; a < f.n_species; ++a)
    for (int b = a; b < f.n_species; ++b) {
      const bool cells = f.algorithm != PH_ALL_PAIRS && pair_uses_cell_list(f, grid, a, b, false);
      use_cells.push_back(cells);
      if (cells) sorted_needed[static_cast<size_t>(a)] = sorted_needed[static_cast<size_t>(b)] = 1;
    }
  std::vector<cpu::CellSortedSpecies<T>> sorted(species);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int s = 0; s < f.n_species; ++s)
    if (sorted_needed[static_cast<size_t>(s)])
      cpu::sort_into_cells(coords(s), grid, params, sorted[static_cast<size_t>(s)]);

  std::vector<WorkItem> work;
  int pair = 0;
  for (int a = 0; a < f.n_species; ++a)
    for (int b = a; b < f.n_species; ++b, ++pair) {
      if (use_cells[static_cast<size_t>(pair)]) {
        add_key_ranges(sorted[static_cast<size_t>(a)].cell_start, pair, a, b, threads, work);
        continue;
      }
      for (const RowTile& t :
           split_rows(f.species_sizes[a], f.species_sizes[b], a == b, kPairsPerTile))
        work.push_back({pair, a, b, false, t.row_begin, t.row_end});
    }

  // Per pair nbins + 1 counts: the cell list adds its candidates in the last one.
  const size_t bins = static_cast<size_t>(f.n_bins), stride = bins + 1;
  std::vector<std::vector<uint64_t>> partial(static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    auto& mine = partial[static_cast<size_t>(omp_get_thread_num())];
    mine.assign(static_cast<size_t>(pair) * stride, 0);
#pragma omp for schedule(dynamic, 1)
    for (size_t w = 0; w < work.size(); ++w) {
      const WorkItem& item = work[w];
      uint64_t* hist = mine.data() + static_cast<size_t>(item.pair) * stride;
      if (item.cells)
        cpu::cell_histogram(sorted[static_cast<size_t>(item.a)],
                            sorted[static_cast<size_t>(item.b)], item.a == item.b, grid, item.begin,
                            item.end, params, hist);
      else
        cpu::pair_histogram(coords(item.a), coords(item.b), item.a == item.b, item.begin, item.end,
                            params, hist);
    }
  }
  for (const auto& p : partial)
    for (size_t q = 0; q < static_cast<size_t>(pair); ++q)
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

extern "C" const char* ph_cpu_kernels(void) {
  return pairhist::cpu::kernel_isa_name(pairhist::cpu::kernel_isa());
}

extern "C" void ph_force_avx2_kernels(int force) {
  pairhist::cpu::force_avx2_kernels(force != 0);
}
