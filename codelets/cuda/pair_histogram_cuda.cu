#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "codelets/cuda/bin_roots.cuh"
#include "codelets/cuda/kernel_common.cuh"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "pairhist/environment.hpp"

namespace pairhist::cuda {
namespace {

// Block shape: kThreads threads (1024 for wide histograms, see Shape), each holding kRows rows of
// a in registers, sweep a run of columns of b staged through shared memory a tile at a time.
constexpr int kThreads = 256;
constexpr int kRows = 4;
constexpr int kBlockRows = kThreads * kRows;
constexpr int kTile = 256;
// Enough blocks to fill the GPU several times over (the same-species triangle leaves some idle),
// while each block's zeroing and flushing of its histogram stays small against its pairs.
constexpr int64_t kTargetBlocks = 8192;

__device__ __forceinline__ int64_t min64(int64_t x, int64_t y) {
  return x < y ? x : y;
}

/// Point i in bin units (scaled here, once per load, so no pair multiplies by the scale; in a
/// rectangular cell also moved into the cell, see `loaded`). Rows or
/// columns past the end are NaN: their distances are NaN, whose bin is the miss bin, so the inner
/// loop needs no bounds checks.
template <BoxKind K, class T>
__device__ __forceinline__ Point<T> load_point(const T* __restrict__ soa, int64_t n, int64_t i,
                                               int64_t end, const HistogramParams<T>& p) {
  if (i < end)
    return {loaded<K>(soa[i], p, 0), loaded<K>(soa[n + i], p, 1), loaded<K>(soa[2 * n + i], p, 2),
            T(0)};
  return nan_point<T>();
}

/// Counts pairs (i, j) whose bin lies in [bin_begin, bin_begin + window) into shared counters;
/// with Windowed == false the window is all nbins bins plus the miss bin.
/// Row k of a thread is row0 + k * RowStride (Threads: rows interleaved across the block; 1: a
/// thread's rows consecutive, so a warp's rows are 4 x 32 consecutive points). FixedImages: see
/// distance2_triclinic.
template <int Threads, BoxKind K, class T, bool Shifted, bool Windowed, bool Diagonal,
          int RowStride = Threads, int FixedImages = 0>
__device__ __forceinline__ void count_tile(const Point<T> (&rows)[kRows], const int64_t row0,
                                           const Point<T>* tile, int64_t j0, int columns,
                                           const HistogramParams<T>& p, ImageTable<T> images,
                                           int bin_begin, int window, unsigned int* counts) {
  // Single precision (nbins < 2^23, see launch_for_box): bins come biased by kBinBias. One
  // window: the counter of bin k lies at biased_base + 4 * (k + kBinBias), so the biased bin goes
  // straight into the address (modulo 2^32, like all shared addresses). Windows subtract
  // kBinBias + bin_begin instead of bin_begin.
  const unsigned shared_counts = static_cast<unsigned>(__cvta_generic_to_shared(counts));
  const unsigned biased_base = shared_counts - kBinBias * 4u;
  const unsigned biased_window_begin = kBinBias + static_cast<unsigned>(bin_begin);
#pragma unroll 2
  for (int jj = 0; jj < columns; ++jj) {
    const Point<T> q = tile[jj];
    T r[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      r[k] = pair_distance2<K, T, FixedImages>(p.box, images, fp::sub(q.x, rows[k].x),
                                               fp::sub(q.y, rows[k].y), fp::sub(q.z, rows[k].z));
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const bool above_diagonal = !Diagonal || j0 + jj > row0 + int64_t(k) * RowStride;
      if constexpr (sizeof(T) == 4) {
        const unsigned biased = biased_bin<Shifted>(root_for_bin(r[k]), p);
        if constexpr (Windowed) {
          const unsigned local = biased - biased_window_begin;
          if (above_diagonal && local < static_cast<unsigned>(window))
            add_one_shared(shared_counts + local * 4u);
        } else if (above_diagonal) {
          add_one_shared(biased_base + biased * 4u);
        }
        continue;
      }
      const int bin = bin_of_root<Shifted>(root_for_bin(r[k]), p);
      if (Windowed) {
        const unsigned local = static_cast<unsigned>(bin - bin_begin);
        if (above_diagonal && local < static_cast<unsigned>(window)) atomicAdd(&counts[local], 1u);
      } else if (above_diagonal) {
        atomicAdd(&counts[bin], 1u);
      }
    }
  }
}

/// Axis-aligned bounds over the 32 lanes of a warp (every lane returns them); NaN padding is
/// ignored by fmin/fmax, so padding alone gives empty bounds (+inf..-inf).
template <class T>
__device__ __forceinline__ void warp_bounds(T (&lo)[3], T (&hi)[3]) {
#pragma unroll
  for (int c = 0; c < 3; ++c)
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      lo[c] = fmin(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], offset));
      hi[c] = fmax(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], offset));
    }
}

