#include "codelets/starpu/cell_histogram_codelet.hpp"

#include <array>
#include <atomic>
#include <cstring>

#include "codelets/cpu/cell_histogram_cpu.hpp"

namespace pairhist::codelets {
namespace {

/// A species of one frame as this worker sorted it.
template <class T>
struct SortedEntry {
  uint64_t run = 0, frame = 0;
  int species = -1;
  const void* source = nullptr;
  uint64_t last_use = 0;
  cpu::CellSortedSpecies<T> cells;
};

/// One worker's sorted species: a pair needs two (the least recently used entry is replaced), a
/// frame's next task on the worker finds them again.
template <class T>
struct SortCache {
  std::array<SortedEntry<T>, 2> entries;
  uint64_t clock = 0;

  const cpu::CellSortedSpecies<T>& get(const CellHistogramArgs& args, int species,
                                       cpu::Coords<T> raw, const HistogramParams<T>& params) {
    SortedEntry<T>* victim = &entries[0];
    for (auto& e : entries) {
      if (e.run == args.run && e.frame == args.frame && e.species == species &&
          e.source == raw.xyz) {
        e.last_use = ++clock;
        return e.cells;
      }
      if (e.last_use < victim->last_use) victim = &e;
    }
    cpu::sort_into_cells(raw, args.grid, params, victim->cells);
    victim->run = args.run, victim->frame = args.frame, victim->species = species;
    victim->source = raw.xyz;
    victim->last_use = ++clock;
    return victim->cells;
  }
};

template <class T>
cpu::Coords<T> coords_of(void* buffer) {
  return {reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffer)),
          static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffer) / 3)};
}

template <class T>
SortCache<T>* worker_caches() {
  static SortCache<T> caches[STARPU_NMAXWORKERS];  // per worker (see the CUDA half)
  return caches;
}

template <class T>
void run_cpu(void* buffers[], const CellHistogramArgs& args, const HistogramParams<T>& params) {
  SortCache<T>& cache = worker_caches<T>()[starpu_worker_get_id_check()];
  for (int k = 0; k < args.npairs; ++k) {
    const CellTaskPair& pr = args.pair[k];
    const auto& cells_a = cache.get(args, pr.species_a, coords_of<T>(buffers[pr.buffer_a]), params);
    const cpu::CellSortedSpecies<T>* cells_b = &cells_a;
    // Two entries in use at once: the lookup of b does not evict a, the most recently used.
    if (!pr.same_species)
      cells_b = &cache.get(args, pr.species_b, coords_of<T>(buffers[pr.buffer_b]), params);
    auto* hist = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[pr.buffer_hist]));
    cpu::cell_histogram(cells_a, *cells_b, pr.same_species != 0, args.grid, pr.key_begin,
                         pr.key_end, params, hist);
  }
}

void cell_histogram_cpu(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const CellHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  if (args.precision == Precision::single)
    run_cpu<float>(buffers, args, args.single_params);
  else
    run_cpu<double>(buffers, args, args.double_params);
  implementation_counters().record(Implementation::cpu_cells, args.pairs);
}

uint32_t cell_histogram_footprint(starpu_task* task) {
  return cell_task_footprint(*static_cast<const CellHistogramArgs*>(task->cl_arg));
}

size_t cell_histogram_size(starpu_task* task, unsigned) {
  return static_cast<size_t>(static_cast<const CellHistogramArgs*>(task->cl_arg)->pairs);
}

starpu_perfmodel cell_histogram_model = [] {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = "pairhist.cell_histogram";
  m.footprint = cell_histogram_footprint;
  m.size_base = cell_histogram_size;
  return m;
}();

}  // namespace

uint32_t cell_task_footprint(const CellHistogramArgs& args) {
  const uint32_t h =
      starpu_hash_crc32c_be(static_cast<uint32_t>(args.grid.reach), work_footprint(args));
  // Single pairs keep the footprints of the shipped models.
  return args.npairs > 1 ? starpu_hash_crc32c_be(static_cast<uint32_t>(args.npairs), h) : h;
}

template <class T>
void release_run(uint64_t run) {
  for (int w = 0; w < STARPU_NMAXWORKERS; ++w)
    for (auto& e : worker_caches<T>()[w].entries)
      if (e.run == run) e = SortedEntry<T>();
}

void release_cell_caches(uint64_t run) {
  release_run<float>(run);
  release_run<double>(run);
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
  release_cell_device_caches(run);
#endif
}

uint64_t next_cell_run() {
  static std::atomic<uint64_t> runs{0};
  return ++runs;
}

starpu_codelet* cell_histogram_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    std::memset(&c, 0, sizeof(c));
    c.where = STARPU_CPU;
    c.cpu_funcs[0] = cell_histogram_cpu;
    c.cpu_funcs_name[0] = "cell_histogram_cpu";
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
    c.where |= STARPU_CUDA;
    c.cuda_funcs[0] = cell_histogram_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.model = &cell_histogram_model;
    c.name = "cell_histogram";
    return c;
  }();
  return &cl;
}

}  // namespace pairhist::codelets
