// Square roots for binning on the GPU, shared by the histogram kernels and the GPU suite's
// exhaustive check (tests/bin_roots_check.cu).
#pragma once

#include "pairhist/geometry.hpp"

namespace pairhist::cuda {

/// Root of a squared distance for binning, with no branch: CUDA's own fast path for __fsqrt_rn
/// (five instructions) applied to x + 2^-100. That path is correctly rounded for arguments in
/// [2^-101, FLT_MAX], and x + 2^-100 == x exactly for x >= 2^-75 (the addend is under half an
/// ulp), so the root is __fsqrt_rn(x) bit for bit there. Below, where the correct root is under
/// 2^-37 and its bin is 0, the root returned is under 2^-37 as well; infinity and NaN give NaN,
/// whose bin, like infinity's, is the miss bin. So bin_of_distance of the root always equals
/// bin_of(x), which is all the kernels use it for. (The full __fsqrt_rn branches per value, or per
/// warp with a vote: ~1.5 instructions more per pair.)
__device__ __forceinline__ float root_for_bin(float x) {
  const float y = __fadd_rn(x, 0x1p-100f);
  float rsq, s, half;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rsq) : "f"(y));
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(y), "f"(rsq));
  asm("mul.rn.ftz.f32 %0, %1, 0f3F000000;" : "=f"(half) : "f"(rsq));
  return __fmaf_rn(__fmaf_rn(-s, s, y), half, s);
}

/// Double precision has no such fast path: the correctly rounded root.
__device__ __forceinline__ double root_for_bin(double x) {
  return fp::sqrt(x);
}

}  // namespace pairhist::cuda