/// Whether no pair between two boxes of (bin-unit) points can fall into bins [bin_lo, bin_hi):
/// their distances lie within [dmin, dmax] of the boxes, and a computed bin is within a few
/// roundings (relative 2^-21 in single precision) of the exact distance, so a 1e-5 relative
/// margin keeps the test conservative. Non-periodic distances only.
template <class T>
__device__ __forceinline__ bool outside_bins(const T (&rlo)[3], const T (&rhi)[3],
                                             const T (&tlo)[3], const T (&thi)[3], double bin_lo,
                                             double bin_hi) {
  double near2 = 0, far2 = 0;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    const double gap = fmax(0.0, fmax(double(tlo[c]) - rhi[c], double(rlo[c]) - thi[c]));
    const double span = fmax(double(thi[c]) - rlo[c], double(rhi[c]) - tlo[c]);
    near2 += gap * gap;
    far2 += span * span;
  }
  return sqrt(far2) * (1 + 1e-5) < bin_lo || sqrt(near2) * (1 - 1e-5) >= bin_hi;
}

/// Threads per block of the shared-memory kernel: 256 while several blocks fit on an SM; 1024 when
/// a wide histogram's window fills the shared memory, so the one block per SM still has 32 warps
/// to hide latency.
template <int Threads>
struct Shape {
  static constexpr int block_rows = Threads * kRows;
  static constexpr int tile = Threads;
  // Columns per block such that block_rows * columns < 2^32 (32-bit shared counters).
  static constexpr int64_t max_columns = ((int64_t(1) << 32) - 1) / block_rows / tile * tile;
};

