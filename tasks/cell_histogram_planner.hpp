// The cell-list planner: each frame gets a cell grid (from its box, or its points' bounding box),
// and each of the planner's species pairs is cut into tasks over runs of home cells (key ranges
// along the grid's curve) holding about equal numbers of cells. In hybrid runs the cores' share
// of the frame (from measured rates, as for all pairs) is cut into tasks a core finishes within
// the tail budget; every larger task is for the GPUs only.
#pragma once

#include "codelets/starpu/cell_histogram_codelet.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/frame_planner.hpp"

namespace pairhist {

/// The frame's grid for the engine's settings (previous: the last frame's, kept while valid).
CellGrid engine_cell_grid(const EngineConfig& config, const BoxMatrix& box,
                          const FrameBounds& bounds, const CellGrid* previous);

/// How the engine's cell options resolve: the config's, else the environment's, else defaults.
CellOptions engine_cell_options(const EngineConfig& config);

class CellHistogramPlanner : public FramePlanner {
 public:
  CellHistogramPlanner(const EngineConfig& config, const MachineShape& machine,
                       const PairSelection& selected, TaskSubmitter& submitter,
                       ActivityRecorder& recorder);
  void submit_frame(const PlannedFrame& frame) override;
  void describe(RunActivity& run) const override;
  uint64_t cpu_task_limit() const { return cpu_task_limit_; }
  /// Frees the workers' sorted species of this run (its tasks must be done).
  void release_caches() const { codelets::release_cell_caches(run_); }

 private:
  /// Home-cell key ranges: `count` runs of about equal numbers of cells in the grid.
  std::vector<std::pair<int64_t, int64_t>> key_ranges(int64_t first_cell, int64_t end_cell,
                                                      int64_t count) const;
  int64_t key_of_cell_rank(int64_t rank) const;
  /// A run of home cells of one pair, and its estimated candidates.
  struct PairRange {
    int pair;
    int64_t key_begin, key_end;
    double candidates;
  };
  /// The species of `ranges`' pairs, each once, in the order they first appear.
  std::vector<int> species_of(const std::vector<PairRange>& ranges) const;
  /// The candidates a task of this frame should hold (`total`: the frame's), for GPUs or cores;
  /// decides frame_gpu_ too (a small frame whole to one GPU).
  double candidates_per_task(const PlannedFrame& frame, double total, bool hybrid);
  /// One task counting `ranges` (at most codelets::kMaxCellTaskPairs).
  void submit_ranges(const PlannedFrame& frame, const codelets::CellHistogramArgs& base,
                     const std::vector<PairRange>& ranges, bool gpu_only);
  void submit_range(const PlannedFrame& frame, const codelets::CellHistogramArgs& base,
                    const PairRange& range, bool gpu_only) {
    submit_ranges(frame, base, {range}, gpu_only);
  }

  uint64_t run_;
  CellGrid grid_;
  bool have_grid_ = false;
  std::vector<int64_t> curve_keys_;  // Morton/Hilbert: the grid's cells' keys, ascending
  uint64_t cpu_task_limit_ = 0;
  bool fuse_pairs_ = false;  // a frame's pairs that fit one task each go in one task
  int frame_gpu_ = -1;       // the frame being planned goes whole to this GPU (-1: to every GPU)
  CpuShare share_;
};

}  // namespace pairhist
