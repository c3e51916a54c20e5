// CUDA implementations of the pair-histogram codelet: unpack buffers and arguments, launch on the
// worker's own stream (STARPU_CUDA_ASYNC: StarPU waits for the stream, we never synchronise).
#include <starpu.h>

#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "codelets/starpu/cuda_task_failure.hpp"
#include "codelets/starpu/pair_histogram_codelet.hpp"

namespace pairhist::codelets {
namespace {

int shared_bins_of_worker[STARPU_NMAXWORKERS];  // filled lazily by the worker thread itself

template <class T>
void launch(cuda::HistogramKernel kernel, void* buffers[], const PairHistogramArgs& args,
            const HistogramParams<T>& params) {
  const auto* a = reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  const int64_t na = STARPU_VECTOR_GET_NX(buffers[0]) / 3;
  const T* b = a;
  int64_t nb = na;
  int hist_index = 1;
  if (!args.same_species) {
    b = reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    nb = STARPU_VECTOR_GET_NX(buffers[1]) / 3;
    hist_index = 2;
  }
  auto* hist = reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[hist_index]));
  const cudaError_t err = with_injected_failure(
      args,
      cuda::launch_pair_histogram(kernel, a, na, b, nb, args.same_species != 0, args.row_begin,
                                  args.row_end, params, hist, starpu_cuda_get_local_stream()));
  if (err != cudaSuccess) fail_cuda_task(args, err, "pair histogram launch");
}

void run(cuda::HistogramKernel kernel, void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const PairHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  with_params(args, [&](const auto& params) { launch(kernel, buffers, args, params); });
  implementation_counters().record(kernel == cuda::HistogramKernel::shared_memory
                                       ? Implementation::cuda_shared
                                       : Implementation::cuda_global,
                                   args.pairs);
}

}  // namespace

void pair_histogram_cuda_shared(void* buffers[], void* cl_arg) {
  run(cuda::HistogramKernel::shared_memory, buffers, cl_arg);
}

void pair_histogram_cuda_global(void* buffers[], void* cl_arg) {
  run(cuda::HistogramKernel::global_memory, buffers, cl_arg);
}

// The shared-memory kernel takes every histogram (in bin windows when it is wide); the
// global-memory kernel is offered only for wide ones, where the model-based schedulers weigh
// repeated windows against global atomics.
int pair_histogram_cuda_can_execute(unsigned workerid, starpu_task* task, unsigned nimpl) {
  if (starpu_worker_get_type(static_cast<int>(workerid)) != STARPU_CUDA_WORKER) return 1;
  int& max_bins = shared_bins_of_worker[workerid];
  if (max_bins == 0)
    max_bins = cuda::max_shared_memory_bins(starpu_worker_get_devid(static_cast<int>(workerid)));
  const int nbins = static_cast<const PairHistogramArgs*>(task->cl_arg)->nbins();
  const bool fits = nbins <= max_bins;
  return nimpl == kCudaShared ? 1 : !fits;
}

}  // namespace pairhist::codelets
