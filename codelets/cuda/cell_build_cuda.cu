// Sorting a species into the frame's cells on the GPU: a counting sort in three launches (key and
// rank of every point, a prefix sum over the cells, a scatter). The rank within a cell comes from
// an atomic, so points of a cell land in any order; the counting kernels do not depend on it.
#include <algorithm>
#include <climits>
#include <cub/device/device_scan.cuh>

#include "codelets/cuda/cell_build_cuda.hpp"
#include "codelets/cuda/kernel_common.cuh"

namespace pairhist::cuda {
namespace {

constexpr int kBuildThreads = 256;

/// Blocks for a grid-stride loop over n items: enough to fill the GPU, no more than needed.
unsigned build_blocks(int64_t n) {
  const int64_t blocks = (n + kBuildThreads - 1) / kBuildThreads;
  return static_cast<unsigned>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

/// Key of every point from its raw coordinates (exactly as the CPU computes it) and its rank
/// among the points of its cell.
template <class T>
__global__ void __launch_bounds__(kBuildThreads)
    cell_key_kernel(const T* __restrict__ soa, int64_t n, CellGrid grid, int32_t* __restrict__ keys,
                    int32_t* __restrict__ ranks, int32_t* __restrict__ counts) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const auto key = static_cast<int32_t>(cells::key_of_point(grid, static_cast<double>(soa[i]),
                                                              static_cast<double>(soa[n + i]),
                                                              static_cast<double>(soa[2 * n + i])));
    keys[i] = key;
    ranks[i] = atomicAdd(&counts[key], 1);
  }
}

/// Moves every point to its place in key order, as the kernels load it. Also zeroes the per-cell
/// counters (the prefix sum has read them) for the next build, and the counting kernels' work
/// counters, which saves two launches per build.
template <BoxKind K, class T>
__global__ void __launch_bounds__(kBuildThreads)
    cell_scatter_kernel(const T* __restrict__ soa, int64_t n, const int32_t* __restrict__ keys,
                        const int32_t* __restrict__ ranks, const int32_t* __restrict__ cell_start,
                        HistogramParams<T> p, Point<T>* __restrict__ out, int32_t* counts,
                        int64_t slots, uint32_t* work) {
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = first; k < slots; k += stride) counts[k] = 0;
  if (first < 2) work[first] = 0;
  for (int64_t i = first; i < n; i += stride) {
    const int32_t at = cell_start[keys[i]] + ranks[i];
    out[at] = {loaded<K>(soa[i], p, 0), loaded<K>(soa[n + i], p, 1),
               loaded<K>(soa[2 * n + i], p, 2), T(0)};
  }
}

/// Key of every cell of the grid, indexed row-major (curve orders only).
__global__ void __launch_bounds__(kBuildThreads)
    cell_key_table_kernel(CellGrid grid, int32_t* __restrict__ table, int64_t cells) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cells;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = c / grid.n[0];
    const CellIndex cell{static_cast<int>(c - row * grid.n[0]), static_cast<int>(row % grid.n[1]),
                         static_cast<int>(row / grid.n[1])};
    table[c] = static_cast<int32_t>(cells::key_of(grid, cell));
  }
}

/// Makes *p hold at least `wanted` bytes (contents are not kept).
cudaError_t grow(void** p, size_t& capacity, size_t wanted) {
  wanted = std::max<size_t>(wanted, 1);
  if (*p && wanted <= capacity) return cudaSuccess;
  cudaFree(*p);
  *p = nullptr;
  capacity = 0;
  const cudaError_t err = cudaMalloc(p, wanted);
  if (err == cudaSuccess) capacity = wanted;
  return err;
}

template <BoxKind K, class T>
cudaError_t scatter(const T* soa, int64_t n, const int32_t* keys, const int32_t* ranks,
                    const CellWorkspace& ws, const HistogramParams<T>& p, int32_t* counts,
                    int64_t slots, cudaStream_t stream) {
  cell_scatter_kernel<K, T><<<build_blocks(std::max(n, slots)), kBuildThreads, 0, stream>>>(
      soa, n, keys, ranks, ws.cell_start, p, static_cast<Point<T>*>(ws.points), counts, slots,
      ws.work);
  return cudaGetLastError();
}

}  // namespace

CellWorkspace::~CellWorkspace() {
  cudaFree(points);
  cudaFree(cell_start);
  cudaFree(cell_keys);
  cudaFree(scratch);
  cudaFree(scan_temp);
  cudaFree(work);
}

cudaError_t CellWorkspace::reserve(int64_t n, int64_t keys, size_t value_size) {
  const auto entries = [](int64_t count) { return static_cast<size_t>(count) * sizeof(int32_t); };
  cudaError_t err = grow(&points, point_bytes, static_cast<size_t>(n) * 4 * value_size);
  point_capacity = static_cast<int64_t>(point_bytes / (4 * value_size));
  if (err != cudaSuccess) return err;
  size_t bytes = entries(key_capacity);
  size_t table_bytes = bytes;
  err = grow(reinterpret_cast<void**>(&cell_start), bytes, entries(keys + 1));
  if (err == cudaSuccess)
    err = grow(reinterpret_cast<void**>(&cell_keys), table_bytes, entries(keys + 1));
  key_capacity = static_cast<int64_t>(std::min(bytes, table_bytes) / sizeof(int32_t));
  if (err != cudaSuccess) return err;
  // Per point a key and a rank, per cell a counter.
  bytes = entries(scratch_capacity);
  const int32_t* before = scratch;
  err = grow(reinterpret_cast<void**>(&scratch), bytes, entries(2 * n + keys + 1));
  scratch_capacity = static_cast<int64_t>(bytes / sizeof(int32_t));
  if (err != cudaSuccess) return err;
  if (scratch != before) zeroed_slots = 0;
  if (!work) {
    if ((err = cudaMalloc(reinterpret_cast<void**>(&work), 2 * sizeof(uint32_t))) != cudaSuccess)
      return err;
    if ((err = cudaMemset(work, 0, 2 * sizeof(uint32_t))) != cudaSuccess) return err;
  }
  size_t temp = 0;
  err = cub::DeviceScan::ExclusiveSum(nullptr, temp, static_cast<const int32_t*>(nullptr),
                                      static_cast<int32_t*>(nullptr), keys + 1);
  if (err != cudaSuccess) return err;
  return grow(&scan_temp, scan_temp_bytes, temp);
}

