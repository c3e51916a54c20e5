// ph_histograms_cpu: OpenMP threads share the row tiles of all pairs; each thread adds into its
// own histograms, summed at the end (integer sums: the result does not depend on the threads).
#include <omp.h>

#include <cstring>

#include "../cpu/pair_histogram_cpu.hpp"
#include "frame_prep.hpp"
#include "row_tiles.hpp"

namespace pairhist::capi {
namespace {

struct WorkItem {
  int pair;
  int a;
  int b;
  RowTile tile;
};

// Tiles small enough that the last ones finish together, large enough to amortise scheduling.
constexpr uint64_t kPairsPerTile = uint64_t(1) << 22;

template <class T>
int histograms_cpu(const ph_frame& f, int n_threads, uint64_t* out) {
  const auto soa = species_soa<T>(f);
  const HistogramParams<T> params = frame_params<T>(f);
  std::vector<WorkItem> work;
  int pair = 0;
  for (int a = 0; a < f.n_species; ++a)
    for (int b = a; b < f.n_species; ++b, ++pair)
      for (const RowTile& t :
           split_rows(f.species_sizes[a], f.species_sizes[b], a == b, kPairsPerTile))
        work.push_back({pair, a, b, t});
  const size_t bins = static_cast<size_t>(f.n_bins);
  const size_t total = static_cast<size_t>(pair) * bins;
  const int threads = n_threads > 0 ? n_threads : omp_get_max_threads();
  std::vector<std::vector<uint64_t>> partial(static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    auto& mine = partial[static_cast<size_t>(omp_get_thread_num())];
    mine.assign(total, 0);
#pragma omp for schedule(dynamic, 1)
    for (size_t w = 0; w < work.size(); ++w) {
      const WorkItem& item = work[w];
      const cpu::Coords<T> ca{soa[static_cast<size_t>(item.a)].data(), f.species_sizes[item.a]};
      const cpu::Coords<T> cb{soa[static_cast<size_t>(item.b)].data(), f.species_sizes[item.b]};
      cpu::histogram_pairs(ca, cb, item.a == item.b, item.tile.row_begin, item.tile.row_end, params,
                           mine.data() + static_cast<size_t>(item.pair) * bins);
    }
  }
  for (const auto& p : partial)
    for (size_t k = 0; k < p.size(); ++k) out[k] += p[k];
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