/// Shifted: bins from r_min > 0 (p.lower), an instantiation of its own (see biased_bin).
template <int Threads, BoxKind K, class T, bool Windowed, bool Shifted>
__global__ void __launch_bounds__(Threads)
    shared_histogram_kernel(const T* __restrict__ a, int64_t na, const T* __restrict__ b,
                            int64_t nb, bool same, int64_t row_begin, int64_t row_end,
                            int64_t columns_per_block, HistogramParams<T> p, int window,
                            unsigned long long* __restrict__ hist) {
  using S = Shape<Threads>;
  // Dynamic shared memory: the triclinic image table (if any), then the window's bins (+ the
  // miss bin when not windowed).
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  auto* table = reinterpret_cast<ImageShift<T>*>(dynamic_shared);
  unsigned int* counts =
      reinterpret_cast<unsigned int*>(dynamic_shared + image_table_bytes<K>(p.box));
  __shared__ Point<T> tile[S::tile];

  const int64_t block_row = row_begin + int64_t(blockIdx.x) * S::block_rows;
  const int64_t j_begin = int64_t(blockIdx.y) * columns_per_block;
  const int64_t j_end = min64(nb, j_begin + columns_per_block);
  // Same species: nothing to count where every column lies on or below the diagonal.
  if (same && j_end <= block_row + 1) return;
  const int bin_begin = Windowed ? int(blockIdx.z) * window : 0;
  const int slots = Windowed ? min(window, p.nbins - bin_begin) : p.nbins + 1;

  for (int k = threadIdx.x; k < slots; k += Threads) counts[k] = 0;
  const ImageTable<T> images = stage_image_table<K>(p.box, table);  // first read after a barrier
  Point<T> rows[kRows];
  constexpr int kRowStride = (Windowed && K == BoxKind::none) ? 1 : Threads;
  const int64_t row0 = block_row + threadIdx.x * (kRowStride == 1 ? kRows : 1);
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    rows[r] = load_point<K>(a, na, row0 + int64_t(r) * kRowStride, row_end, p);
  // A window of a wide histogram without a box: each warp skips the 32-column chunks of a tile
  // whose points are all too near or too far from the warp's rows for the window's bins (input in
  // spatial order makes that most chunks of some windows: see spatial_order.hpp). A thread then
  // holds 4 consecutive rows, so a warp's 128 rows are neighbours too.
  constexpr bool kPrune = Windowed && K == BoxKind::none;
  __shared__ T chunk_bounds[kPrune ? 6 * S::tile / 32 : 1];
  T row_lo[3], row_hi[3];
  if constexpr (kPrune) {
    row_lo[0] = row_lo[1] = row_lo[2] = T(INFINITY);
    row_hi[0] = row_hi[1] = row_hi[2] = T(-INFINITY);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      row_lo[0] = fmin(row_lo[0], rows[r].x), row_hi[0] = fmax(row_hi[0], rows[r].x);
      row_lo[1] = fmin(row_lo[1], rows[r].y), row_hi[1] = fmax(row_hi[1], rows[r].y);
      row_lo[2] = fmin(row_lo[2], rows[r].z), row_hi[2] = fmax(row_hi[2], rows[r].z);
    }
    warp_bounds(row_lo, row_hi);
  }
  for (int64_t j0 = j_begin; j0 < j_end; j0 += S::tile) {
    // Same species: tiles wholly at or below the diagonal are skipped; tiles that cross it check
    // j > i per pair. Both decisions are uniform across the block.
    if (same && j0 + S::tile - 1 <= block_row) continue;
    const bool diagonal = same && j0 <= block_row + S::block_rows - 1;
    __syncthreads();
    const Point<T> q = load_point<K>(b, nb, j0 + threadIdx.x, j_end, p);
    tile[threadIdx.x] = q;
    if constexpr (kPrune) {
      T lo[3] = {q.x, q.y, q.z}, hi[3] = {q.x, q.y, q.z};
      warp_bounds(lo, hi);
      if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int c = 0; c < 3; ++c) {
          chunk_bounds[6 * (threadIdx.x / 32) + c] = lo[c];
          chunk_bounds[6 * (threadIdx.x / 32) + 3 + c] = hi[c];
        }
    }
    __syncthreads();
    // A short last tile (small species) is swept only as far as it has columns.
    const int columns = static_cast<int>(min64(S::tile, j_end - j0));
    if constexpr (kPrune) {
      for (int c0 = 0; c0 < columns; c0 += 32) {
        const T* cb = chunk_bounds + 6 * (c0 / 32);
        const T lo[3] = {cb[0], cb[1], cb[2]}, hi[3] = {cb[3], cb[4], cb[5]};
        const double first = double(p.lower) + bin_begin;  // bin k spans [lower + k, lower + k + 1)
        if (outside_bins(row_lo, row_hi, lo, hi, first, first + slots)) continue;
        const int n = min(32, columns - c0);
        if (diagonal)
          count_tile<Threads, K, T, Shifted, Windowed, true, 1>(
              rows, row0, tile + c0, j0 + c0, n, p, images, bin_begin, slots, counts);
        else
          count_tile<Threads, K, T, Shifted, Windowed, false, 1>(
              rows, row0, tile + c0, j0 + c0, n, p, images, bin_begin, slots, counts);
      }
      continue;
    }
    // Sweeps the tile with the triclinic candidate count fixed at compile time (0: read it).
    auto sweep = [&](auto fixed_images) {
      constexpr int F = decltype(fixed_images)::value;
      if (diagonal)
        count_tile<Threads, K, T, Shifted, Windowed, true, Threads, F>(
            rows, row0, tile, j0, columns, p, images, bin_begin, slots, counts);
      else
        count_tile<Threads, K, T, Shifted, Windowed, false, Threads, F>(
            rows, row0, tile, j0, columns, p, images, bin_begin, slots, counts);
    };
    // Triclinic cells of one or two candidates per octant (rhombic dodecahedron and hexagonal
    // prism: 1; truncated octahedron: 2) search without a run-time loop.
    if constexpr (K == BoxKind::triclinic) {
      if (p.box.octant_images == 1) {
        sweep(std::integral_constant<int, 1>{});
        continue;
      }
      if (p.box.octant_images == 2) {
        sweep(std::integral_constant<int, 2>{});
        continue;
      }
    }
    sweep(std::integral_constant<int, 0>{});
  }
  __syncthreads();
  const int flush = Windowed ? slots : p.nbins;
  for (int k = threadIdx.x; k < flush; k += Threads) {
    const unsigned int c = counts[k];
    if (c) atomicAdd(&hist[bin_begin + k], static_cast<unsigned long long>(c));
  }
}

