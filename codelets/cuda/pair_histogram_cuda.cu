#include <algorithm>

#include "pair_histogram_cuda.hpp"

namespace pairhist::cuda {
namespace {

constexpr int kThreads = 256;  // rows of a per block, and columns of b per shared tile
constexpr int kTilesPerBlock = 8;  // columns per block = 2048, so a block counts < 2^32 pairs
__device__ __forceinline__ int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }
__device__ __forceinline__ int64_t max64(int64_t x, int64_t y) { return x > y ? x : y; }

constexpr int64_t kColumnsPerBlock = int64_t(kThreads) * kTilesPerBlock;
static_assert(int64_t(kThreads) * kColumnsPerBlock < (int64_t(1) << 32),
              "a block's 32-bit shared counters must not overflow");

template <BoxKind K, class T, bool SharedHistogram>
__global__ void __launch_bounds__(kThreads)
    pair_histogram_kernel(const T* __restrict__ a, int64_t na, const T* __restrict__ b, int64_t nb,
                          bool same, int64_t row_begin, int64_t row_end, HistogramParams<T> p,
                          unsigned long long* __restrict__ hist) {
  extern __shared__ unsigned int shared_counts[];  // nbins + 1 (the last swallows misses)
  __shared__ T tile_x[kThreads], tile_y[kThreads], tile_z[kThreads];

  const int64_t block_row = row_begin + int64_t(blockIdx.x) * kThreads;
  const int64_t j_begin = int64_t(blockIdx.y) * kColumnsPerBlock;
  const int64_t j_end = min64(nb, j_begin + kColumnsPerBlock);
  // Same species: a block whose columns all lie on or below the diagonal has nothing to count.
  if (same && j_end <= block_row + 1) return;

  if (SharedHistogram) {
    for (int k = threadIdx.x; k <= p.nbins; k += kThreads) shared_counts[k] = 0;
  }
  const int64_t i = block_row + threadIdx.x;
  const bool active = i < row_end;
  T xi = 0, yi = 0, zi = 0;
  if (active) {
    xi = a[i];
    yi = a[na + i];
    zi = a[2 * na + i];
  }
  for (int64_t j0 = j_begin; j0 < j_end; j0 += kThreads) {
    __syncthreads();
    const int64_t jl = j0 + threadIdx.x;
    if (jl < j_end) {
      tile_x[threadIdx.x] = b[jl];
      tile_y[threadIdx.x] = b[nb + jl];
      tile_z[threadIdx.x] = b[2 * nb + jl];
    }
    __syncthreads();
    if (!active) continue;
    const int count = int(min64(kThreads, j_end - j0));
    int first = 0;
    if (same) first = int(max64(0, min64(count, i + 1 - j0)));
    for (int jj = first; jj < count; ++jj) {
      const T d2 = distance2<K>(p.box, fp::sub(tile_x[jj], xi), fp::sub(tile_y[jj], yi),
                                fp::sub(tile_z[jj], zi));
      const int bin = bin_of(d2, p.scale, p.nbins);
      if (SharedHistogram) {
        atomicAdd(&shared_counts[bin], 1u);
      } else if (bin < p.nbins) {
        atomicAdd(&hist[bin], 1ull);
      }
    }
  }
  if (SharedHistogram) {
    __syncthreads();
    for (int k = threadIdx.x; k < p.nbins; k += kThreads) {
      const unsigned int c = shared_counts[k];
      if (c) atomicAdd(&hist[k], static_cast<unsigned long long>(c));
    }
  }
}

__global__ void add_histogram_kernel(unsigned long long* dst, const unsigned long long* src,
                                     int64_t n) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < n;
       k += int64_t(gridDim.x) * blockDim.x)
    dst[k] += src[k];
}

template <BoxKind K, class T>
cudaError_t launch_for_box(HistogramKernel kernel, const T* a, int64_t na, const T* b, int64_t nb,
                           bool same, int64_t row_begin, int64_t row_end,
                           const HistogramParams<T>& p, unsigned long long* hist,
                           cudaStream_t stream) {
  const int64_t rows = row_end - row_begin;
  const int64_t columns = same ? na : nb;
  const int64_t grid_x = (rows + kThreads - 1) / kThreads;
  const int64_t grid_y = (columns + kColumnsPerBlock - 1) / kColumnsPerBlock;
  if (grid_x > 0x7fffffff || grid_y > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  const T* columns_ptr = same ? a : b;
  if (kernel == HistogramKernel::shared_memory) {
    const size_t shared_bytes = (static_cast<size_t>(p.nbins) + 1) * sizeof(unsigned int);
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    if (p.nbins > max_shared_memory_bins(device)) return cudaErrorInvalidValue;
    auto* fn = pair_histogram_kernel<K, T, true>;
    err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes));
    if (err != cudaSuccess) return err;
    fn<<<grid, kThreads, shared_bytes, stream>>>(a, na, columns_ptr, columns, same, row_begin,
                                                 row_end, p, hist);
  } else {
    pair_histogram_kernel<K, T, false>
        <<<grid, kThreads, 0, stream>>>(a, na, columns_ptr, columns, same, row_begin, row_end, p,
                                        hist);
  }
  return cudaGetLastError();
}

}  // namespace

int max_shared_memory_bins(int device) {
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess)
    return 0;
  // Leave room for the static coordinate tiles (3 * kThreads * sizeof(double)) and the miss bin.
  const int static_bytes = 3 * kThreads * static_cast<int>(sizeof(double));
  return (optin - static_bytes) / static_cast<int>(sizeof(unsigned int)) - 1;
}

template <class T>
cudaError_t launch_pair_histogram(HistogramKernel kernel, const T* a, int64_t na, const T* b,
                                  int64_t nb, bool same_species, int64_t row_begin,
                                  int64_t row_end, const HistogramParams<T>& params,
                                  unsigned long long* hist, cudaStream_t stream) {
  row_begin = std::max<int64_t>(0, row_begin);
  row_end = std::min(row_end, na);
  if (row_begin >= row_end || params.nbins <= 0 || (!same_species && nb <= 0)) return cudaSuccess;
  switch (params.box.kind) {
    case BoxKind::orthorhombic:
      return launch_for_box<BoxKind::orthorhombic>(kernel, a, na, b, nb, same_species, row_begin,
                                                   row_end, params, hist, stream);
    case BoxKind::triclinic:
      return launch_for_box<BoxKind::triclinic>(kernel, a, na, b, nb, same_species, row_begin,
                                                row_end, params, hist, stream);
    default:
      return launch_for_box<BoxKind::none>(kernel, a, na, b, nb, same_species, row_begin, row_end,
                                           params, hist, stream);
  }
}

cudaError_t launch_add_histogram(unsigned long long* dst, const unsigned long long* src, int64_t n,
                                 cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, 1024);
  add_histogram_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(dst, src, n);
  return cudaGetLastError();
}

template cudaError_t launch_pair_histogram<float>(HistogramKernel, const float*, int64_t,
                                                  const float*, int64_t, bool, int64_t, int64_t,
                                                  const HistogramParams<float>&,
                                                  unsigned long long*, cudaStream_t);
template cudaError_t launch_pair_histogram<double>(HistogramKernel, const double*, int64_t,
                                                   const double*, int64_t, bool, int64_t, int64_t,
                                                   const HistogramParams<double>&,
                                                   unsigned long long*, cudaStream_t);

}  // namespace pairhist::cuda
