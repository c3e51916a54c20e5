// What rank 0 of a distributed run decides before any frame is counted
// (drivers/distributed/distribution.hpp): the run's frames (an XTC file's are listed from its frame
// headers, which also find a damaged frame before any work; other formats are read through only
// when a time window needs their frames' times), the box kind, into how many parts each frame is
// split, and, for split frames, the algorithm of every species pair.
#pragma once

#include <future>
#include <string>
#include <vector>

#include "drivers/distributed/distribution.hpp"
#include "drivers/job/run_definition.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// Frames in parts: where the frames are listed, the last kSplitFramesPerRank x ranks of them
/// (all of them for short runs: one huge frame is split over every rank), and the frames a slow
/// rank takes near the end (FrameDispenser), go out in parts, as many as kPartsPerRank x ranks,
/// each of at least kMinPartSeconds of work by the cost model on rank 0's devices, and at least
/// rank 0's time to read the first frame shared over its cores (a part costs its rank a read of
/// the whole frame), so that the units get short where the ranks finish.
/// --frame-parts N splits every frame in N.
constexpr int kSplitFramesPerRank = 6;  // twice the units a rank holds (FrameDispenser)
constexpr int kPartsPerRank = 4;
constexpr double kMinPartSeconds = 0.005;

/// The parts of the last frames: a frame's counting (`count_seconds` on a rank's devices) in
/// parts of at least kMinPartSeconds and of reading the frame (`read_seconds` on one core) shared
/// over the rank's `cores`, at most kPartsPerRank x ranks; 1: whole frames.
int tail_frame_parts(double count_seconds, double read_seconds, int cores, int ranks);

/// The run's first frame as one process reads it (one decoding thread), its index (-1: the
/// plan selects no frame), the frames read to reach it and the seconds it took.
struct FirstFrame {
  io::TrajectoryFrame frame;
  int64_t index = -1;
  int64_t frames_read = 0;
  double read_seconds = 0;
};
FirstFrame read_first_frame(const std::string& trajectory, const FramePlan& frames);

/// Rank 0: the plan for `ranks` ranks. `frames`: the run's frame selection (a resumed run's
/// resume_after included); `config`: the engine configuration the ranks use (its box kind is
/// the first frame's unless `box_kind` >= 0, a resumed run's); `run`: the options and the
/// species' positions.
/// `first`: read_first_frame's, read while the topology loaded (its exceptions are the plan's),
/// or read here when not valid.
/// Problems that stop the run before it starts come back in the plan's error, never thrown.
DistributedPlan plan_distributed_run(const RunDefinition& run, const FramePlan& frames,
                                     EngineConfig config, int ranks, int box_kind,
                                     std::future<FirstFrame> first = {});

}  // namespace pairhist
