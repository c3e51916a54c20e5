// StarPU glue for the cell-list kernels (codelets/cpu/cell_list_cpu.hpp,
// codelets/cuda/cell_list_cuda.hpp): one task counts the pairs of one species pair whose first
// point lies in a run of home cells (a key range of the frame's cell grid).
//
// Every worker sorts the frame's species into cells itself, once per frame and species: the CPU
// in main memory, the GPU on the device from the coordinates StarPU already moved there. Each
// worker keeps its sorted copies for the next task of the same frame (a few per worker), so a
// frame cut into many tasks is sorted once per worker, not once per task.
#pragma once

#include <starpu.h>

#include <cstdint>

#include "pair_histogram_codelet.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::codelets {

/// Arguments of one cell-list task (the task's cl_arg). Buffers: coordinates of species a (R),
/// of species b unless same_species (R), the pair's histogram of nbins + 1 uint64 (REDUX; the
/// kernels add the candidates they examined to the last entry).
struct CellHistogramArgs {
  Precision precision = Precision::single;
  int same_species = 0;
  int species_a = 0, species_b = 0;  // which species: with `frame` and `run`, the sort cache key
  uint64_t run = 0;                  // a number unique to the engine instance
  int64_t key_begin = 0, key_end = 0;
  uint64_t pairs = 0;              // estimated candidates: the perfmodel's size
  uint64_t frame = 0;              // the engine's frame number and task number, for the task trace
  uint64_t sequence = 0;           // (not part of the footprint)
  FrameGate* gate = nullptr;       // the engine's: a task of a frame it refuses counts nothing
  DeviceFaults* faults = nullptr;  // the engine's: where a CUDA failure goes (null: abort)
  CellGrid grid;
  HistogramParams<float> single_params;
  HistogramParams<double> double_params;
  int nbins() const {
    return precision == Precision::single ? single_params.nbins : double_params.nbins;
  }
  BoxKind box_kind() const { return grid.kind; }
};

starpu_codelet* cell_histogram_codelet();

/// A new number for CellHistogramArgs::run.
uint64_t next_cell_run();

/// Frees every worker's sorted species of engine run `run` (host and device), once that run's
/// tasks are done.
void release_cell_caches(uint64_t run);

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
void cell_histogram_cuda(void* buffers[], void* cl_arg);  // cell_histogram_codelet_cuda.cpp
void release_cell_device_caches(uint64_t run);
#endif

}  // namespace pairhist::codelets
