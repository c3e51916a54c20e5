// What a trajectory run measured about itself (drivers/job/trajectory_job.hpp): its times and
// start and end marks, the engine's workers and tasks, the reading and the feeding plan, and a
// distributed run's ranks. The run summary and the report (drivers/report/) show them; the
// counts are the JobOutcome's result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/engine.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

/// One rank's part of a distributed run, its times on a clock common to all ranks (seconds
/// from when every rank had the plan).
struct RankActivity {
  int rank = 0;
  std::string host;
  uint64_t units = 0;  // frames (or parts of frames) it counted
  uint64_t tasks = 0;
  uint64_t pairs = 0;  // pairs it examined (all pairs of its rows; cell lists' candidates)
  int cpu_workers = 0, cuda_workers = 0;
  double busy_seconds = 0;      // summed over its workers
  double first_task_start = 0;  // on the common clock
  double last_task_end = 0;
  double claim_seconds = 0;      // waiting for rank 0 to hand out frames
  double reduction_seconds = 0;  // submitting and waiting for StarPU-MPI's reductions
  // Its start, in seconds since its own process began (JobMeasurements::start_marks): where a rank
  // waits before its first frame (for the plan, for its GPU).
  double run_defined = 0, counting = 0, engine_started = 0;
  double after_launcher = 0;  // seconds_after_parent()
};

struct JobMeasurements {
  double seconds = 0;           // from the first frame read to the last histogram collected
  uint64_t pairs_examined = 0;  // pairs whose distance was computed, within r_max or not: all
                                // pairs (excluded and self pairs not included), or for pairs
                                // counted with cell lists the neighbour-cell candidates
  RunActivity activity;
  int cpu_workers = 0;
  int cuda_workers = 0;
  std::string scheduler;
  uint64_t tasks = 0;
  int frames_in_flight = 0;  // frame buffers the engine held at once
  uint64_t frame_bytes = 0;  // coordinates of one frame as the kernels read them
  // How frames were prepared (XTC read with decoding threads; 0 threads: a serial reader).
  int decode_threads = 0;
  double prepare_seconds = 0;  // a decoding thread's seconds per frame, as of the first frame
  // Over the whole run: a decoding thread's seconds per frame, the seconds decoding threads
  // together waited for room in the reading window, and the counting thread for its frames.
  double decode_seconds_per_frame = 0;
  double decode_window_wait_seconds = 0;
  double decode_caller_wait_seconds = 0;
  int64_t decode_caller_promotions = 0;  // staged frames the counting thread copied itself
  double decode_lock_wait_seconds = 0;   // decoding threads waiting to claim (Waits)
  // Every delivered frame's reading (RunSpec::reading_timeline), in seconds on the task
  // trace's clock (negative: before the engine started).
  std::vector<io::ReadingTiming> reading_timeline;
  double gpu_seconds = 0;   // the GPUs' estimated seconds per frame (the feeding plan's figure)
  bool feed_bound = false;  // the plan found the GPUs faster than the readers could feed
  // The feeding plan's inputs and decision (tasks/feeding_plan.hpp), when it was made (an XTC
  // read by decoding threads).
  bool feeding_planned = false;
  FeedingInputs feeding_inputs;
  FeedingPlan feeding_plan;
  // Before `seconds` began: the process until its first frame was read (loading libraries,
  // reading the topology, selecting, opening the trajectory), and two parts of it.
  double before_first_frame_seconds = 0;
  double topology_seconds = 0;      // reading the topology (beside the trajectory's opening)
  double define_seconds = 0;        // selections, exclusions: what the run counts
  double first_frame_seconds = 0;   // of `seconds`: until the first frame was read
  double engine_start_seconds = 0;  // of `seconds`: starting the engine (StarPU, its workers)
  // Of `seconds`, before the engine starts: waiting for the GPUs' contexts (made while the
  // topology loads and the first frame decodes).
  double gpu_wait_seconds = 0;
  // The start step by step, in seconds since the process began (0: not reached): where a big
  // system's second before its first frame goes (issue 24).
  struct StartMarks {
    double pipeline = 0;         // the job began (libraries loaded, options read)
    double trajectory_open = 0;  // the trajectory opened, its decoding threads started
    double topology_loaded = 0;  // the topology read (on a thread of its own)
    double gpus_ready = 0;       // the GPUs' contexts made (on a thread of its own)
    double run_defined = 0;      // selections and exclusions done
    double counting = 0;         // the first frame asked for (before_first_frame_seconds)
    double engine_started = 0;   // the engine's workers running
  } start_marks;
  // And after the counting (issue 24: the whole process ended 0.3-1 s after the run on GPU
  // nodes): the engine and the reader gone (StarPU shut down, pinned columns given back), and
  // the outputs written (set by the command that writes them).
  struct EndMarks {
    double finished = 0;         // the result taken from the engine
    double engine_released = 0;  // StarPU shut down (its models saved, the devices' memory freed)
    double released = 0;
    double outputs_written = 0;
  } end_marks;
  // A distributed run: the ranks, their activity, the whole run's span on the common clock and
  // its tail (the last rank's last task end minus the first rank's), and every rank's task trace
  // (with --task-trace) as CSV rows with the rank and common-clock times.
  int ranks = 1;
  int frame_parts = 1;
  std::vector<RankActivity> rank_activity;
  double ranks_makespan_seconds = 0;
  double ranks_tail_idle_seconds = 0;
  std::string rank_traces;
};

/// How long this process has run (from the kernel's start time, so loading the shared libraries
/// counts too); 0 where /proc cannot say.
double process_seconds();

/// How much later than its parent this process began (a rank of an MPI job: after mpirun, or
/// orted, or srun's step daemon, whose own start, e.g. discovering the machine, precedes every
/// rank's clock); 0 where /proc cannot say.
double seconds_after_parent();

}  // namespace pairhist
