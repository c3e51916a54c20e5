// Square roots for binning on the GPU, shared by the histogram kernels and the GPU suite's
// exhaustive check (tests/bin_roots_check.cu).
#pragma once

#include "pairhist/geometry.hpp"

namespace pairhist::cuda {

constexpr unsigned kBinBias = 0x4b000000u;  // the bits of 2^23

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

/// bin_of_distance(r, lower, limit, nbins) + kBinBias for r >= 0 or NaN and nbins < 2^23, in
/// full-rate instructions: with c = (r < limit ? s : nbins), s = fl(r - lower), and c clamped to
/// nbins as unsigned bits (a negative s, below r_min, has the sign bit and so becomes nbins; a
/// non-negative float's bits order like its value), fl_down(c + 2^23) is 2^23 + floor(c) (the
/// ulp there is 1), and its bits are those of 2^23, kBinBias, plus that floor. With lower = 0,
/// s is r. A float-to-int conversion would run on the quarter-rate pipe that the root's MUFU
/// already loads (with both, that pipe was as tight as instruction issue in K1).
__device__ __forceinline__ unsigned biased_bin(float r, float lower, float limit, int nbins) {
  const float uncounted = static_cast<float>(nbins);
  const float c = r < limit ? __fsub_rn(r, lower) : uncounted;
  const unsigned clamped = min(__float_as_uint(c), __float_as_uint(uncounted));
  return __float_as_uint(__fadd_rd(__uint_as_float(clamped), 0x1p23f));
}

/// Bins from 0 (lower = 0).
__device__ __forceinline__ unsigned biased_bin(float r, float limit, int nbins) {
  return __float_as_uint(__fadd_rd(r < limit ? r : static_cast<float>(nbins), 0x1p23f));
}

/// The biased bin of a root under p: from p.lower where Shifted (bins from r_min), else from 0,
/// without the subtraction and its clamp, which cost the hot loops ~10% (K1 1,764 -> 1,579 bapps
/// on an H200 when every launch took them).
template <bool Shifted>
__device__ __forceinline__ unsigned biased_bin(float r, const HistogramParams<float>& p) {
  if constexpr (Shifted) {
    return biased_bin(r, p.lower, p.limit, p.nbins);
  } else {
    return biased_bin(r, p.limit, p.nbins);
  }
}

/// bin_of_distance under p, likewise.
template <bool Shifted, class T>
__device__ __forceinline__ int bin_of_root(T r, const HistogramParams<T>& p) {
  if constexpr (Shifted) {
    return bin_of_distance(r, p);
  } else {
    return bin_of_distance(r, p.limit, p.nbins);
  }
}

/// Adds one to the 32-bit shared-memory counter at `address` (a shared-window byte address).
__device__ __forceinline__ void add_one_shared(unsigned address) {
  asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(address) : "memory");
}

}  // namespace pairhist::cuda
