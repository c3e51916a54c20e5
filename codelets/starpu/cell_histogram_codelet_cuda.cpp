// CUDA implementation of the cell-list codelet: sorts the species into cells on the device
// (cached per worker for the frame's next tasks), then launches the count on the worker's stream.
#include <starpu.h>

#include <array>
#include <memory>
#include <optional>
#include <tuple>

#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/starpu/cell_histogram_codelet.hpp"
#include "codelets/starpu/cuda_task_failure.hpp"

namespace pairhist::codelets {
namespace {

/// One species of one frame sorted on this worker's device. The workspace belongs to one StarPU
/// worker, whose stream orders every use of it, so no other synchronisation is needed. (Per
/// worker, not per thread: StarPU drives the workers of one GPU from a single thread, each on its
/// own stream, and a cache shared between streams raced.)
struct DeviceEntry {
  uint64_t run = 0, frame = 0;
  int species = -1;
  const void* source = nullptr;
  size_t value_size = 0;
  uint64_t last_use = 0;
  cuda::CellWorkspace workspace;
  cuda::DeviceCells<float> single_cells;
  cuda::DeviceCells<double> double_cells;
};

struct DeviceCache {
  std::array<std::unique_ptr<DeviceEntry>, 4> entries;
  uint64_t clock = 0;
};

template <class T>
cuda::DeviceCells<T>& cells_of(DeviceEntry& e);
template <>
cuda::DeviceCells<float>& cells_of<float>(DeviceEntry& e) {
  return e.single_cells;
}
template <>
cuda::DeviceCells<double>& cells_of<double>(DeviceEntry& e) {
  return e.double_cells;
}

/// The species sorted into cells on this device; nothing when the sort could not be enqueued
/// (reported to the engine).
template <class T>
std::optional<cuda::DeviceCells<T>> sorted(DeviceCache& cache, const CellHistogramArgs& args,
                                           int species, void* buffer,
                                           const HistogramParams<T>& params, cudaStream_t stream) {
  const T* soa = reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffer));
  const auto n = static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffer) / 3);
  DeviceEntry* victim = nullptr;
  for (auto& slot : cache.entries) {
    if (!slot) slot = std::make_unique<DeviceEntry>();
    DeviceEntry& e = *slot;
    if (e.run == args.run && e.frame == args.frame && e.species == species && e.source == soa &&
        e.value_size == sizeof(T)) {
      e.last_use = ++cache.clock;
      return cells_of<T>(e);
    }
    if (!victim || e.last_use < victim->last_use) victim = &e;
  }
  victim->run = 0;  // invalid until the sort is enqueued
  const cudaError_t err =
      with_injected_failure(args, cuda::build_cells(soa, n, args.grid, params, victim->workspace,
                                                    cells_of<T>(*victim), stream));
  if (err != cudaSuccess) {
    fail_cuda_task(args, err, "cell sort");
    return std::nullopt;
  }
  victim->run = args.run, victim->frame = args.frame, victim->species = species;
  victim->source = soa, victim->value_size = sizeof(T);
  victim->last_use = ++cache.clock;
  return cells_of<T>(*victim);
}

DeviceCache* device_caches() {
  static DeviceCache caches[STARPU_NMAXWORKERS];
  return caches;
}

template <class T>
void launch(void* buffers[], const CellHistogramArgs& args, const HistogramParams<T>& params) {
  DeviceCache& cache = device_caches()[starpu_worker_get_id_check()];
  const cudaStream_t stream = starpu_cuda_get_local_stream();
  // Every species of the task sorted (at most kMaxCellTaskSpecies, which the cache holds at once,
  // so none is evicted before the launch reads it), then one launch for all pairs.
  static_assert(kMaxCellTaskSpecies <= std::tuple_size_v<decltype(DeviceCache::entries)>);
  std::array<cuda::DeviceCells<T>, 2 * kMaxCellTaskPairs> cells;
  std::array<cuda::CellPairLaunch<T>, kMaxCellTaskPairs> pairs;
  for (int k = 0; k < args.npairs; ++k) {
    const CellTaskPair& pr = args.pair[k];
    for (int side = 0; side < (pr.same_species ? 1 : 2); ++side) {
      const std::optional<cuda::DeviceCells<T>> c =
          sorted<T>(cache, args, side ? pr.species_b : pr.species_a,
                    buffers[side ? pr.buffer_b : pr.buffer_a], params, stream);
      if (!c) return;
      cells[size_t(2 * k + side)] = *c;
    }
    auto* hist =
        reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[pr.buffer_hist]));
    pairs[size_t(k)] = {&cells[size_t(2 * k)],
                        &cells[size_t(2 * k + (pr.same_species ? 0 : 1))],
                        pr.same_species != 0,
                        pr.key_begin,
                        pr.key_end,
                        hist};
  }
  const cudaError_t err =
      cuda::launch_cell_histograms(pairs.data(), args.npairs, args.grid, params, stream);
  if (err != cudaSuccess) fail_cuda_task(args, err, "cell-list histogram launch");
}

}  // namespace

void release_cell_device_caches(uint64_t run) {
  for (int w = 0; w < STARPU_NMAXWORKERS; ++w)
    for (auto& e : device_caches()[w].entries) {
      if (!e || e->run != run) continue;
      cudaSetDevice(starpu_worker_get_devid(w));  // the workspace lives on the worker's device
      e.reset();
    }
}

void cell_histogram_cuda(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const CellHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  with_params(args, [&](const auto& params) { launch(buffers, args, params); });
  implementation_counters().record(Implementation::cuda_cells, args.pairs);
}

}  // namespace pairhist::codelets
