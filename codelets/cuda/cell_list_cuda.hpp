// CUDA cell-list pair-histogram kernels. Plain CUDA: no StarPU here. The GPU sorts a species'
// points into the frame's cells itself (from the coordinates already on the device), then counts
// the pairs of neighbouring cells (include/pairhist/cell_grid.hpp) with the same arithmetic as
// every other kernel, so the histograms equal the CPU's and the all-pairs kernels' bit for bit.
// Launchers enqueue on the given stream and return the launch status; they never synchronise.
#pragma once

#include <cuda_runtime_api.h>

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

/// Adds to hist[0..nbins) (device, 64-bit) the bins of the pairs (i in a, j in b) whose i lies in
/// a home cell with key in [key_begin, key_end) and j in that cell's stencil; with same_species
/// (b is a) each unordered pair once (cells of higher key, j > i within the home cell). Adds the
/// pairs examined (candidates) to hist[nbins]. Launches with the same `a` must not overlap (they
/// share a.work); a and b must come from build_cells with this grid. `slices` work items per home
/// cell (1..8; 0: as many as keep the GPU's warps busy) changes the speed, never the counts.
template <class T>
cudaError_t launch_cell_histogram(const DeviceCells<T>& a, const DeviceCells<T>& b,
                                  bool same_species, const CellGrid& grid, int64_t key_begin,
                                  int64_t key_end, const HistogramParams<T>& params,
                                  unsigned long long* hist, cudaStream_t stream, int slices = 0);

/// One species pair of launch_cell_histograms: as the arguments of launch_cell_histogram.
template <class T>
struct CellPairLaunch {
  const DeviceCells<T>* a = nullptr;
  const DeviceCells<T>* b = nullptr;  // unused when same_species
  bool same_species = false;
  int64_t key_begin = 0, key_end = 0;
  unsigned long long* hist = nullptr;
};

/// launch_cell_histogram for several species pairs of one frame in one launch: one ramp-up and
/// one tail for all of them, the largest pair's cells first, so a small frame's pairs keep the GPU
/// busy together (W1 at 1e5 atoms: three launches spent a quarter of their time starting and
/// ending). Counts equal those of separate launches. Pairs whose counters do not all fit in
/// shared memory at once go in several launches, one after the other on the stream. Every launch
/// uses pairs[0].a's work counter: launches with that counter must not overlap.
template <class T>
cudaError_t launch_cell_histograms(const CellPairLaunch<T>* pairs, int count, const CellGrid& grid,
                                   const HistogramParams<T>& params, cudaStream_t stream,
                                   int slices = 0);

/// Loads the kernels of cell lists in precision T (sort and count, every box kind) into the
/// current device's context. CUDA loads a kernel at its first launch: the first frame's tasks
/// then held the GPU ~20 ms (W1 at 1.36M atoms, H100), while a caller can load them ahead, e.g.
/// while it reads its inputs. Synchronises the device.
template <class T>
cudaError_t load_cell_kernels();
/// The sort's part of load_cell_kernels (cell_build_cuda.cu).
template <class T>
cudaError_t load_build_kernels();

}  // namespace pairhist::cuda
