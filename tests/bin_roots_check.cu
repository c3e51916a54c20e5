// Exhaustive check of the kernels' branch-free root (codelets/cuda/bin_roots.cuh) over every
// non-negative float, infinity and NaNs included: the bin it gives must be bin_of's for several
// bin counts, and the root itself __fsqrt_rn's wherever the fast path claims to be exact.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "../codelets/cuda/bin_roots.cuh"

namespace pairhist::test {
namespace {

__global__ void count_root_mismatches(unsigned long long* mismatches) {
  const int bin_counts[] = {1, 10000, 1 << 24};
  unsigned long long local = 0;
  for (uint64_t bits = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; bits <= 0x7fffffffu;
       bits += uint64_t(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(static_cast<unsigned>(bits));
    const float root = cuda::root_for_bin(x);
    bool ok = true;
    if (x >= 0x1p-75f && x <= 3.402823466e38f)
      ok = __float_as_uint(root) == __float_as_uint(__fsqrt_rn(x));
    for (int nbins : bin_counts) ok = ok && bin_of_distance(root, nbins) == bin_of(x, nbins);
    local += ok ? 0 : 1;
  }
  if (local) atomicAdd(mismatches, local);
}

}  // namespace

/// Number of non-negative float bit patterns whose root or bin disagrees (0 when correct), or
/// ~0 when the check could not run.
uint64_t bin_root_mismatches() {
  unsigned long long* d = nullptr;
  if (cudaMalloc(&d, sizeof *d) != cudaSuccess) return ~uint64_t(0);
  unsigned long long h = ~0ull;
  if (cudaMemset(d, 0, sizeof *d) == cudaSuccess) {
    count_root_mismatches<<<4096, 256>>>(d);
    if (cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) h = ~0ull;
  }
  cudaFree(d);
  return h;
}

}  // namespace pairhist::test
