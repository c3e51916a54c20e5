#include "codelets/starpu/cell_histogram_codelet.hpp"

#include <array>
#include <atomic>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/starpu/codelet_builder.hpp"

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
  with_params(args, [&](const auto& params) { run_cpu(buffers, args, params); });
  implementation_counters().record(Implementation::cpu_cells, args.pairs);
}

uint32_t cell_histogram_footprint(starpu_task* task) {
  return cell_task_footprint(*static_cast<const CellHistogramArgs*>(task->cl_arg));
}

}  // namespace

uint32_t cell_task_footprint(const CellHistogramArgs& args) {
  uint32_t h = starpu_hash_crc32c_be(static_cast<uint32_t>(args.grid.reach), work_footprint(args));
  // Pruning changes the cost per pair (unpruned footprints stay those of the shipped models).
  if (args.grid.prune) h = starpu_hash_crc32c_be(0x9e3779b9u, h);
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

CodeletTask cell_histogram_task(const CellHistogramArgs& frame, const CellRange* ranges,
                                int nranges,
                                const std::vector<starpu_data_handle_t>& species_handles,
                                uint64_t candidates, uint64_t sequence, bool gpu_only) {
  STARPU_ASSERT(nranges <= kMaxCellTaskPairs);
  CellHistogramArgs* args = new_cl_arg(frame);
  CodeletTask task;
  task.codelet = cell_histogram_codelet();
  task.args = args;
  task.args_size = sizeof(*args);
  // Buffers: each species once, in the order the ranges name them first, then the pairs'
  // histograms.
  int species[2 * kMaxCellTaskPairs];
  const auto buffer_of = [&](int s) {
    for (int k = 0; k < task.ninputs; ++k)
      if (species[k] == s) return k;
    species[task.ninputs] = s;
    return task.add_input(species_handles[static_cast<size_t>(s)]);
  };
  args->npairs = nranges;
  for (int k = 0; k < nranges; ++k) {
    CellTaskPair& t = args->pair[k];
    t.species_a = ranges[k].species_a;
    t.species_b = ranges[k].species_b;
    t.same_species = t.species_a == t.species_b;
    t.buffer_a = buffer_of(t.species_a);
    t.buffer_b = buffer_of(t.species_b);
    t.key_begin = ranges[k].key_begin;
    t.key_end = ranges[k].key_end;
  }
  for (int k = 0; k < nranges; ++k) {
    args->pair[k].buffer_hist = task.histogram_buffer(k);
    task.add_histogram(ranges[k].pair);
  }
  args->pairs = candidates;
  args->sequence = sequence;
  task.gpu_only = gpu_only;
  task.footprint = cell_task_footprint(*args);
  task.pairs = args->pairs;
  return task;
}

starpu_codelet* cell_histogram_codelet() {
  static Codelet cl = [] {
    CodeletSpec spec;
    spec.name = "cell_histogram";
    spec.perfmodel_symbol = "pairhist.cell_histogram";
    spec.footprint = cell_histogram_footprint;
    spec.size_base = work_size<CellHistogramArgs>;
    spec.cpu_func = cell_histogram_cpu;
    spec.cpu_func_name = "cell_histogram_cpu";
    spec.cuda = {{PAIRHIST_WITH_CUDA(cell_histogram_cuda)}};
    return Codelet(spec);
  }();
  return cl.get();
}

}  // namespace pairhist::codelets