template <class T>
cudaError_t build_cells(const T* soa, int64_t n, const CellGrid& grid,
                        const HistogramParams<T>& params, CellWorkspace& ws, DeviceCells<T>& out,
                        cudaStream_t stream) {
  const int64_t cells = int64_t(grid.n[0]) * grid.n[1] * grid.n[2];
  // 32-bit keys and cell starts; every cell of the grid has a key.
  if (n < 0 || n > INT_MAX || grid.keys < 1 || grid.keys >= INT_MAX || cells > grid.keys)
    return cudaErrorInvalidValue;
  cudaError_t err = ws.reserve(n, grid.keys, sizeof(T));
  if (err != cudaSuccess) return err;
  // Scratch: the per-cell counters first (the last build left its own zero), then per point a
  // key and a rank.
  const int64_t slots = grid.keys + 1;
  int32_t* counts = ws.scratch;
  int32_t* keys = ws.scratch + slots;
  int32_t* ranks = keys + n;
  if (slots > ws.zeroed_slots) {
    if ((err = cudaMemsetAsync(counts, 0, static_cast<size_t>(slots) * sizeof(int32_t), stream)) !=
        cudaSuccess)
      return err;
    ws.zeroed_slots = slots;
  }
  const int64_t zeroed = ws.zeroed_slots;
  ws.zeroed_slots = 0;  // until the scatter has zeroed the counters again
  if (n > 0) {
    cell_key_kernel<T>
        <<<build_blocks(n), kBuildThreads, 0, stream>>>(soa, n, grid, keys, ranks, counts);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
  }
  size_t temp = ws.scan_temp_bytes;
  if ((err = cub::DeviceScan::ExclusiveSum(ws.scan_temp, temp, counts, ws.cell_start, slots,
                                           stream)) != cudaSuccess)
    return err;
  if (n > 0) {
    err = dispatch_box_kind(params.box.kind, [&](auto kind) {
      return scatter<decltype(kind)::value>(soa, n, keys, ranks, ws, params, counts, slots, stream);
    });
    if (err != cudaSuccess) return err;
  }
  // The scatter zeroed the counters; the keys and ranks after them are not.
  ws.zeroed_slots = n > 0 ? slots : zeroed;
  const bool curve = grid.order != CellOrder::row_major;
  if (curve) {
    cell_key_table_kernel<<<build_blocks(cells), kBuildThreads, 0, stream>>>(grid, ws.cell_keys,
                                                                             cells);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
  }
  out.points = static_cast<const T*>(ws.points);
  out.cell_start = ws.cell_start;
  out.cell_keys = curve ? ws.cell_keys : nullptr;
  out.work = ws.work;
  out.n = n;
  out.keys = grid.keys;
  return cudaSuccess;
}

template <class T>
cudaError_t load_build_kernels() {
  cudaFuncAttributes attributes;
  cudaError_t err = cudaFuncGetAttributes(&attributes, cell_key_kernel<T>);
  for (const void* kernel :
       {reinterpret_cast<const void*>(cell_scatter_kernel<BoxKind::none, T>),
        reinterpret_cast<const void*>(cell_scatter_kernel<BoxKind::orthorhombic, T>),
        reinterpret_cast<const void*>(cell_scatter_kernel<BoxKind::triclinic, T>),
        reinterpret_cast<const void*>(cell_key_table_kernel)})
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attributes, kernel);
  if (err != cudaSuccess) return err;
  // The prefix sum's kernels are CUB's: a scan of two counters loads them.
  int32_t* counts = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  err = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, counts, 2);
  if (err == cudaSuccess) err = cudaMalloc(reinterpret_cast<void**>(&counts), 4 * sizeof(int32_t));
  if (err == cudaSuccess) err = cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1));
  if (err == cudaSuccess) err = cudaMemset(counts, 0, 4 * sizeof(int32_t));
  if (err == cudaSuccess)
    err = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, counts + 2, 2, cudaStream_t{});
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  cudaFree(temp);
  cudaFree(counts);
  return err;
}

template cudaError_t load_build_kernels<float>();
template cudaError_t load_build_kernels<double>();

template cudaError_t build_cells<float>(const float*, int64_t, const CellGrid&,
                                        const HistogramParams<float>&, CellWorkspace&,
                                        DeviceCells<float>&, cudaStream_t);
template cudaError_t build_cells<double>(const double*, int64_t, const CellGrid&,
                                         const HistogramParams<double>&, CellWorkspace&,
                                         DeviceCells<double>&, cudaStream_t);

}  // namespace pairhist::cuda
