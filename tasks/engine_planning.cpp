// What a caller of the task library asks before an engine starts: the GPUs present, their
// contexts made ahead of time, and the GPUs' time for a frame by the cost model the engine
// chooses algorithms with (the feeding plan sizes the threads that prepare frames from it).
#include "../codelets/starpu/pair_histogram_codelet.hpp"
#include "algorithm_choice.hpp"
#include "cell_list_planner.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

int cuda_devices() {
#if defined(PAIRHIST_CUDA_CODELETS)
  return codelets::cuda_device_count();
#else
  return 0;
#endif
}

void warm_up_gpus(int ncuda) {
#if defined(PAIRHIST_CUDA_CODELETS)
  if (ncuda != 0) codelets::warm_up_cuda(ncuda);
#else
  (void)ncuda;
#endif
}

double estimated_gpu_seconds_per_frame(const EngineConfig& config, const BoxMatrix& box,
                                       const CoordinateBounds& bounds, int gpus) {
  if (gpus <= 0) return 0;
  FrameBounds b;
  for (int c = 0; c < 3; ++c) b.lo[c] = bounds.lo[c], b.hi[c] = bounds.hi[c];
  const CellGrid grid = engine_cell_grid(config, box, b, nullptr);
  const AlgorithmRates rates = assumed_rates(true);
  double seconds = 0;
  const auto pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (!config.counted_pairs.empty() && !config.counted_pairs[p]) continue;
    const auto [a, b_] = pairs[p];
    const int64_t na = config.species_sizes[size_t(a)], nb = config.species_sizes[size_t(b_)];
    const Algorithm alg =
        config.whole_frames ? Algorithm::all_pairs
                            : choose_pair_algorithm(config.algorithm, grid, na, nb, a == b_, true);
    seconds += estimated_pair_seconds(alg, rates, grid, na, nb, a == b_);
  }
  return seconds / gpus;
}

}  // namespace pairhist
