#include "tasks/pair_histogram_planner.hpp"

#include "codelets/starpu/frame_histogram_codelet.hpp"
#include "tasks/row_tiles.hpp"

namespace pairhist {

PairHistogramPlanner::PairHistogramPlanner(const EngineConfig& config, const MachineShape& machine,
                                           const PairSelection& selected, TaskSubmitter& submitter,
                                           ActivityRecorder& recorder)
    : FramePlanner(config, machine, selected, submitter, recorder) {
  frame_pairs_ = frame_pairs(config.species_sizes, selected_);
  policy_ = choose_policy(config.species_sizes, machine_, config.max_pairs_per_task, selected_);
  assumed_share_pairs_ = policy_.cpu_share_pairs;
  // Groups are frame-codelet tasks, which name at most kMaxFrameSpecies species.
  if (config.species_sizes.size() > codelets::kMaxFrameSpecies) policy_.group_pairs = 0;
  if (!config.whole_frames) {
    plan_ = plan_frame(config.species_sizes, policy_, machine_, selected_);
    share_ = measured_cpu_share({}, machine_, frame_pairs_, assumed_share_pairs_);
  }
}

codelets::PairHistogramArgs PairHistogramPlanner::base_args(const PlannedFrame& frame) const {
  codelets::PairHistogramArgs args;
  set_frame_params(args, frame);
  args.frame = frame.number;
  args.gate = frame.gate;
  args.faults = frame.faults;
  return args;
}

void PairHistogramPlanner::submit_frame(const PlannedFrame& frame) {
  if (config_.whole_frames) {  // the baseline's single task: every pair
    std::vector<int> all;
    for (size_t p = 0; p < pairs_.size(); ++p)
      if (selected(p)) all.push_back(static_cast<int>(p));
    submit_group(frame, all, false);
    return;
  }
  const codelets::PairHistogramArgs base = base_args(frame);
  replan_share();
  const bool own_plan = !frame.full || frame.parts > 1;
  for (const PlannedTask& t : own_plan ? sized_plan(frame) : plan_) {
    if (t.pair_indices.size() == 1)
      submit_tile(frame, base, t);
    else
      submit_group(frame, t.pair_indices, t.gpu_only);
  }
}

const std::vector<PlannedTask>& PairHistogramPlanner::sized_plan(const PlannedFrame& frame) {
  if (sized_.made && sized_.sizes == frame.sizes && sized_.part == frame.part &&
      sized_.parts == frame.parts && sized_.cpu_share_pairs == policy_.cpu_share_pairs)
    return sized_.tasks;
  // Tiles sized for this frame's pairs; the cores' share is the capacities' (measured) share in
  // proportion to the pairs counted.
  DecompositionPolicy policy = policy_;
  const uint64_t pairs = frame_pairs(frame.sizes, selected_);
  if (!frame.full) {
    policy = choose_policy(frame.sizes, machine_, config_.max_pairs_per_task, selected_);
    if (config_.species_sizes.size() > codelets::kMaxFrameSpecies) policy.group_pairs = 0;
  }
  uint64_t counted = pairs;
  std::vector<RowWindow> windows;
  if (frame.parts > 1) {  // rows of every pair that this part of the frame counts
    windows = part_rows(frame.sizes, frame.part, frame.parts);
    counted = 0;
    for (size_t p = 0; p < windows.size(); ++p)
      if (selected(p))
        counted +=
            pairs_in_rows(frame.sizes[static_cast<size_t>(pairs_[p].first)],
                          frame.sizes[static_cast<size_t>(pairs_[p].second)],
                          pairs_[p].first == pairs_[p].second, windows[p].begin, windows[p].end);
  }
  policy.cpu_share_pairs =
      frame_pairs_ > 0
          ? static_cast<uint64_t>(static_cast<double>(policy_.cpu_share_pairs) *
                                  static_cast<double>(counted) / static_cast<double>(frame_pairs_))
          : 0;
  sized_.tasks =
      plan_frame(frame.sizes, policy, machine_, selected_, frame.parts > 1 ? &windows : nullptr);
  sized_.made = true;
  sized_.sizes = frame.sizes;
  sized_.part = frame.part;
  sized_.parts = frame.parts;
  sized_.cpu_share_pairs = policy_.cpu_share_pairs;
  return sized_.tasks;
}

/// Hybrid runs: this frame's CPU share from the rates the workers achieved so far
/// (throughput_share.hpp); the plan is rebuilt (O(species pairs)) when the share moved.
void PairHistogramPlanner::replan_share() {
  if (policy_.cpu_task_limit == 0) return;  // CPU-only or GPU-only: nothing to share
  const CpuShare next =
      measured_cpu_share(recorder_.tile_totals(), machine_, frame_pairs_, assumed_share_pairs_);
  if (next.cpu_share_pairs != policy_.cpu_share_pairs) {
    policy_.cpu_share_pairs = next.cpu_share_pairs;
    plan_ = plan_frame(config_.species_sizes, policy_, machine_, selected_);
  }
  share_ = next;
}

/// Rows [row_begin, row_end) of one species pair.
void PairHistogramPlanner::submit_tile(const PlannedFrame& frame,
                                       const codelets::PairHistogramArgs& base,
                                       const PlannedTask& t) {
  const int p = t.pair_indices[0];
  const auto [a, b] = pairs_[static_cast<size_t>(p)];
  codelets::PairTile tile;
  tile.pair = p;
  tile.same_species = a == b;
  tile.a = frame.slot.handles[static_cast<size_t>(a)];
  tile.b = frame.slot.handles[static_cast<size_t>(b)];
  tile.row_begin = t.row_begin;
  tile.row_end = t.row_end;
  tile.pairs = t.pairs;
  submitter_.submit(codelets::pair_histogram_task(base, tile, submitter_.tasks(), t.gpu_only));
}

/// One task over whole pairs: the species they use (R) and their accumulators.
void PairHistogramPlanner::submit_group(const PlannedFrame& frame,
                                        const std::vector<int>& pair_list, bool gpu_only) {
  uint64_t pairs = 0;
  for (int p : pair_list) {
    const auto [a, b] = pairs_[static_cast<size_t>(p)];
    pairs += pairs_in_rows(frame.sizes[static_cast<size_t>(a)], frame.sizes[static_cast<size_t>(b)],
                           a == b, 0, frame.sizes[static_cast<size_t>(a)]);
  }
  submitter_.submit(codelets::frame_histogram_task(base_args(frame), frame.sizes,
                                                   frame.slot.handles, pairs_, pair_list, pairs,
                                                   submitter_.tasks(), gpu_only));
}

void PairHistogramPlanner::describe(RunActivity& run) const {
  if (frame_pairs_ > 0) report_share(share_, run);
}

}  // namespace pairhist
