// StarPU glue for the pair-histogram kernels: the task arguments, the codelet (CPU blocked,
// CUDA shared-memory, CUDA global-memory implementations) with its perfmodel, and the packing of
// its tasks.
#pragma once

#include <starpu.h>

#include <cstdint>

#include "codelets/starpu/codelet_task.hpp"
#include "codelets/starpu/device_faults.hpp"
#include "codelets/starpu/frame_gate.hpp"
#include "codelets/starpu/implementation.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::codelets {

/// Arguments of one pair-histogram task, handed over as the task's cl_arg (a plain struct).
/// Buffers: coordinates of species a (R), of species b unless same_species (R), the pair's
/// uint64 histogram (REDUX). Coordinates are vectors of 3*n values in x..., y..., z... order.
struct PairHistogramArgs {
  Precision precision = Precision::single;
  int same_species = 0;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  uint64_t pairs = 0;         // pairs this task examines: the size its perfmodel is keyed on
  uint64_t frame = 0;         // the engine's frame number and task number (submission order), for
  uint64_t sequence = 0;      // the task trace; not part of the footprint
  FrameGate* gate = nullptr;  // the engine's: a task of a frame it refuses counts nothing
  DeviceFaults* faults = nullptr;  // the engine's: where a CUDA failure goes (null: abort)
  HistogramParams<float> single_params;
  HistogramParams<double> double_params;
  int nbins() const {
    return with_params(*this, [](const auto& params) { return params.nbins; });
  }
  BoxKind box_kind() const {
    return with_params(*this, [](const auto& params) { return params.box.kind; });
  }
};

/// Rows [row_begin, row_end) of one species pair: one task.
struct PairTile {
  int pair = 0;  // the species pair: its histogram
  bool same_species = false;
  starpu_data_handle_t a = nullptr, b = nullptr;  // the species' coordinates (b unused for one)
  int64_t row_begin = 0, row_end = 0;
  uint64_t pairs = 0;  // pairs examined
};

/// The task counting `tile`, with the frame's settings in `frame` (precision, parameters,
/// frame number, gate, faults) and submission number `sequence`.
CodeletTask pair_histogram_task(const PairHistogramArgs& frame, const PairTile& tile,
                                uint64_t sequence, bool gpu_only);

starpu_codelet* pair_histogram_codelet();

/// Implementation indices inside the codelet, per architecture.
enum CudaImpl : unsigned { kCudaShared = 0, kCudaGlobal = 1 };

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
// Implemented in pair_histogram_codelet_cuda.cpp.
void pair_histogram_cuda_shared(void* buffers[], void* cl_arg);
void pair_histogram_cuda_global(void* buffers[], void* cl_arg);
int pair_histogram_cuda_can_execute(unsigned workerid, starpu_task* task, unsigned nimpl);
#endif

}  // namespace pairhist::codelets
