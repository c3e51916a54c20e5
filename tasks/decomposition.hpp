// Decomposition policy: how the species pairs of one frame become tasks.
//
// Three kinds of work reach the scheduler:
//  - row tiles of large pairs, sized for a GPU: long enough that the per-task cost (StarPU
//    submission, launch, the flush of per-block histograms; ~20 us) stays near 2% of the task,
//    short enough that one frame spreads over every GPU and the last tasks of a run are short;
//  - whole medium pairs, one task each;
//  - groups of small pairs, packed into tasks sized for one CPU core (~20 ms), because a task per
//    tiny pair would cost more in overhead than in work;
//  - in hybrid runs, the cores' share of every frame (their throughput share with a margin, the
//    smallest pairs first, the last pair split by rows) cut into tiles a core finishes in 30 ms:
//    with them in every frame the cores stay busy until the queue drains, and the GPUs take over
//    what is left at the end. choose_policy starts from assumed rates; the engine re-plans each
//    frame's share from the rates the workers achieved (throughput_share.hpp).
// When CPU and CUDA workers share a run, a task a CPU core could not finish within the tail budget
// is restricted to the GPUs: a model-free scheduler would otherwise let a core start a task that
// ends long after the GPUs ran out of work (CADISHI's hybrid tail). dmda/dmdas still place every
// other task, and choose the CUDA implementation, from the perfmodels.
#pragma once

#include <cstdint>
#include <vector>

namespace pairhist {

/// The workers a run has, as StarPU reports them after starpu_init.
struct MachineShape {
  int cpu_workers = 0;
  int cuda_workers = 0;
  int gpus = 0;  // distinct CUDA devices (several workers may share one); 0: one per worker
};

struct DecompositionPolicy {
  uint64_t tile_pairs = 0;      // largest row tile of a pair (pairs)
  uint64_t group_pairs = 0;     // pairs smaller than this are packed into groups of about this size
  uint64_t cpu_task_limit = 0;  // larger tasks run on CUDA workers only; 0: no restriction
  int64_t min_tile_rows = 0;    // GPU tiles span at least this many rows (a CUDA block's rows x 4)
  uint64_t cpu_share_pairs = 0;  // hybrid runs: pairs per frame cut into CPU-sized tasks
};

/// Which species pairs (species_pairs() order) a plan covers: empty means all of them. Runs that
/// count some pairs with cell lists plan only the others here.
using PairSelection = std::vector<bool>;

/// Pairs examined in one frame with these species sizes (of the selected pairs).
uint64_t frame_pairs(const std::vector<int64_t>& species_sizes, const PairSelection& selected = {});

/// Throughputs the policy assumes before any model is calibrated (pairs per second). They only
/// size tasks; placement comes from the scheduler.
constexpr double kAssumedGpuRate = 1.0e12;
constexpr double kAssumedCpuCoreRate = 0.8e9;
/// The longest task a CPU core may take in a hybrid run (row tiles here, cell-list tasks in
/// tasks/cell_histogram_planner.cpp); larger ones are restricted to the GPUs.
constexpr double kTailBudgetSeconds = 0.03;

/// The policy for frames with these species sizes on this machine. tile_override > 0 fixes the
/// tile size (tests, measurements); groups are then at most half a tile.
DecompositionPolicy choose_policy(const std::vector<int64_t>& species_sizes,
                                  const MachineShape& machine, uint64_t tile_override = 0,
                                  const PairSelection& selected = {});

/// One task of a frame: either a row range of one pair (pair_indices.size() == 1) or whole
/// pairs grouped (row_begin = row_end = 0 then, each pair complete).
struct PlannedTask {
  std::vector<int> pair_indices;  // indices into species_pairs(nspecies)
  bool whole_pairs = false;       // true: every listed pair complete (a group or a whole pair)
  int64_t row_begin = 0;          // for a row tile of pair_indices[0]
  int64_t row_end = 0;
  uint64_t pairs = 0;  // pairs examined by the task
  bool gpu_only = false;
};

/// Rows [begin, end) of species a of one species pair (a, b) that a part of a frame counts.
struct RowWindow {
  int64_t begin = 0;
  int64_t end = 0;
};

/// Species pairs smaller than this go whole to one part of a frame split into parts.
constexpr uint64_t kWholePairInPart = uint64_t(1) << 24;

/// Part `part` of `parts` of a frame with these species sizes, one window per species pair
/// (species_pairs() order): pairs below kWholePairInPart whole in part (pair index mod parts),
/// larger pairs cut into `parts` row ranges of about equal pairs. Depends on nothing but its
/// arguments, so processes that plan alike cut alike, and the parts of a frame together cover
/// every pair of every species pair exactly once.
std::vector<RowWindow> part_rows(const std::vector<int64_t>& species_sizes, int part, int parts);

/// Every task of one frame. Together they examine every pair of every species pair exactly once;
/// pairs with no pairs (empty species, a single atom with itself) get no task. With `windows`
/// (one per species pair), only those rows of each pair.
std::vector<PlannedTask> plan_frame(const std::vector<int64_t>& species_sizes,
                                    const DecompositionPolicy& policy, const MachineShape& machine,
                                    const PairSelection& selected = {},
                                    const std::vector<RowWindow>* windows = nullptr);

}  // namespace pairhist