/// Wide histograms without shared memory: one 64-bit global atomic per counted pair.
template <BoxKind K, class T>
__global__ void __launch_bounds__(kThreads)
    global_histogram_kernel(const T* __restrict__ a, int64_t na, const T* __restrict__ b,
                            int64_t nb, bool same, int64_t row_begin, int64_t row_end,
                            int64_t columns_per_block, HistogramParams<T> p,
                            unsigned long long* __restrict__ hist) {
  __shared__ Point<T> tile[kTile];
  __shared__ ImageShift<T> table[K == BoxKind::triclinic ? 8 * kMaxOctantImages : 1];
  const int64_t block_row = row_begin + int64_t(blockIdx.x) * kBlockRows;
  const int64_t j_begin = int64_t(blockIdx.y) * columns_per_block;
  const int64_t j_end = min64(nb, j_begin + columns_per_block);
  if (same && j_end <= block_row + 1) return;
  const ImageTable<T> images = stage_image_table<K>(p.box, table);  // first read after a barrier
  Point<T> rows[kRows];
  const int64_t row0 = block_row + threadIdx.x;
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    rows[r] = load_point<K>(a, na, row0 + int64_t(r) * kThreads, row_end, p);
  for (int64_t j0 = j_begin; j0 < j_end; j0 += kTile) {
    __syncthreads();
    tile[threadIdx.x] = load_point<K>(b, nb, j0 + threadIdx.x, j_end, p);
    __syncthreads();
    const int columns = static_cast<int>(min64(kTile, j_end - j0));
    for (int jj = 0; jj < columns; ++jj) {
      const Point<T> q = tile[jj];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (same && j0 + jj <= row0 + int64_t(r) * kThreads) continue;
        const T d2 = pair_distance2<K>(p.box, images, fp::sub(q.x, rows[r].x),
                                       fp::sub(q.y, rows[r].y), fp::sub(q.z, rows[r].z));
        const int bin = bin_of(d2, p);
        if (bin < p.nbins) atomicAdd(&hist[bin], 1ull);
      }
    }
  }
}

__global__ void add_histogram_kernel(unsigned long long* dst, const unsigned long long* src,
                                     int64_t n) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < n;
       k += int64_t(gridDim.x) * blockDim.x)
    dst[k] += src[k];
}

/// Bins per shared-memory window of a wide histogram: equal windows as wide as max_bins allows.
/// More, narrower windows would repeat the distance work once per window. The test hook
/// PAIRHIST_TEST_CUDA_WINDOW=W forces windows of W bins, also on narrow histograms, so that the
/// tests see many windows without wide histograms. Read under the environment's lock: launches
/// run on StarPU's workers while an engine may set StarPU's variables (pairhist/environment.hpp).
const char* forced_window() {
  return env_get("PAIRHIST_TEST_CUDA_WINDOW");
}

int window_bins(int nbins, int max_bins) {
  if (const char* env = forced_window()) {
    const int w = std::atoi(env);
    if (w > 0) return std::min(w, max_bins);
  }
  const int windows = (nbins + max_bins - 1) / max_bins;
  return (nbins + windows - 1) / windows;
}

/// Bins one block of the shared-memory kernel can hold next to its coordinate tile.
int shared_bins(int device, int tile_bytes) {
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess)
    return 0;
  return (optin - tile_bytes) / static_cast<int>(sizeof(unsigned int));
}

/// Columns per block: enough blocks to fill the GPU several times over, few enough that each
/// block's zeroing and flushing of its histogram stays small against its pairs.
int64_t columns_per_block(int64_t grid_x, int64_t columns, int tile, int64_t max_columns) {
  const int64_t tiles = (columns + tile - 1) / tile;
  const int64_t wanted_y = std::max<int64_t>(1, kTargetBlocks / std::max<int64_t>(grid_x, 1));
  const int64_t tiles_per_block = std::min<int64_t>(
      max_columns / tile, std::max<int64_t>(1, (tiles + wanted_y - 1) / wanted_y));
  return tiles_per_block * tile;
}

template <int Threads, BoxKind K, class T>
cudaError_t launch_shared(const T* a, int64_t na, const T* columns_ptr, int64_t columns, bool same,
                          int64_t row_begin, int64_t row_end, const HistogramParams<T>& p,
                          int window, bool windowed, unsigned long long* hist,
                          cudaStream_t stream) {
  using S = Shape<Threads>;
  const int64_t grid_x = (row_end - row_begin + S::block_rows - 1) / S::block_rows;
  const int64_t cpb = columns_per_block(grid_x, columns, S::tile, S::max_columns);
  const int64_t grid_y = (columns + cpb - 1) / cpb;
  if (grid_x > 0x7fffffff || grid_y > 65535) return cudaErrorInvalidConfiguration;
  const int windows = windowed ? (p.nbins + window - 1) / window : 1;
  const size_t shared_bytes =
      image_table_bytes<K>(p.box) + static_cast<size_t>(window) * sizeof(unsigned int);
  const dim3 grid{unsigned(grid_x), unsigned(grid_y), unsigned(windows)};
  const bool shifted = p.lower != T(0);
  auto* fn = windowed ? (shifted ? shared_histogram_kernel<Threads, K, T, true, true>
                                 : shared_histogram_kernel<Threads, K, T, true, false>)
                      : (shifted ? shared_histogram_kernel<Threads, K, T, false, true>
                                 : shared_histogram_kernel<Threads, K, T, false, false>);
  cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(shared_bytes));
  if (err != cudaSuccess) return err;
  fn<<<grid, Threads, shared_bytes, stream>>>(a, na, columns_ptr, columns, same, row_begin, row_end,
                                              cpb, p, window, hist);
  return cudaGetLastError();
}

