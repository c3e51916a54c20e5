// Exhaustive check of the kernels' branch-free root (codelets/cuda/bin_roots.cuh) over every float
// a squared distance can be (2^-100 and up, infinity and NaNs): the root must be __fsqrt_rn's bit
// for bit where finite, and the bin must be bin_of's for several bin counts. Also the bins taken
// from a rounded-down add (biased_bin) against bin_of_distance, over every non-negative float.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>

#include "codelets/cuda/bin_roots.cuh"

namespace pairhist::test {
namespace {

__global__ void count_root_mismatches(unsigned first, unsigned long long* mismatches) {
  const int bin_counts[] = {1, 10000, 1 << 24};
  unsigned long long local = 0;
  for (uint64_t bits = first + blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; bits <= 0x7fffffffu;
       bits += uint64_t(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(static_cast<unsigned>(bits));
    const float root = cuda::root_for_bin(x);
    bool ok = !isfinite(x) || __float_as_uint(root) == __float_as_uint(__fsqrt_rn(x));
    for (int nbins : bin_counts) ok = ok && bin_of_distance(root, nbins) == bin_of(x, nbins);
    local += ok ? 0 : 1;
  }
  if (local) atomicAdd(mismatches, local);
}

__global__ void count_biased_bin_mismatches(unsigned long long* mismatches) {
  const int bin_counts[] = {1, 10000, 56063, (1 << 23) - 1};
  unsigned long long local = 0;
  for (uint64_t bits = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; bits <= 0x7fffffffu;
       bits += uint64_t(gridDim.x) * blockDim.x) {
    const float r = __uint_as_float(static_cast<unsigned>(bits));
    bool ok = true;
    for (int nbins : bin_counts) {
      // The cut-off on the last edge, and inside the last bin.
      const float cuts[] = {static_cast<float>(nbins), static_cast<float>(nbins) - 0.37f};
      for (float limit : cuts)
        ok = ok &&
             cuda::biased_bin(r, limit, nbins) - cuda::kBinBias ==
                 static_cast<unsigned>(bin_of_distance(r, limit, nbins)) &&
             cuda::biased_bin(r, 0.0f, limit, nbins) - cuda::kBinBias ==
                 static_cast<unsigned>(bin_of_distance(r, limit, nbins));
      // Bins from r_min: a fractional and a whole lower bound, limits up to lower + nbins.
      const float lowers[] = {6.25f, 0.1f * static_cast<float>(nbins), 3.0f};
      for (float lower : lowers) {
        const float limits[] = {lower + static_cast<float>(nbins),
                                lower + static_cast<float>(nbins) - 0.37f};
        for (float limit : limits) {
          if (!(__fsub_rn(limit, lower) < static_cast<float>(nbins) + 1.0f)) continue;
          ok = ok && cuda::biased_bin(r, lower, limit, nbins) - cuda::kBinBias ==
                         static_cast<unsigned>(bin_of_distance(r, lower, limit, nbins));
        }
      }
    }
    local += ok ? 0 : 1;
  }
  if (local) atomicAdd(mismatches, local);
}

}  // namespace

/// Number of floats from 2^-100 up whose root or bin disagrees, plus the number of non-negative
/// floats whose biased bin disagrees with bin_of_distance (0 when correct), or ~0 when the check
/// could not run.
uint64_t bin_root_mismatches() {
  static_assert(kSquaredDistanceFloor<float> == 0x1p-100f);
  unsigned long long* d = nullptr;
  if (cudaMalloc(&d, sizeof *d) != cudaSuccess) return ~uint64_t(0);
  unsigned long long h = ~0ull;
  if (cudaMemset(d, 0, sizeof *d) == cudaSuccess) {
    const float floor = kSquaredDistanceFloor<float>;
    unsigned first;
    std::memcpy(&first, &floor, sizeof first);
    count_root_mismatches<<<4096, 256>>>(first, d);
    count_biased_bin_mismatches<<<4096, 256>>>(d);
    // A launch that fails (no kernel image for this GPU, say) must not read as "no mismatch".
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
      h = ~0ull;
  }
  cudaFree(d);
  return h;
}

}  // namespace pairhist::test
