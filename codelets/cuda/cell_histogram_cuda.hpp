// CUDA cell-list pair-histogram kernels. Plain CUDA: no StarPU here. They count the pairs of
// neighbouring cells (include/pairhist/cell_grid.hpp) of species the GPU sorted into cells
// (cell_build_cuda.hpp) with the same arithmetic as every other kernel, so the histograms equal
// the CPU's and the all-pairs kernels' bit for bit.
// Launchers enqueue on the given stream and return the launch status; they never synchronise.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "codelets/cuda/cell_build_cuda.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::cuda {

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

}  // namespace pairhist::cuda
