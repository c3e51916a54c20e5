// How the engine's planners hand tasks to StarPU: every task reads some species' coordinates
// and adds into the histograms of its species pairs. The submitter owns those histograms (one
// uint64 accumulator of nbins + 1 entries per pair: the bins, then the candidates the cell-list
// kernels examined), reduces into them exactly (StarPU REDUX, or explicit sum tasks), and submits
// into the engine's scheduling context with the engine's completion callback.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <vector>

#include "codelets/starpu/codelet_task.hpp"
#include "tasks/lp_bound.hpp"

namespace pairhist {

class TaskSubmitter {
 public:
  /// One accumulator per species pair. With sum_tasks, each task writes a zeroed partial of its
  /// own that a sum task adds into the accumulator (for measurement, docs/performance.md).
  TaskSubmitter(size_t pairs, int nbins, bool sum_tasks, unsigned context, void (*callback)(void*),
                void* callback_arg);
  ~TaskSubmitter() { release(); }
  TaskSubmitter(const TaskSubmitter&) = delete;
  TaskSubmitter& operator=(const TaskSubmitter&) = delete;

  /// Inserts a task its codelet packed: its inputs (read), then the histograms of its pairs
  /// (reduced into), in that order (codelets/starpu/codelet_task.hpp). Throws when no worker can
  /// run it.
  void submit(const codelets::CodeletTask& task);

  /// Tasks submitted so far (the next task's sequence number).
  uint64_t tasks() const { return tasks_; }

  /// Waits for every pair's tasks and returns its accumulator (nbins + 1 entries each); with
  /// `reset` the accumulators start again from zero. Acquiring read-write waits for this pair's
  /// tasks and folds the per-worker copies; zeroing the folded copy before releasing it is what
  /// later tasks then add to.
  std::vector<std::vector<uint64_t>> take(bool reset);

  /// StarPU's LP bound: record from now on (start) and at the end (finish, after every task).
  /// Counting tasks go to CUDA workers only from now on (EngineConfig::cpu_workers_count).
  void count_on_gpus_only() { gpus_only_ = true; }
  void start_bound() { bound_recording_ = true; }
  bool bound_recording() const { return bound_recording_; }
  BoundOutcome finish_bound(bool want_text);

  void release();

  /// GPUs whose CUDA workers are in the context (what CodeletTask::gpu_choice picks from).
  int gpus() { return static_cast<int>(gpu_workers().size()); }

 private:
  struct Partial {
    starpu_data_handle_t handle;
    size_t pair;
  };
  int nbins_;
  bool sum_tasks_;
  unsigned context_;
  void (*callback_)(void*);
  void* callback_arg_;
  std::vector<starpu_data_handle_t> accumulators_;
  uint64_t tasks_ = 0;
  bool bound_recording_ = false;
  bool gpus_only_ = false;
  BoundRecorder bound_kinds_;
  // Per GPU of the context, the bitmap of its CUDA workers (StarPU keeps a task's pointer to it
  // until the task ends: these live as long as the submitter).
  std::vector<std::vector<uint32_t>> gpu_workers_;
  bool gpu_workers_known_ = false;
  const std::vector<std::vector<uint32_t>>& gpu_workers();
};

}  // namespace pairhist
