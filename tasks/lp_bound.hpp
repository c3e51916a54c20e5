// StarPU's LP lower bound of the makespan (starpu_bound, no dependencies), and why it is missing
// when StarPU returns 0.
//
// StarPU pools the recorded tasks by (codelet, perfmodel footprint) and asks the history model
// of implementation 0 for each pool's time on each worker's arch; an entry with fewer than
// STARPU_CALIBRATE_MINIMUM (default 10) measurements counts as unknown. A pool unknown on every
// worker makes the LP unsolvable (StarPU returns 0); a pool unknown on some worker gets a 1e9 ms
// coefficient there, which keeps the LP solvable but can push the bound above the true optimum
// when a fast worker kind is the unmeasured one. The recorder mirrors StarPU's pools from the
// submissions so the run can say which kinds lack measurements, and where.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pairhist {

/// One (codelet, footprint) pool as StarPU records it, plus where its tasks may run.
struct BoundKind {
  starpu_codelet* cl = nullptr;
  uint32_t footprint = 0;
  uint64_t tasks = 0;
  uint64_t pairs = 0;            // pairs of the first task of the kind (for the table)
  unsigned long long where = 0;  // union of the tasks' STARPU_EXECUTE_WHERE masks
};

/// The bound and its diagnosis at the end of a run.
struct BoundOutcome {
  double seconds = 0;         // 0: not computable, `reason` says why
  std::string reason;         // one line, empty when the bound was computed
  uint64_t kinds = 0;         // task kinds recorded
  uint64_t uncalibrated = 0;  // kinds with no usable time on any worker (the LP fails)
  uint64_t partly = 0;        // kinds lacking a usable time on some worker kind that can run them
  unsigned minimum = 0;       // measurements a history entry needs (STARPU_CALIBRATE_MINIMUM)
  std::string lp_text;        // with want_text: a per-kind table and StarPU's LP (lp_solve format)
};

/// StarPU's tolerance (percent) for a measurement's deviation from its history entry's mean,
/// unless STARPU_HISTORY_MAX_ERROR is set.
constexpr const char* kHistoryMaxError = "400";

/// Measurements StarPU requires before it uses a history entry (STARPU_CALIBRATE_MINIMUM).
unsigned calibration_minimum();

class BoundRecorder {
 public:
  /// A task submitted while StarPU records (call it before the task is inserted: its cl_arg may
  /// be freed as soon as it runs).
  void note(starpu_codelet* cl, uint32_t footprint, uint64_t pairs, unsigned long long where);

  /// Stops StarPU's recording; call once every recorded task has completed (the perfmodel
  /// updates are done by then). Solves the LP unless a kind makes it unsolvable.
  BoundOutcome finish(bool want_text);

 private:
  std::vector<BoundKind> kinds_;
  size_t last_ = 0;  // consecutive tasks are often of one kind
};

}  // namespace pairhist
