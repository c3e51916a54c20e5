// The cores' share of each frame in hybrid runs, from the rates the workers achieved.
//
// choose_policy sizes the share from assumed rates (0.8e9 pairs/s per core, 1e12 per GPU). Real
// hosts differ: on 64 cores sharing memory bandwidth the assumed share was twice what the cores
// did, the GPUs ran the leftover CPU-sized tiles at a poor rate, and hybrid ran slower than
// GPU-only (docs/performance.md). The engine therefore records every finished task here and
// re-plans each frame with measured_cpu_share. No StarPU in this unit: the rule is unit-tested.
#pragma once

#include <cstdint>

#include "tasks/decomposition.hpp"

namespace pairhist {

/// Running totals of the finished tasks of a run, by worker class.
struct ThroughputTotals {
  uint64_t cpu_tasks = 0;
  uint64_t cpu_pairs = 0;
  double cpu_busy_seconds = 0;  // summed over CPU workers, task start to end
  uint64_t cuda_tasks = 0;      // every task a CUDA worker ran
  uint64_t cuda_pairs = 0;
  double cuda_seconds = 0;       // wall time during which a CUDA task ran (see ThroughputTracker)
  uint64_t gpu_sized_tasks = 0;  // tasks too large for a core (gpu_only), all on CUDA workers
  uint64_t gpu_sized_pairs = 0;
  double gpu_sized_seconds = 0;  // wall time during which one of them ran
  uint64_t eaten_tasks = 0;      // CPU-sized tasks that CUDA workers ran
  uint64_t eaten_pairs = 0;
};

/// Accumulates ThroughputTotals from finished tasks. Not thread-safe: the engine calls it under
/// its clock mutex.
class ThroughputTracker {
 public:
  /// One finished task: where it ran, whether the plan let a core run it, its start and end
  /// (seconds, any common origin) and its pairs.
  void record(bool on_cuda, bool cpu_sized, double start, double end, uint64_t pairs);
  const ThroughputTotals& totals() const { return totals_; }

 private:
  ThroughputTotals totals_;
  double cuda_covered_until_ = -1e300;
  double gpu_sized_covered_until_ = -1e300;
};

/// The share a frame is planned with, and what it came from.
struct CpuShare {
  uint64_t cpu_share_pairs = 0;  // DecompositionPolicy::cpu_share_pairs for the frame
  double fraction = 0;           // cpu_share_pairs / frame pairs
  bool measured = false;         // false: too few tasks finished yet, the starting guess kept
  double cpu_rate = 0;           // pairs/s of all CPU workers together (measured only)
  double gpu_rate = 0;           // pairs/s of all GPUs together (measured only)
  double eaten_fraction = 0;     // of the CPU-sized pairs done, the part CUDA workers ran
};

/// CPU-eligible work relative to the cores' measured share: a little more than they can do, so
/// they do not starve between frames, not so much that the GPUs run many core-sized tiles.
constexpr double kMeasuredShareMargin = 1.15;
/// Above this part of the CPU-sized pairs run by CUDA workers, the cores demonstrably could not
/// keep up with what was offered, and what they achieved caps the share.
constexpr double kEatenTolerance = 0.05;
/// Finished tasks of each class (at least) before the measured rates replace the starting guess.
constexpr uint64_t kShareWarmupTasks = 8;

/// The cores' share of a frame of frame_pairs pairs: the starting guess (fallback_pairs, from
/// choose_policy) until enough CPU and GPU tasks have finished, then
///   margin x min(measured share, share the cores achieved if GPUs ate their tiles) x frame_pairs
/// where measured share = cpu rate / (cpu rate + gpu rate). Only meaningful in hybrid runs
/// (machine with CPU and CUDA workers); otherwise returns fallback_pairs unmeasured.
CpuShare measured_cpu_share(const ThroughputTotals& totals, const MachineShape& machine,
                            uint64_t frame_pairs, uint64_t fallback_pairs);

}  // namespace pairhist