template <BoxKind K, class T>
cudaError_t launch_for_box(HistogramKernel kernel, const T* a, int64_t na, const T* b, int64_t nb,
                           bool same, int64_t row_begin, int64_t row_end,
                           const HistogramParams<T>& p, unsigned long long* hist,
                           cudaStream_t stream) {
  const int64_t columns = same ? na : nb;
  const T* columns_ptr = same ? a : b;
  // The shared-memory kernels' single-precision bins (biased_bin) need nbins < 2^23; wider
  // histograms (beyond float's resolution of one bin anyway) take the global-memory kernel.
  if (sizeof(T) == 4 && p.nbins >= (1 << 23)) kernel = HistogramKernel::global_memory;
  if (kernel == HistogramKernel::global_memory) {
    using S = Shape<kThreads>;
    const int64_t grid_x = (row_end - row_begin + S::block_rows - 1) / S::block_rows;
    const int64_t cpb = columns_per_block(grid_x, columns, S::tile, S::max_columns);
    const int64_t grid_y = (columns + cpb - 1) / cpb;
    if (grid_x > 0x7fffffff || grid_y > 65535) return cudaErrorInvalidConfiguration;
    global_histogram_kernel<K, T>
        <<<dim3(unsigned(grid_x), unsigned(grid_y)), kThreads, 0, stream>>>(
            a, na, columns_ptr, columns, same, row_begin, row_end, cpb, p, hist);
    return cudaGetLastError();
  }
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  // Narrow histograms: 256-thread blocks, several per SM. Wide ones: 1024-thread blocks, one per
  // SM, windows as wide as the shared memory allows.
  const int table_bytes = static_cast<int>(image_table_bytes<K>(p.box));
  const int narrow_slots = shared_bins(device, kThreads * int(sizeof(Point<T>)) + table_bytes);
  if (p.nbins + 1 <= narrow_slots && !forced_window())
    return launch_shared<kThreads, K>(a, na, columns_ptr, columns, same, row_begin, row_end, p,
                                      p.nbins + 1, false, hist, stream);
  const int bounds_bytes = 6 * (1024 / 32) * int(sizeof(T));  // the kernel's chunk_bounds
  const int wide_slots =
      shared_bins(device, 1024 * int(sizeof(Point<T>)) + table_bytes + bounds_bytes);
  const int window = window_bins(p.nbins, wide_slots);
  return launch_shared<1024, K>(a, na, columns_ptr, columns, same, row_begin, row_end, p, window,
                                true, hist, stream);
}

}  // namespace

bool counts_in_windows(int device, int nbins) {
  return forced_window() || nbins > max_shared_memory_bins(device);
}

int max_shared_memory_bins(int device) {
  // One window of 256-thread blocks, double-precision tile, less the miss bin.
  return shared_bins(device, kThreads * static_cast<int>(sizeof(Point<double>))) - 1;
}

template <class T>
cudaError_t launch_pair_histogram(HistogramKernel kernel, const T* a, int64_t na, const T* b,
                                  int64_t nb, bool same_species, int64_t row_begin, int64_t row_end,
                                  const HistogramParams<T>& params, unsigned long long* hist,
                                  cudaStream_t stream) {
  row_begin = std::max<int64_t>(0, row_begin);
  row_end = std::min(row_end, na);
  if (row_begin >= row_end || params.nbins <= 0 || (!same_species && nb <= 0)) return cudaSuccess;
  // Blocks take kBlockRows rows: when all of a is fewer rows than b has, let b supply the rows.
  // Distances are symmetric bit for bit (every operation commutes with negating the
  // displacement, and the image search is symmetric), so the counts do not change.
  if (!same_species && row_begin == 0 && row_end == na && na < kBlockRows && nb > na) {
    std::swap(a, b);
    std::swap(na, nb);
    row_end = na;
  }
  return dispatch_box_kind(params.box.kind, [&](auto kind) {
    return launch_for_box<decltype(kind)::value>(kernel, a, na, b, nb, same_species, row_begin,
                                                 row_end, params, hist, stream);
  });
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
