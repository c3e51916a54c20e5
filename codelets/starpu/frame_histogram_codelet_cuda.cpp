// CUDA implementation of the whole-frame baseline task: one launch per pair on the worker's
// stream.
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "codelets/starpu/cuda_task_failure.hpp"
#include "codelets/starpu/frame_histogram_codelet.hpp"

namespace pairhist::codelets {
namespace {

template <class T>
void launch_frame(void* buffers[], const FrameHistogramArgs& args,
                  const HistogramParams<T>& params) {
  for (int p = 0; p < args.npairs; ++p) {
    const int a = args.pair_a[p], b = args.pair_b[p];
    if (args.coord_buffer[a] < 0 || args.coord_buffer[b] < 0) continue;
    const auto* ca =
        reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[args.coord_buffer[a]]));
    const auto* cb =
        reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[args.coord_buffer[b]]));
    auto* hist =
        reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[args.hist_buffer[p]]));
    const cudaError_t err = with_injected_failure(
        args,
        cuda::launch_pair_histogram(cuda::HistogramKernel::shared_memory, ca, args.species_size[a],
                                    cb, args.species_size[b], a == b, 0, args.species_size[a],
                                    params, hist, starpu_cuda_get_local_stream()));
    if (err != cudaSuccess) return fail_cuda_task(args, err, "whole-frame histogram launch");
  }
}

}  // namespace

void frame_histogram_cuda(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const FrameHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  with_params(args, [&](const auto& params) { launch_frame(buffers, args, params); });
  implementation_counters().record(Implementation::cuda_shared, args.pairs);
}

}  // namespace pairhist::codelets
