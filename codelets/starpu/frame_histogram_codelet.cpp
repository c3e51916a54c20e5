#include "codelets/starpu/frame_histogram_codelet.hpp"

#include <cstring>

#include "codelets/cpu/pair_histogram_cpu.hpp"

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
  if (args.precision == Precision::single)
    run_frame_cpu<float>(buffers, args, args.single_params);
  else
    run_frame_cpu<double>(buffers, args, args.double_params);
  implementation_counters().record(Implementation::cpu, args.pairs);
}

uint32_t frame_histogram_footprint(starpu_task* task) {
  return work_footprint(*static_cast<const FrameHistogramArgs*>(task->cl_arg));
}

size_t frame_histogram_size(starpu_task* task, unsigned) {
  return static_cast<size_t>(static_cast<const FrameHistogramArgs*>(task->cl_arg)->pairs);
}

starpu_perfmodel frame_histogram_model = [] {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = "pairhist.frame_histogram";
  m.footprint = frame_histogram_footprint;
  m.size_base = frame_histogram_size;
  return m;
}();

}  // namespace

starpu_codelet* frame_histogram_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    std::memset(&c, 0, sizeof(c));
    c.where = STARPU_CPU;
    c.cpu_funcs[0] = frame_histogram_cpu;
    c.cpu_funcs_name[0] = "frame_histogram_cpu";
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
    c.where |= STARPU_CUDA;
    c.cuda_funcs[0] = frame_histogram_cuda;
    c.cuda_flags[0] = STARPU_CUDA_ASYNC;
#endif
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.model = &frame_histogram_model;
    c.name = "frame_histogram";
    return c;
  }();
  return &cl;
}

}  // namespace pairhist::codelets
