// A lower bound of the makespan from the task durations measured in the run itself.
//
// StarPU's LP bound (lp_bound.hpp) reads its history models, which a hybrid run cannot fill: the
// cores' share is re-planned every frame, so tile sizes and perfmodel footprints keep changing
// (74 kinds in 200 frames, most with fewer than 10 measurements per arch), and the history drops
// durations that deviate (two CUDA workers share a GPU). The run's own profiling measured every
// task, so the same area LP is solved here from those durations. No StarPU in this unit: the
// engine records the tasks (measured_recorder.hpp) and the LP is unit-tested.
//
// The area LP (StarPU's starpu_bound without dependencies): n[k][a] >= 0 tasks of kind k on
// arch a; sum_a n[k][a] = N_k; for every arch, sum_k n[k][a] t[k][a] <= W_a T; minimise T.
// Caveat: the durations include the run's own contention (memory bandwidth, two workers per
// GPU, the reader thread), so this bounds what any schedule of *these* durations could reach,
// not what the machine could reach with other ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pairhist {

/// One task kind of the LP: its task count and, per arch, the seconds one task takes there;
/// a negative time: the kind may not run on that arch.
struct AreaKind {
  uint64_t tasks = 0;
  std::vector<double> seconds;  // one per arch
};

/// The LP's optimum T (seconds), or 0 and a one-line reason when it has none.
struct AreaSolution {
  double seconds = 0;
  std::string reason;
};

/// Whether this build can solve the LP (GLPK found at configure time).
bool area_lp_available();

/// Solves the area LP for kinds over archs of `workers[a]` identical workers (GLPK).
AreaSolution solve_area_lp(const std::vector<AreaKind>& kinds, const std::vector<int>& workers);

/// What a run measured of one task kind (codelet, perfmodel footprint).
struct MeasuredKind {
  int codelet = 0;             // kinds of one codelet share a throughput per arch (for estimates)
  uint64_t tasks = 0;          // tasks of the kind that finished
  uint64_t pairs = 0;          // their pairs, summed
  std::vector<bool> may_run;   // per arch: its tasks are allowed there (STARPU_EXECUTE_WHERE)
  std::vector<uint64_t> runs;  // per arch: executions measured there
  std::vector<double> run_seconds;  // per arch: their summed durations
  std::vector<uint64_t> run_pairs;  // per arch: their summed pairs
};

struct MeasuredArch {
  std::string name;  // "cpu", "cuda0", ...
  int workers = 0;
};

/// The bound and how much of it rests on estimates.
struct MeasuredBound {
  double seconds = 0;  // 0: not computed, `reason` says why
  std::string reason;
  uint64_t kinds = 0;
  uint64_t estimated_kinds = 0;    // kinds with a time estimated on an arch where none ran
  uint64_t estimated_entries = 0;  // (kind, arch) times estimated
  uint64_t unknown_entries = 0;    // allowed there, but the arch ran nothing: left out of the LP
};

/// t[k][a] = the mean measured duration of kind k on arch a. Where k may run on a but did not
/// in this run, t = its mean pairs per task / arch a's throughput for k's codelet (pairs per
/// second over that codelet's tasks on a), or over all tasks on a if the codelet never ran
/// there; an arch that ran nothing at all has no time and is left out for that kind.
std::vector<AreaKind> measured_times(const std::vector<MeasuredKind>& kinds, size_t narchs,
                                     MeasuredBound& counts);

/// The area LP over the measured times (measured_times then solve_area_lp).
MeasuredBound measured_area_bound(const std::vector<MeasuredKind>& kinds,
                                  const std::vector<MeasuredArch>& archs);

}  // namespace pairhist
