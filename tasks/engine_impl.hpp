// The engine's state (HistogramEngine::Impl), shared by its two halves: histogram_engine.cpp
// (StarPU, planners, reduction, report) and frame_intake.cpp (frames into the ring, copied or
// handed over, and their tasks submitted).
#pragma once

#include <starpu.h>

#include <memory>
#include <vector>

#include "codelets/starpu/cuda_devices.hpp"
#include "codelets/starpu/frame_histogram_codelet.hpp"
#include "codelets/starpu/implementation.hpp"
#include "pairhist/engine.hpp"
#include "tasks/activity_recorder.hpp"
#include "tasks/cell_histogram_planner.hpp"
#include "tasks/frame_ring.hpp"
#include "tasks/pair_histogram_planner.hpp"
#include "tasks/periodic_images.hpp"
#include "tasks/starpu_session.hpp"
#include "tasks/task_submitter.hpp"

namespace pairhist {

struct HistogramEngine::Impl {
  EngineConfig config;
  std::vector<int64_t> capacities;  // the caller's species_sizes (config's differ with images)
  std::vector<std::pair<int, int>> pairs;
  uint64_t frame_bytes = 0;
  uint64_t frames = 0;
  uint64_t frames_handed_over = 0;  // of them, taken as the caller's columns (no copy)
  bool finished = false;
  bool spatial_order = false;  // species sorted along a Z curve as they are gathered
  std::unique_ptr<StarpuSession> session;
  std::unique_ptr<ActivityRecorder> recorder;
  std::unique_ptr<FrameRing> ring;
  std::unique_ptr<TaskSubmitter> submitter;
  MachineShape machine;
  // Planners, made on the first frame (auto decides per pair from that frame's cell grid).
  std::unique_ptr<PairHistogramPlanner> pair_planner;
  std::unique_ptr<CellHistogramPlanner> cell_planner;
  std::vector<Algorithm> algorithm_of_pair;
  bool gather_bounds = false;
  std::vector<PairWork> work;
  BoundOutcome bound;
  MeasuredBound measured_bound;
  codelets::FrameGate gate;       // every task asks it as it starts (drop_unstarted_frames)
  codelets::DeviceFaults faults;  // a task that could not count says so here
  int part = -1;                  // of config.frame_parts, for the frames submitted next; -1: all
  std::vector<int64_t> counts_scratch;  // a frame's counts from its atom lists, kept allocated
  // EngineConfig::periodic_images: the layout of frames as images; `config` and `pairs` are
  // then the engine's own (no box, more species), the caller's pairs come from folding.
  std::unique_ptr<PeriodicImages> images;
  std::vector<std::vector<float>> image_input;  // the caller's species as columns

  explicit Impl(const EngineConfig& c);

  ~Impl();

  /// Frames whose buffers fit the memory budget: at least 2 (reading overlaps computing), at
  /// most 64 (beyond that the ring only delays the reader's errors).
  int frames_for_budget() const;

  /// Whether the GPU kernels will count this histogram in several windows without a box: they
  /// then skip the blocks of pairs that miss a window's bins, which needs the points of a species
  /// in spatial order (spatial_order.hpp; the counts do not depend on the order).
  bool wide_windows_without_box() const;

  void release_data();  // the planners stay: activity() asks them after finish()

  /// The first frame decides which pairs use cell lists (auto: the cost model on its grid) and
  /// makes the planners.
  void make_planners(const BoxMatrix& box, const FrameBounds& bounds);

  /// Counts since the last take, nbins per pair; the cell-list kernels' candidates (the extra
  /// last entry) and the counted pairs go into the pairs' work records.
  std::vector<std::vector<uint64_t>> take(bool reset);

  std::vector<std::vector<uint64_t>> collect();

  bool counted(size_t p) const { return config.counted_pairs.empty() || config.counted_pairs[p]; }

  // frame_intake.cpp
  /// Threads that copy a species of `atoms` atoms into the frame buffers: one below 256k atoms,
  /// else up to four (a quarter of the cores, as for XTC decoding); they run only during the
  /// copy. PAIRHIST_COPY_THREADS overrides it for measurements.
  int gather_threads(int64_t atoms) const;

  /// Throws std::invalid_argument unless `counts` has one count per species, each from 0 to the
  /// species' capacity.
  void check_counts(const std::vector<int64_t>& counts) const;

  void submit(const std::vector<const float*>& xyz, const std::vector<int64_t>& counts,
              const BoxMatrix& box);

  void submit_atoms(const float* frame_xyz, const std::vector<std::vector<int>>& atoms,
                    const BoxMatrix& box);

  void submit_columns(const std::vector<const float*>& soa, const std::vector<int64_t>& counts,
                      const BoxMatrix& box, const CoordinateBounds* given);

  /// The slot of the next frame, free: the tasks of the frame that used it before are done.
  /// `allocate`: FrameRing::slot's.
  FrameRing::Slot& free_slot(FrameFeed& times, bool allocate = true);

  /// One frame of counts[s] atoms per species (checked): copy(s, buffer) fills species s's
  /// buffer (float* or double*) with its x[0..n), y[0..n), z[0..n) and returns the position of a
  /// non-finite coordinate or -1; then the frame's tasks are submitted. `given` bounds replace
  /// the engine's own pass over the copied points.
  template <class Copy>
  void take_frame(const BoxMatrix& box, const std::vector<int64_t>& counts, Copy copy,
                  const CoordinateBounds* given = nullptr);

  /// With images: the caller's species gathered by copy(s, float* out) (which returns a
  /// non-finite atom or -1, as take_frame's), laid out as images and taken as a frame.
  template <class Copy>
  void take_image_frame(const BoxMatrix& box, const std::vector<int64_t>& counts, Copy copy);

  /// One frame whose columns replace the next slot's (HistogramEngine::submit_frame_columns_swap).
  bool swap_in(std::vector<HostColumn>& soa, const BoxMatrix& box, const CoordinateBounds& given);

  /// Submits the tasks of the frame in `slot`, its buffers written.
  void submit_slot(const FrameRing::Slot& slot, const BoxMatrix& box, const FrameBounds& bounds,
                   FrameFeed& times);
};

}  // namespace pairhist
