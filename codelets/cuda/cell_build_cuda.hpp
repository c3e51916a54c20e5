// CUDA cell lists, the data structure: the GPU sorts a species' points into the frame's cells
// itself (from the coordinates already on the device), for the counting kernels of
// cell_histogram_cuda.hpp. Plain CUDA: no StarPU here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "pairhist/cell_grid.hpp"

namespace pairhist::cuda {

/// A species sorted into cells on the device: its points as the kernels load them (bin units,
/// x, y, z and a pad in 4 * sizeof(T) bytes each), sorted by cell key, and where each cell's
/// points start (cell_start[key] .. cell_start[key + 1], keys + 1 entries). Points within a cell
/// may come in any order: the counts do not depend on it.
template <class T>
struct DeviceCells {
  const T* points = nullptr;  // 4 values per point
  const int32_t* cell_start = nullptr;
  // Morton and Hilbert orders: the key of every cell of the grid, indexed row-major
  // (x + n0 (y + n1 z)), so the counting kernels look neighbour keys up instead of computing
  // curve keys per stencil cell; null for row-major keys.
  const int32_t* cell_keys = nullptr;
  // Two counters with which the counting kernels hand out home cells (zero between launches):
  // launches whose `a` is these cells must run one at a time (on one stream).
  uint32_t* work = nullptr;
  int64_t n = 0;
  int64_t keys = 0;
};

/// Device memory for sorting one species (points, cell starts, keys and counters). Grows on
/// demand (cudaMalloc only when a larger frame arrives); one per species a worker keeps.
class CellWorkspace {
 public:
  CellWorkspace() = default;
  ~CellWorkspace();
  CellWorkspace(const CellWorkspace&) = delete;
  CellWorkspace& operator=(const CellWorkspace&) = delete;
  /// Makes room for n points of value_size bytes each and keys cells.
  cudaError_t reserve(int64_t n, int64_t keys, size_t value_size);
  void* points = nullptr;
  int32_t* cell_start = nullptr;
  int32_t* cell_keys = nullptr;  // keys + 1 entries: a grid never has more cells than keys
  int32_t* scratch = nullptr;    // per-cell counters, per-point keys and ranks
  void* scan_temp = nullptr;     // the prefix sum's temporary storage
  uint32_t* work = nullptr;      // DeviceCells::work
  int64_t zeroed_slots = 0;      // leading scratch entries known zero (the next build's counters)
  int64_t point_capacity = 0, key_capacity = 0, scratch_capacity = 0;
  size_t point_bytes = 0, scan_temp_bytes = 0;
};

/// Sorts the n points of `soa` (device, x[0..n), y, z in T) into the grid's cells, into ws.
/// The cell of a point comes from its raw coordinates (cells::cell_of_point, identical to the
/// CPU's); the stored coordinates are `loaded` (geometry.hpp). Needs n and grid.keys below 2^31.
/// May allocate (ws.reserve), so it can synchronise the device when a frame outgrows ws.
template <class T>
cudaError_t build_cells(const T* soa, int64_t n, const CellGrid& grid,
                        const HistogramParams<T>& params, CellWorkspace& ws, DeviceCells<T>& out,
                        cudaStream_t stream);

/// The sort's part of load_cell_kernels (cell_histogram_cuda.hpp).
template <class T>
cudaError_t load_build_kernels();

}  // namespace pairhist::cuda
