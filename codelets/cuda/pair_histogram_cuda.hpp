// CUDA pair-histogram kernels. Plain CUDA: no StarPU here. Launchers enqueue on the given stream
// and return the launch status; they never allocate or synchronise.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pairhist/geometry.hpp"

namespace pairhist::cuda {

enum class HistogramKernel : int {
  shared_memory = 0,  // 32-bit partial histograms in shared memory; wide ones in bin windows
  global_memory = 1,  // atomics straight into the 64-bit histogram
};

/// Largest bin count the shared-memory kernel counts in one window on the given device.
int max_shared_memory_bins(int device);

/// Whether the shared-memory kernel counts a histogram of nbins bins in several windows on the
/// device (wider than one window, or windows forced by the test hook PAIRHIST_TEST_CUDA_WINDOW).
bool counts_in_windows(int device, int nbins);

/// Adds the histogram of pairs (i in a, j in b) to hist (device memory, nbins uint64 values).
/// a and b are device arrays in structure-of-arrays form (x[0..n), y, z). With same_species
/// only pairs i < j of a are counted and b is ignored. Rows [row_begin, row_end) of a.
template <class T>
cudaError_t launch_pair_histogram(HistogramKernel kernel, const T* a, int64_t na, const T* b,
                                  int64_t nb, bool same_species, int64_t row_begin, int64_t row_end,
                                  const HistogramParams<T>& params, unsigned long long* hist,
                                  cudaStream_t stream);

/// dst[k] += src[k] for k < n (64-bit histogram reduction).
cudaError_t launch_add_histogram(unsigned long long* dst, const unsigned long long* src, int64_t n,
                                 cudaStream_t stream);

}  // namespace pairhist::cuda
