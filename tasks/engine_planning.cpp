// What a caller of the task library asks before an engine starts: the GPUs present, their
// contexts made ahead of time, frame columns in pinned memory, the GPUs' (or cores') time for a
// frame by the cost model the engine chooses algorithms with (the feeding plan sizes the threads
// that prepare frames from it; a distributed run its parts of frames), and the algorithms `auto`
// picks.
#include <algorithm>

#include "codelets/starpu/cuda_devices.hpp"
#include "pairhist/engine.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/cell_histogram_planner.hpp"
#include "tasks/decomposition.hpp"
#include "tasks/starpu_machine.hpp"

namespace pairhist {

int cuda_devices() {
#if defined(PAIRHIST_CUDA_CODELETS)
  return codelets::cuda_device_count();
#else
  return 0;
#endif
}

void prepare_engine_start(int ncuda, Precision precision) {
  discover_machine_for_starpu();
#if defined(PAIRHIST_CUDA_CODELETS)
  if (ncuda != 0) codelets::warm_up_cuda(ncuda, precision == Precision::double_);
#else
  (void)ncuda;
  (void)precision;
#endif
}

bool use_pinned_host_columns() {
#if defined(PAIRHIST_CUDA_CODELETS)
  // Once: the device query initialises the CUDA runtime, and hooks stand for the process.
  static const bool gpus = [] {
    const bool any = codelets::cuda_device_count() > 0;
    if (any) set_host_pinning(codelets::cuda_pin_host, codelets::cuda_unpin_host);
    return any;
  }();
  (void)gpus;
#endif
  return host_pinning_installed();  // ours, or hooks the application installed first
}

namespace {

/// Seconds one device of the kind (`gpu` or a core) needs for a frame, by the cost model.
double estimated_device_seconds(const EngineConfig& config, const BoxMatrix& box,
                                const CoordinateBounds& bounds, bool gpu) {
  FrameBounds b;
  for (int c = 0; c < 3; ++c) b.lo[c] = bounds.lo[c], b.hi[c] = bounds.hi[c];
  const CellGrid grid = engine_cell_grid(config, box, b, nullptr);
  const AlgorithmRates rates = assumed_rates(gpu);
  double seconds = 0;
  const auto pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (!config.counted_pairs.empty() && !config.counted_pairs[p]) continue;
    const auto [a, b_] = pairs[p];
    const int64_t na = config.species_sizes[size_t(a)], nb = config.species_sizes[size_t(b_)];
    const Algorithm alg = config.whole_frames
                              ? Algorithm::all_pairs
                              : choose_pair_algorithm(config.algorithm, grid, na, nb, a == b_, gpu);
    seconds += estimated_pair_seconds(alg, rates, grid, na, nb, a == b_);
  }
  return seconds;
}

}  // namespace

double estimated_gpu_seconds_per_frame(const EngineConfig& config, const BoxMatrix& box,
                                       const CoordinateBounds& bounds, int gpus) {
  if (gpus <= 0) return 0;
  return estimated_device_seconds(config, box, bounds, true) / gpus;
}

double estimated_cpu_seconds_per_frame(const EngineConfig& config, const BoxMatrix& box,
                                       const CoordinateBounds& bounds, int cores) {
  if (cores <= 0) return 0;
  return estimated_device_seconds(config, box, bounds, false) / cores;
}

FrameCost estimated_frame_cost(const EngineConfig& config, const BoxMatrix& box,
                               const CoordinateBounds& bounds, int gpus) {
  FrameBounds b;
  for (int c = 0; c < 3; ++c) b.lo[c] = bounds.lo[c], b.hi[c] = bounds.hi[c];
  const CellGrid grid = engine_cell_grid(config, box, b, nullptr);
  const AlgorithmRates gpu = assumed_rates(true), core = assumed_rates(false);
  FrameCost cost;
  const auto pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (!config.counted_pairs.empty() && !config.counted_pairs[p]) continue;
    const auto [a, b_] = pairs[p];
    const int64_t na = config.species_sizes[size_t(a)], nb = config.species_sizes[size_t(b_)];
    const Algorithm alg = config.whole_frames ? Algorithm::all_pairs
                                              : choose_pair_algorithm(config.algorithm, grid, na,
                                                                      nb, a == b_, gpus > 0);
    if (gpus > 0)
      cost.gpu_seconds += estimated_pair_seconds(alg, gpu, grid, na, nb, a == b_) / gpus;
    const double on_core = estimated_pair_seconds(alg, core, grid, na, nb, a == b_);
    cost.core_seconds += on_core;
    // A core's tiles end within the tail budget; a cell-list task first sorts the pair's species.
    double task = std::min(on_core, kTailBudgetSeconds);
    if (alg == Algorithm::cell_list)
      task += static_cast<double>(na + (a == b_ ? 0 : nb)) / core.cell_sort;
    cost.core_task_seconds = std::max(cost.core_task_seconds, task);
  }
  return cost;
}

std::vector<Algorithm> choose_algorithms(const EngineConfig& config, const BoxMatrix& box,
                                         const CoordinateBounds& bounds) {
  FrameBounds b;
  for (int c = 0; c < 3; ++c) b.lo[c] = bounds.lo[c], b.hi[c] = bounds.hi[c];
  const CellGrid grid = engine_cell_grid(config, box, b, nullptr);
  std::vector<Algorithm> chosen;
  const auto pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  for (const auto& [a, b_] : pairs) {
    const int64_t na = config.species_sizes[size_t(a)], nb = config.species_sizes[size_t(b_)];
    chosen.push_back(config.whole_frames
                         ? Algorithm::all_pairs
                         : choose_pair_algorithm(config.algorithm, grid, na, nb, a == b_, true));
  }
  return chosen;
}

}  // namespace pairhist
