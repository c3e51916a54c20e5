#include "codelets/starpu/pair_histogram_codelet.hpp"

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "codelets/starpu/codelet_builder.hpp"

namespace pairhist::codelets {
namespace {

template <class T>
void run_cpu(void* buffers[], const PairHistogramArgs& args, const HistogramParams<T>& params) {
  const cpu::Coords<T> a{reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[0])),
                         static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[0]) / 3)};
  cpu::Coords<T> b = a;
  int hist_index = 1;
  if (!args.same_species) {
    b = {reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[1])),
         static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[1]) / 3)};
    hist_index = 2;
  }
  auto* hist = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[hist_index]));
  cpu::pair_histogram(a, b, args.same_species != 0, args.row_begin, args.row_end, params, hist);
}

void pair_histogram_cpu(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const PairHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  with_params(args, [&](const auto& params) { run_cpu(buffers, args, params); });
  implementation_counters().record(Implementation::cpu, args.pairs);
}

// The perfmodel is keyed on the work itself: pairs, bins, box kind and precision.
uint32_t pair_histogram_footprint(starpu_task* task) {
  return work_footprint(*static_cast<const PairHistogramArgs*>(task->cl_arg));
}

}  // namespace

CodeletTask pair_histogram_task(const PairHistogramArgs& frame, const PairTile& tile,
                                uint64_t sequence, bool gpu_only) {
  PairHistogramArgs* args = new_cl_arg(frame);
  args->same_species = tile.same_species;
  args->row_begin = tile.row_begin;
  args->row_end = tile.row_end;
  args->pairs = tile.pairs;
  args->sequence = sequence;
  CodeletTask task;
  task.codelet = pair_histogram_codelet();
  task.args = args;
  task.args_size = sizeof(*args);
  // The buffer order the implementations read: a, b unless the same species, the histogram.
  task.add_input(tile.a);
  if (!args->same_species) task.add_input(tile.b);
  task.add_histogram(tile.pair);
  task.gpu_only = gpu_only;
  task.footprint = work_footprint(*args);
  task.pairs = args->pairs;
  return task;
}

starpu_codelet* pair_histogram_codelet() {
  static Codelet cl = [] {
    CodeletSpec spec;
    spec.name = "pair_histogram";
    spec.perfmodel_symbol = "pairhist.pair_histogram";
    spec.footprint = pair_histogram_footprint;
    spec.size_base = work_size<PairHistogramArgs>;
    spec.cpu_func = pair_histogram_cpu;
    spec.cpu_func_name = "pair_histogram_cpu";
    spec.cuda.resize(2);
    spec.cuda[kCudaShared].func = PAIRHIST_WITH_CUDA(pair_histogram_cuda_shared);
    spec.cuda[kCudaGlobal].func = PAIRHIST_WITH_CUDA(pair_histogram_cuda_global);
    spec.can_execute = PAIRHIST_WITH_CUDA(pair_histogram_cuda_can_execute);
    return Codelet(spec);
  }();
  return cl.get();
}

}  // namespace pairhist::codelets
