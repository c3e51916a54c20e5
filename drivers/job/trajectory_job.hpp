// A whole histogram run over a trajectory: a frame stream (drivers/job/frame_stream.hpp) yields
// the frames, the task library counts them, and a count sink (drivers/job/count_sink.hpp) keeps
// the exact state (drivers/job/job_accumulator.hpp) and hands it to the caller's output callbacks
// as intervals complete, at checkpoints, and at the end (drivers/job/trajectory_pipeline.hpp). A
// resumed run is the same run from a checkpoint's state, its frames starting after the frames
// that state holds. Shared by the `pairhist run` command and the integration tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "io/xtc/xtc_parallel_reader.hpp"
#include "pairhist/engine.hpp"
#include "pairhist/result.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

struct JobState;
struct RunDefinition;
class Distribution;
namespace analysis {
struct Topology;
}

struct SpeciesSpec {
  std::string name;
  std::string selection;  // atom-name globs or an expression (analysis/selection.hpp)
};

struct JobOptions {
  std::string trajectory;            // any format open_trajectory reads
  std::string topology;              // empty: the trajectory's own species (CADISHI HDF5)
  std::vector<SpeciesSpec> species;  // empty with a CADISHI file: every species of the file
  // The species pairs counted, as "A-B" (species names); empty: every pair A <= B. A pair left
  // out never becomes a task and is absent from the result.
  std::vector<std::string> pairs;
  double r_max = 0;  // in `units`
  int nbins = 0;
  std::string units = "nm";  // nm | angstrom
  Precision precision = Precision::single;
  int64_t first = 0;  // frame selection: first, last (inclusive; -1 = end), step
  int64_t last = -1;
  int64_t step = 1;
  // Time window in ps (gmx -b/-e): frames outside it are skipped; NaN: no bound. Applied before
  // first/last/step, which count frame indices in the file.
  double begin_time = std::numeric_limits<double>::quiet_NaN();
  double end_time = std::numeric_limits<double>::quiet_NaN();
  std::string scheduler;
  bool whole_frames = false;  // --schedule static: one task per frame (CADISHI's design)
  int ncpu = -1;
  int ncuda = -1;
  int frames_in_flight = 0;        // 0: as many as memory_budget_mib allows (2..64)
  uint64_t memory_budget_mib = 0;  // as EngineConfig::memory_budget_bytes; 0: the feeding plan's
                                   // (the engine's 64 MiB, more for GPUs on a node with memory)
  bool sum_tasks = false;      // explicit sum tasks instead of StarPU REDUX (run --reduction sum)
  int reserve_cores = -1;      // cores kept free of CPU workers; -1: one when GPUs are fed
  uint64_t task_pairs = 0;     // row tile size; 0: the decomposition policy's choice
  bool lp_bound = false;       // compute StarPU's LP lower bound of the makespan
  bool lp_bound_text = false;  // with lp_bound: keep StarPU's LP (RunActivity::lp_text)
  int decode_threads = 0;      // XTC frames decoded in parallel; 0: automatic, 1: serial
  Algorithm algorithm = Algorithm::automatic;  // how pairs are found (engine.hpp)
  int cell_reach = 0;                          // cell lists: 0 = default
  std::string cell_order;                      // cell lists: empty = default
  double volume = 0;  // for trajectories without a box: the volume g(r) is normalised by (units^3)
  // gmx rdf -xy: distances in the x-y plane only (every position's z and the box's c vector
  // replaced, flatten_xy), and each frame's "volume" its box's x-y area (units^2).
  bool xy = false;
  // --sphere SELECTION,R (analysis/sphere_cut.hpp): per frame only the atoms within R (--units)
  // of the selection's centre, counted without a box. Empty: the whole frames.
  std::string sphere;
  std::string index_file;        // GROMACS .ndx serving `group NAME` selections; may be empty
  std::string exclude = "none";  // none | residue: same-residue pairs are not counted
  std::string norm = "rdf";      // rdf | density | none (analysis/rdf.hpp)
  std::function<void(int64_t frames_done)> progress;  // called after each submitted frame
  int64_t interval = 0;  // frames per output block (CADISHI's `sum`); 0: the whole run
  /// Called with the result so far after every completed interval, marked incomplete
  /// (stopped_by "in progress"), and once more, with the input error as stopped_by, when bad
  /// input stops the run after some intervals were completed.
  std::function<void(const HistogramResult& so_far)> on_interval;
  /// Called with the exact state to keep (a checkpoint) at every completed interval, at least
  /// every checkpoint_seconds while frames are counted (0: only at intervals), and when a stop
  /// request ends the run early. The frames in flight are drained first, so each call costs a
  /// pause of the pipeline.
  std::function<void(const JobState& state)> on_checkpoint;
  double checkpoint_seconds = 60;
  /// Called once the run is defined over its topology (`run`: the options as the topology
  /// completed them, every species' atoms), in the job's thread, before the trajectory is opened
  /// and before any frame is counted. What it throws ends the job as a bad selection would. `run
  /// --scattering` decides the species' elements here, from the run's own atoms: the topology
  /// is read, and the selections resolved, once.
  std::function<void(const RunDefinition& run, const analysis::Topology& topology)> on_defined;
  /// A checkpoint's state to go on from (a resumed run): its frames are not read again. Null:
  /// from the start.
  const JobState* resume = nullptr;
  /// Non-zero (a signal number) asks the run to stop between frames: frames whose tasks have
  /// begun are finished, the rest dropped, and the run returns with result.complete false. In a
  /// distributed run a stop on any rank ends the frames handed out after it, on every rank.
  const std::atomic<int>* stop = nullptr;
  /// A process of a distributed run (drivers/distributed/distribution.hpp): its frames come from
  /// rank 0, its counts go to rank 0, which alone calls the output callbacks and returns the
  /// result.
  Distribution* distribution = nullptr;
  int frame_parts = 0;            // distributed runs: parts per frame; 0: automatic
  std::string output_place;       // distributed runs: where intervals are kept, for messages
  bool gather_traces = false;     // distributed runs: every rank's task trace to rank 0
  bool reading_timeline = false;  // JobOutcome::reading_timeline (an XTC read by threads)
};

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
  // Its start, in seconds since its own process began (JobOutcome::start_marks): where a rank
  // waits before its first frame (for the plan, for its GPU).
  double run_defined = 0, counting = 0, engine_started = 0;
  double after_launcher = 0;  // seconds_after_parent()
};

