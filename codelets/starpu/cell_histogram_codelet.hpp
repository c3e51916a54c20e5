// StarPU glue for the cell-list kernels (codelets/cpu/cell_histogram_cpu.hpp,
// codelets/cuda/cell_histogram_cuda.hpp): one task counts the pairs of one species pair whose first
// point lies in a run of home cells (a key range of the frame's cell grid).
//
// Every worker sorts the frame's species into cells itself, once per frame and species: the CPU
// in main memory, the GPU on the device from the coordinates StarPU already moved there. Each
// worker keeps its sorted copies for the next task of the same frame (a few per worker), so a
// frame cut into many tasks is sorted once per worker, not once per task. A task may count
// several pairs of a frame (a small frame's GPU share), each over its own run of home cells.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <vector>

#include "codelets/starpu/codelet_task.hpp"
#include "codelets/starpu/device_faults.hpp"
#include "codelets/starpu/frame_gate.hpp"
#include "codelets/starpu/implementation.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::codelets {

/// Species pairs one cell-list task may count, and the species they may span: a small frame's
/// pairs go to the GPU as one task and one launch (cuda::launch_cell_histograms). A CUDA worker
/// keeps kMaxCellTaskSpecies sorted species, so every species of a task stays sorted until its
/// launch.
constexpr int kMaxCellTaskPairs = 8;
constexpr int kMaxCellTaskSpecies = 4;
static_assert(kMaxCellTaskSpecies <= CodeletTask::kMaxInputs &&
              kMaxCellTaskPairs <= CodeletTask::kMaxHistograms);

/// One species pair of a cell-list task: the pairs (i in a, j in b) whose i lies in a home cell
/// with key in [key_begin, key_end). buffer_a, buffer_b (buffer_a for the same species) and
/// buffer_hist are the task's buffers with a's and b's coordinates and the pair's histogram.
struct CellTaskPair {
  int species_a = 0, species_b = 0;  // which species: with `frame` and `run`, the sort cache key
  int buffer_a = 0, buffer_b = 0, buffer_hist = 0;
  int same_species = 0;
  int64_t key_begin = 0, key_end = 0;
};

/// Arguments of one cell-list task (the task's cl_arg). Buffers: the coordinates of the species
/// of its pairs (R), then the pairs' histograms of nbins + 1 uint64 (REDUX; the kernels add the
/// candidates they examined to the last entry).
struct CellHistogramArgs {
  Precision precision = Precision::single;
  uint64_t run = 0;  // a number unique to the engine instance
  int npairs = 0;
  CellTaskPair pair[kMaxCellTaskPairs];
  uint64_t pairs = 0;              // estimated candidates: the perfmodel's size
  uint64_t frame = 0;              // the engine's frame number and task number, for the task trace
  uint64_t sequence = 0;           // (not part of the footprint)
  FrameGate* gate = nullptr;       // the engine's: a task of a frame it refuses counts nothing
  DeviceFaults* faults = nullptr;  // the engine's: where a CUDA failure goes (null: abort)
  CellGrid grid;
  HistogramParams<float> single_params;
  HistogramParams<double> double_params;
  int nbins() const {
    return with_params(*this, [](const auto& params) { return params.nbins; });
  }
  BoxKind box_kind() const { return grid.kind; }
};

/// The perfmodel footprint of a cell-list task (the planner's and the codelet's): its work, the
/// grid's reach and, for a task of several pairs, their number.
uint32_t cell_task_footprint(const CellHistogramArgs& args);

/// One species pair's run of home cells, as the planner asks for it.
struct CellRange {
  int pair = 0;  // the species pair: its histogram
  int species_a = 0, species_b = 0;
  int64_t key_begin = 0, key_end = 0;
};

/// The task counting `ranges` (at most kMaxCellTaskPairs, of at most kMaxCellTaskSpecies
/// species, whose coordinates are `species_handles`), with the frame's settings in `frame`
/// (precision, parameters, grid, run, frame number, gate, faults). `candidates`: the estimate
/// its perfmodel is keyed on.
CodeletTask cell_histogram_task(const CellHistogramArgs& frame, const CellRange* ranges,
                                int nranges,
                                const std::vector<starpu_data_handle_t>& species_handles,
                                uint64_t candidates, uint64_t sequence, bool gpu_only);

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
