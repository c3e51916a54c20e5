// CUDA implementations of the histogram reduction codelets, on the worker's own stream
// (STARPU_CUDA_ASYNC).
#include <starpu.h>

#include <cstdint>

#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "codelets/starpu/histogram_reduction_codelets.hpp"

namespace pairhist::codelets {

void histogram_init_cuda(void* buffers[], void*) {
  const cudaError_t err = cudaMemsetAsync(
      reinterpret_cast<void*>(STARPU_VECTOR_GET_PTR(buffers[0])), 0,
      STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t), starpu_cuda_get_local_stream());
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

void histogram_redux_cuda(void* buffers[], void*) {
  const cudaError_t err = cuda::launch_add_histogram(
      reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[0])),
      reinterpret_cast<const unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[1])),
      static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[0])), starpu_cuda_get_local_stream());
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

}  // namespace pairhist::codelets
