// What the engine learns from its finished tasks (StarPU's per-task profiling, read in each
// task's completion callback): per-worker busy time, tasks and pairs, the task timeline, each
// frame's hand-over times, the throughputs the hybrid CPU share is planned from, and the task
// durations the measured LP bound is solved over.
#pragma once

#include <starpu.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "pairhist/engine.hpp"
#include "tasks/measured_recorder.hpp"
#include "tasks/throughput_share.hpp"

namespace pairhist {

class ActivityRecorder {
 public:
  ActivityRecorder();

  /// The completion callback of every task (argument: the recorder).
  static void task_done(void* recorder);

  /// Tasks of up to this many pairs (all-pairs tiles and groups) or estimated candidates
  /// (cell-list tasks) count as CPU-sized in the throughput totals.
  void set_cpu_task_limits(uint64_t tiles, uint64_t cells);
  /// Also record the tasks' durations by kind and arch for the measured LP bound.
  void start_measuring(unsigned context);
  /// The measured bound, once every task's callback has run.
  MeasuredBound finish_measuring();
  bool measuring() const { return measuring_; }

  void add_feed(const FrameFeed& f);
  double seconds_since_start() const;
  double start_us() const { return start_us_; }

  /// Running totals for the CPU share of all-pairs frames and of cell-list frames.
  ThroughputTotals tile_totals();
  ThroughputTotals cell_totals();

  /// Fills the per-worker clocks, makespan, tail, timeline and feed of `run`.
  void fill(RunActivity& run);

  /// Waits until `tasks` completion callbacks have run: StarPU runs a task's callback after
  /// releasing its data, so unregistering the data does not mean the callbacks are done, and the
  /// recorder must outlive them.
  void wait_for_callbacks(uint64_t tasks);

 private:
  struct WorkerClock {
    uint64_t tasks = 0;
    uint64_t pairs = 0;
    double busy_us = 0;
    double last_end_us = 0;
  };
  void record(starpu_task* task);

  std::mutex mutex_;
  std::condition_variable callbacks_done_;
  uint64_t callbacks_ = 0;
  double start_us_ = 0;
  double last_end_us_ = 0;
  std::vector<WorkerClock> clocks_ = std::vector<WorkerClock>(STARPU_NMAXWORKERS);
  std::vector<TaskSpan> timeline_;
  std::vector<FrameFeed> feed_;
  uint64_t tile_cpu_limit_ = 0, cell_cpu_limit_ = 0;
  ThroughputTracker tiles_, cells_;
  bool measuring_ = false;
  MeasuredRecorder measured_kinds_;
};

}  // namespace pairhist
