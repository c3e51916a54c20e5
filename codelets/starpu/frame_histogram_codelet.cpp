#include "codelets/starpu/frame_histogram_codelet.hpp"

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "codelets/starpu/codelet_builder.hpp"

namespace pairhist::codelets {
namespace {

template <class T>
void run_frame_cpu(void* buffers[], const FrameHistogramArgs& args,
                   const HistogramParams<T>& params) {
  for (int p = 0; p < args.npairs; ++p) {
    const int a = args.pair_a[p], b = args.pair_b[p];
    if (args.coord_buffer[a] < 0 || args.coord_buffer[b] < 0) continue;
    const cpu::Coords<T> ca{
        reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[args.coord_buffer[a]])),
        args.species_size[a]};
    const cpu::Coords<T> cb{
        reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[args.coord_buffer[b]])),
        args.species_size[b]};
    auto* hist = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[args.hist_buffer[p]]));
    cpu::pair_histogram(ca, cb, a == b, 0, ca.n, params, hist);
  }
}

void frame_histogram_cpu(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const FrameHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  with_params(args, [&](const auto& params) { run_frame_cpu(buffers, args, params); });
  implementation_counters().record(Implementation::cpu, args.pairs);
}

uint32_t frame_histogram_footprint(starpu_task* task) {
  return work_footprint(*static_cast<const FrameHistogramArgs*>(task->cl_arg));
}

}  // namespace

CodeletTask frame_histogram_task(const PairHistogramArgs& frame,
                                 const std::vector<int64_t>& species_sizes,
                                 const std::vector<starpu_data_handle_t>& species_handles,
                                 const std::vector<std::pair<int, int>>& species_pairs,
                                 const std::vector<int>& pair_list, uint64_t pairs,
                                 uint64_t sequence, bool gpu_only) {
  FrameHistogramArgs* args = new_cl_arg(FrameHistogramArgs());
  args->precision = frame.precision;
  args->single_params = frame.single_params;
  args->double_params = frame.double_params;
  args->frame = frame.frame;
  args->gate = frame.gate;
  args->faults = frame.faults;
  args->sequence = sequence;
  args->pairs = pairs;
  args->nspecies = static_cast<int>(species_sizes.size());
  STARPU_ASSERT(args->nspecies <= kMaxFrameSpecies);
  bool used[kMaxFrameSpecies] = {};
  for (int p : pair_list) {
    used[species_pairs[static_cast<size_t>(p)].first] = true;
    used[species_pairs[static_cast<size_t>(p)].second] = true;
  }
  CodeletTask task;
  task.codelet = frame_histogram_codelet();
  task.args = args;
  task.args_size = sizeof(*args);
  // Buffers: the species the pairs use, each once in species order, then the pairs' histograms.
  for (int s = 0; s < args->nspecies; ++s) {
    args->species_size[s] = species_sizes[static_cast<size_t>(s)];
    args->coord_buffer[s] = -1;
    starpu_data_handle_t h = species_handles[static_cast<size_t>(s)];
    if (h && used[s]) args->coord_buffer[s] = task.add_input(h);
  }
  args->npairs = static_cast<int>(pair_list.size());
  for (int i = 0; i < args->npairs; ++i) {
    const int p = pair_list[static_cast<size_t>(i)];
    args->pair_a[i] = species_pairs[static_cast<size_t>(p)].first;
    args->pair_b[i] = species_pairs[static_cast<size_t>(p)].second;
    args->hist_buffer[i] = task.histogram_buffer(i);
    task.add_histogram(p);
  }
  task.gpu_only = gpu_only;
  task.footprint = work_footprint(*args);
  task.pairs = args->pairs;
  return task;
}

starpu_codelet* frame_histogram_codelet() {
  static Codelet cl = [] {
    CodeletSpec spec;
    spec.name = "frame_histogram";
    spec.perfmodel_symbol = "pairhist.frame_histogram";
    spec.footprint = frame_histogram_footprint;
    spec.size_base = work_size<FrameHistogramArgs>;
    spec.cpu_func = frame_histogram_cpu;
    spec.cpu_func_name = "frame_histogram_cpu";
    spec.cuda = {{PAIRHIST_WITH_CUDA(frame_histogram_cuda)}};
    return Codelet(spec);
  }();
  return cl.get();
}

}  // namespace pairhist::codelets
