// Pieces shared by the all-pairs and the cell-list CUDA kernels: how a point sits in registers
// and shared memory, the NaN padding that sends a missing pair to the miss bin, and the triclinic
// image table staged in shared memory.
#pragma once

#include <cstddef>

#include "pairhist/geometry.hpp"

namespace pairhist::cuda {

template <class T>
struct alignas(4 * sizeof(T)) Point {
  T x, y, z, w;
};

template <class T>
__device__ __forceinline__ T quiet_nan();
template <>
__device__ __forceinline__ float quiet_nan<float>() {
  return __int_as_float(0x7fc00000);
}
template <>
__device__ __forceinline__ double quiet_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000ll);
}

/// A point whose distance to anything is NaN, which bins to the miss bin: padding that needs no
/// bounds check in the inner loops.
template <class T>
__device__ __forceinline__ Point<T> nan_point() {
  const T nan = quiet_nan<T>();
  return {nan, nan, nan, nan};
}

/// Bytes of a triclinic box's image table as the kernels keep it in shared memory: the used
/// entries of each octant, packed (none for the other boxes).
template <BoxKind K, class T>
__host__ __device__ size_t image_table_bytes(const Box<T>& box) {
  return K == BoxKind::triclinic ? size_t(8) * size_t(box.octant_images) * sizeof(ImageShift<T>)
                                 : 0;
}

/// Copies the used entries of the box's table to `shared` (8 octants x octant_images, packed) and
/// returns the table the distance code reads. The caller synchronises before the first use.
template <BoxKind K, class T>
__device__ __forceinline__ ImageTable<T> stage_image_table(const Box<T>& box,
                                                           ImageShift<T>* shared) {
  if constexpr (K == BoxKind::triclinic) {
    const int used = box.octant_images;
    for (int e = threadIdx.x; e < 8 * used; e += blockDim.x)
      shared[e] = box.octant_image[e / used][e % used];
    return {shared, used};
  } else {
    return image_table(box);
  }
}

}  // namespace pairhist::cuda
