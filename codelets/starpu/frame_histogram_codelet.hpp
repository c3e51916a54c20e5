// The static-schedule baseline (CADISHI's design, `pairhist run --schedule static`): one task
// histograms every species pair of a whole frame, so each worker takes whole frames from a
// shared queue. Kept to measure what the fine-grained task graph gains.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "codelets/starpu/codelet_task.hpp"
#include "codelets/starpu/pair_histogram_codelet.hpp"

namespace pairhist::codelets {

constexpr int kMaxFrameSpecies = 16;
constexpr int kMaxFramePairs = kMaxFrameSpecies * (kMaxFrameSpecies + 1) / 2;
static_assert(kMaxFrameSpecies <= CodeletTask::kMaxInputs &&
              kMaxFramePairs <= CodeletTask::kMaxHistograms);

/// cl_arg of a frame task. Buffers: the coordinates of every non-empty species (R), then one
/// uint64 histogram per pair (REDUX), in the order of pair_a/pair_b.
struct FrameHistogramArgs {
  Precision precision = Precision::single;
  int nspecies = 0;
  int npairs = 0;
  int coord_buffer[kMaxFrameSpecies] = {};  // buffer index of each species, -1 when empty
  int64_t species_size[kMaxFrameSpecies] = {};
  int pair_a[kMaxFramePairs] = {};
  int pair_b[kMaxFramePairs] = {};
  int hist_buffer[kMaxFramePairs] = {};
  uint64_t pairs = 0;         // all pairs of the frame
  uint64_t frame = 0;         // the engine's frame number and task number (submission order), for
  uint64_t sequence = 0;      // the task trace
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

/// The task counting the whole species pairs `pair_list` (indices into `species_pairs`, the
/// species of every pair) of a frame whose species have `species_sizes` points in
/// `species_handles` (null: an empty species), with the frame's settings in `frame` (precision,
/// parameters, frame number, gate, faults). `pairs`: the pairs it examines.
CodeletTask frame_histogram_task(const PairHistogramArgs& frame,
                                 const std::vector<int64_t>& species_sizes,
                                 const std::vector<starpu_data_handle_t>& species_handles,
                                 const std::vector<std::pair<int, int>>& species_pairs,
                                 const std::vector<int>& pair_list, uint64_t pairs,
                                 uint64_t sequence, bool gpu_only);

starpu_codelet* frame_histogram_codelet();

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
void frame_histogram_cuda(void* buffers[], void* cl_arg);  // frame_histogram_codelet_cuda.cpp
#endif

}  // namespace pairhist::codelets
