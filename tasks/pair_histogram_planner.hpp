// The all-pairs planner: every pair of the planner's species pairs is examined, in row tiles of
// large pairs and groups of small whole pairs (decomposition.hpp), with the cores' share of
// hybrid frames re-planned from measured rates (throughput_share.hpp); or, for the static
// baseline, one task per frame. Frames of the capacities take the plan made for them; a frame of
// other sizes, or a part of a frame, gets a plan of its own, kept while the next such frame asks
// for the same (a dynamic selection's sizes change every frame: planning is O(tasks)).
#pragma once

#include "codelets/starpu/pair_histogram_codelet.hpp"
#include "tasks/frame_planner.hpp"

namespace pairhist {

class PairHistogramPlanner : public FramePlanner {
 public:
  PairHistogramPlanner(const EngineConfig& config, const MachineShape& machine,
                       const PairSelection& selected, TaskSubmitter& submitter,
                       ActivityRecorder& recorder);
  void submit_frame(const PlannedFrame& frame) override;
  void describe(RunActivity& run) const override;
  /// Largest task a core may run in hybrid runs (0: no restriction).
  uint64_t cpu_task_limit() const { return policy_.cpu_task_limit; }

 private:
  codelets::PairHistogramArgs base_args(const PlannedFrame& frame) const;
  void replan_share();
  /// The tasks of a frame of other sizes than the capacities or of a part of a frame.
  const std::vector<PlannedTask>& sized_plan(const PlannedFrame& frame);
  void submit_tile(const PlannedFrame& frame, const codelets::PairHistogramArgs& base,
                   const PlannedTask& t);
  void submit_group(const PlannedFrame& frame, const std::vector<int>& pair_list, bool gpu_only);

  DecompositionPolicy policy_;
  std::vector<PlannedTask> plan_;  // the tasks of the next frame (re-planned as the share moves)
  // sized_plan's last plan, and what it was made for.
  struct SizedPlan {
    bool made = false;
    std::vector<int64_t> sizes;
    int part = 0, parts = 1;
    uint64_t cpu_share_pairs = 0;  // policy_'s when it was made
    std::vector<PlannedTask> tasks;
  };
  SizedPlan sized_;
  uint64_t assumed_share_pairs_ = 0;
  uint64_t frame_pairs_ = 0;
  CpuShare share_;
};

}  // namespace pairhist
