// Square roots for binning on the GPU, shared by the histogram kernels and the GPU suite's
// exhaustive check (tests/bin_roots_check.cu).
#pragma once

#include "pairhist/geometry.hpp"

namespace pairhist::cuda {

/// Root of a squared distance from norm2 (so at least 2^-100, or infinity or NaN), with no branch:
/// CUDA's own fast path for __fsqrt_rn, five instructions, which is correctly rounded for
/// arguments in [2^-101, FLT_MAX]. Infinity and NaN give NaN, whose bin, like infinity's, is the
/// miss bin. (The full __fsqrt_rn branches to its slow path per value, or per warp after a vote:
/// ~2.5 instructions more per pair, 10% of K1.)
__device__ __forceinline__ float root_for_bin(float x) {
  float rsq, s, half;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rsq) : "f"(x));
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(x), "f"(rsq));
  asm("mul.rn.ftz.f32 %0, %1, 0f3F000000;" : "=f"(half) : "f"(rsq));
  return __fmaf_rn(__fmaf_rn(-s, s, x), half, s);
}

/// Double precision has no such fast path: the correctly rounded root.
__device__ __forceinline__ double root_for_bin(double x) {
  return fp::sqrt(x);
}

}  // namespace pairhist::cuda