struct JobOutcome {
  HistogramResult result;
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
  // Every delivered frame's reading (JobOptions::reading_timeline), in seconds on the task
  // trace's clock (negative: before the engine started).
  std::vector<io::ReadingTiming> reading_timeline;
  double gpu_seconds = 0;   // the GPUs' estimated seconds per frame (the feeding plan's figure)
  bool feed_bound = false;  // the plan found the GPUs faster than the readers could feed
  // The feeding plan's inputs and decision (tasks/feeding_plan.hpp), when it was made (an XTC
  // read by decoding threads), and whether it was the one before issue 24 (PAIRHIST_FEEDING).
  bool feeding_planned = false;
  bool feeding_legacy = false;
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
  int stopped_by_signal = 0;    // the stop request that ended the run early, or 0
  size_t frames_resumed = 0;    // frames the resumed checkpoint held
  uint64_t frames_dropped = 0;  // frames read and handed over, then dropped by a stop
  // A distributed run: whether this process holds the result (rank 0; the others return
  // only their own activity), the ranks, their activity, the whole run's span on the common
  // clock and its tail (the last rank's last task end minus the first rank's), and every rank's
  // task trace (with --task-trace) as CSV rows with the rank and common-clock times.
  bool root = true;
  int ranks = 1;
  int frame_parts = 1;
  std::vector<RankActivity> rank_activity;
  double ranks_makespan_seconds = 0;
  double ranks_tail_idle_seconds = 0;
  std::string rank_traces;
};

/// Parses a `--species NAME=SELECTION` value.
SpeciesSpec parse_species(const std::string& text);

/// Runs the job; throws InputError / UsageError with one-line messages on bad input.
JobOutcome run_trajectory_job(const JobOptions& options);

/// How long this process has run (from the kernel's start time, so loading the shared libraries
/// counts too); 0 where /proc cannot say.
double process_seconds();

/// How much later than its parent this process began (a rank of an MPI job: after mpirun, or
/// orted, or srun's step daemon, whose own start, e.g. discovering the machine, precedes every
/// rank's clock); 0 where /proc cannot say.
double seconds_after_parent();

}  // namespace pairhist
