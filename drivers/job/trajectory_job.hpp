// A whole histogram run over a trajectory: a frame stream (drivers/job/frame_stream.hpp) yields
// the frames, the task library counts them, and a count sink (drivers/job/count_sink.hpp) keeps
// the exact state (drivers/job/job_accumulator.hpp) and hands it to the caller's output callbacks
// as intervals complete, at checkpoints, and at the end (drivers/job/trajectory_pipeline.hpp). A
// resumed run is the same run from a checkpoint's state, its frames starting after the frames
// that state holds. Shared by the `pairhist run` command and the integration tests.
//
// The job's options are what the run is (RunSpec, drivers/job/run_spec.hpp), the caller's hooks
// into it, and the part a process of a distributed run adds; its outcome is the result and what
// the run measured (JobMeasurements, drivers/job/job_measurements.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "drivers/job/job_measurements.hpp"
#include "drivers/job/run_spec.hpp"
#include "pairhist/result.hpp"

namespace pairhist {

struct JobState;
struct RunDefinition;
struct FramePlan;
struct JobOptions;
class FrameStream;
namespace analysis {
struct Topology;
}

/// The caller's hooks into a running job: progress, outputs as they complete, checkpoints, the
/// run as defined, and the stop request it watches.
struct JobHooks {
  std::function<void(int64_t frames_done)> progress;  // called after each submitted frame
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
  /// Non-zero (a signal number) asks the run to stop between frames: frames whose tasks have
  /// begun are finished, the rest dropped, and the run returns with result.complete false. In a
  /// distributed run a stop on any rank ends the frames handed out after it, on every rank.
  const std::atomic<int>* stop = nullptr;
};

/// What a process of a distributed run adds to its job.
struct DistributedJob {
  /// A process of a distributed run: its frames come from rank 0 (the caller's
  /// JobOptions::open_frame_stream makes a DistributedFrameStream,
  /// drivers/distributed/distributed_frame_stream.hpp), its counts go to rank 0, which alone
  /// calls the output callbacks and returns the result. False: one process reads its own frames,
  /// and the rest of this part is not read.
  bool on_ranks = false;
  int frame_parts = 0;         // parts per frame; 0: automatic
  std::string output_place;    // where intervals are kept, for messages
  bool gather_traces = false;  // every rank's task trace to rank 0
  bool active() const { return on_ranks; }
};

/// Opens the stream of a job's frames (drivers/job/frame_stream.hpp) from the run's frame plan:
/// the caller's choice of where the frames come from. The job calls it on its own thread just
/// after it has begun loading the topology and starting the GPUs, so that the trajectory opens,
/// and its first frames decode, meanwhile; where it throws, a topology error is reported
/// instead (it comes first in the arguments). An opener rather than a stream the caller opened
/// ahead: the moment (after those threads start) and the order of the errors stay the job's,
/// which an opened stream would need a future of the caller's to keep.
using FrameStreamOpener =
    std::function<std::unique_ptr<FrameStream>(const FramePlan& frames, const JobOptions& job)>;

/// The frames of one process: its plan's frames read from the trajectory (LocalFrameStream).
FrameStreamOpener local_frame_streams();

struct JobOptions : RunSpec {
  JobHooks hooks;
  /// Where the frames come from (default: this process reads them).
  FrameStreamOpener open_frame_stream = local_frame_streams();
  /// A checkpoint's state to go on from (a resumed run): its frames are not read again. Null:
  /// from the start.
  const JobState* resume = nullptr;
  /// The run's box kind (a BoxKind) where it is known before the first frame: triclinic for a
  /// run counted again because a later frame's box was triclinic and the first's orthorhombic
  /// (run_trajectory_job). -1: the first frame's (or the resumed checkpoint's).
  int box_kind = -1;
  /// Whether every periodic image within r_max is counted (EngineConfig::periodic_images):
  /// 1 for a run counted again because a later frame's box was too small for its r_max, -1:
  /// where the first frame's box is (r_max beyond half its shortest lattice vector), or as the
  /// resumed checkpoint's frames were counted.
  int periodic_images = -1;
  DistributedJob distributed;  // a process of a distributed run; empty in one process
};

struct JobOutcome : JobMeasurements {
  HistogramResult result;
  // Whether this process holds the result: a distributed run's rank 0 (the others return only
  // their own measurements); always in one process.
  bool root = true;
  int stopped_by_signal = 0;    // the stop request that ended the run early, or 0
  size_t frames_resumed = 0;    // frames the resumed checkpoint held
  uint64_t frames_dropped = 0;  // frames read and handed over, then dropped by a stop
  // Where the trajectory ends inside a frame (cut short, or still being written): the reader's
  // error for it; the frames before it are the result, marked incomplete with this as stopped_by.
  std::string incomplete_frame;
};

/// Runs the job; throws InputError / UsageError with one-line messages on bad input. A frame whose
/// box is triclinic in a run whose first box was orthorhombic (gamma = 89.95 after 90) starts the
/// job again from its first frame as a triclinic run, with a warning (in one process; a
/// distributed run fails there): the counts are then exactly those of a run whose boxes were all
/// triclinic, whichever frame came first.
JobOutcome run_trajectory_job(const JobOptions& options);

}  // namespace pairhist
