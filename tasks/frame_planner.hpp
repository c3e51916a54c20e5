// A planner turns one frame into tasks: the all-pairs planner (row tiles and groups of whole
// pairs) and the cell-list planner (key ranges of the frame's cell grid) sit side by side, each
// for the species pairs assigned to it; the engine owns the data, the reduction and the report.
#pragma once

#include <cstdint>
#include <vector>

#include "codelets/starpu/codelet_task.hpp"
#include "codelets/starpu/device_faults.hpp"
#include "codelets/starpu/frame_gate.hpp"
#include "pairhist/box_setup.hpp"
#include "tasks/activity_recorder.hpp"
#include "tasks/decomposition.hpp"
#include "tasks/frame_ring.hpp"
#include "tasks/task_submitter.hpp"
#include "tasks/throughput_share.hpp"

namespace pairhist {

/// One frame as the planners see it: its buffers (already written), sizes, box and bounds.
struct PlannedFrame {
  const FrameRing::Slot& slot;
  const BoxMatrix& box;
  const std::vector<int64_t>& sizes;    // atoms per species in this frame (handles cover these)
  bool full = true;                     // sizes are the capacities (EngineConfig::species_sizes)
  const FrameBounds& bounds;            // empty unless the engine gathered them (cell-list runs)
  uint64_t number = 0;                  // the engine's frame number
  codelets::FrameGate* gate = nullptr;  // the engine's: lets it drop frames not yet begun
  codelets::DeviceFaults* faults = nullptr;  // the engine's: the tasks' CUDA failures
  int part = 0;  // the part of the frame to count (EngineConfig::frame_parts)
  int parts = 1;
};

/// A planner for the species pairs `selected` (species_pairs() order) of the engine's frames; it
/// submits through the engine's submitter and reads finished tasks' rates from its recorder.
class FramePlanner {
 public:
  FramePlanner(const EngineConfig& config, const MachineShape& machine,
               const PairSelection& selected, TaskSubmitter& submitter, ActivityRecorder& recorder)
      : config_(config),
        machine_(machine),
        selected_(selected),
        pairs_(species_pairs(static_cast<int>(config.species_sizes.size()))),
        submitter_(submitter),
        recorder_(recorder) {}
  virtual ~FramePlanner() = default;
  /// Submits every task of the frame for the planner's pairs.
  virtual void submit_frame(const PlannedFrame& frame) = 0;
  /// What the planner adds to the run's report (its cores' share; the cell grid).
  virtual void describe(RunActivity& run) const = 0;

 protected:
  bool selected(size_t pair) const { return selected_.empty() || selected_[pair]; }
  /// The precision and the frame's kernel parameters (box, bin scale) every codelet's
  /// arguments carry.
  template <class Args>
  void set_frame_params(Args& args, const PlannedFrame& frame) const {
    args.precision = config_.precision;
    args.single_params = make_params<float>(frame.box, config_.box_kind, config_.r_max,
                                            config_.nbins, config_.r_cut, config_.r_min);
    args.double_params = make_params<double>(frame.box, config_.box_kind, config_.r_max,
                                             config_.nbins, config_.r_cut, config_.r_min);
  }
  /// The cores' share of the last frame, for the report.
  static void report_share(const CpuShare& share, RunActivity& run) {
    run.cpu_share = share.fraction;
    run.cpu_share_measured = share.measured;
    run.measured_cpu_rate = share.cpu_rate;
    run.measured_gpu_rate = share.gpu_rate;
    run.gpu_ran_cpu_sized = share.eaten_fraction;
  }

  const EngineConfig& config_;
  MachineShape machine_;
  PairSelection selected_;
  std::vector<std::pair<int, int>> pairs_;
  TaskSubmitter& submitter_;
  ActivityRecorder& recorder_;
};

}  // namespace pairhist
