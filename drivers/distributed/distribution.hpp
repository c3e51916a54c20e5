// A run over several processes (the ranks of an MPI job). Every rank runs the same pipeline as
// a single process (drivers/job/trajectory_pipeline.hpp), with its own frame stream and count
// sink (drivers/distributed/distributed_frame_stream.hpp, distributed_count_sink.hpp) over this
// interface; only two things differ: which frames, or parts of frames, a rank counts (claimed
// one by one from rank 0, so that a rank with GPUs takes more than one without), and how the
// ranks' counts of each output interval become one exact result on rank 0 (StarPU-MPI,
// drivers/distributed/mpi_reduction.cpp). The MPI implementation is
// drivers/distributed/mpi_distribution.cpp; single-process runs have none.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "drivers/job/frame_source.hpp"

namespace pairhist {

/// What rank 0 decides before any frame is counted, and every rank follows.
struct DistributedPlan {
  /// The run's frames after any resumed ones, in order: these file indices when `listed`, else
  /// first, first + step, ... up to last (-1: the end of the file).
  bool listed = false;
  std::vector<int64_t> indices;
  int64_t first = 0, step = 1, last = -1;
  /// Frames handed out in parts: each in frame_parts parts from ordinal split_from on, and
  /// the last split_last frames (frame_parts 1: whole frames only).
  int frame_parts = 1;
  int64_t split_from = std::numeric_limits<int64_t>::max();
  int64_t split_last = 0;
  int box_kind = -1;  // the run's BoxKind
  /// Whether every periodic image within r_max is counted (EngineConfig::periodic_images), as
  /// the run's first frame decides it for one process: 1 or 0; -1 before a frame is read.
  int periodic_images = -1;
  int64_t resumed_frames = 0;        // frames a resumed run's checkpoint holds (before ordinal 0)
  std::vector<int> pair_algorithms;  // Algorithm per species pair; empty: each rank's own choice
  std::string trajectory;            // for the messages that name frames
  /// A listed plan's frames end at a damaged frame (file index; -1: none), with this error.
  int64_t bad_frame = -1;
  std::string bad_frame_message;
  /// A listed plan's frames end where the file ends inside a frame (cut short, or still being
  /// written): its error, which the result says it stopped by (FrameSource::cut_short).
  std::string cut_short;
  /// Set when the run cannot start (the output directory, the first frame, ...): every rank
  /// ends with it; kind 1 an input error, 2 a usage error, 3 any other, 4 + c: nothing to
  /// run, the other ranks end with exit code c (rank 0 says why).
  std::string error;
  int error_kind = 0;
};

/// How the run's frames ended, as every rank learns it once none is left to claim.
struct RunEnd {
  enum class Why { done, input_error, stopped };
  Why why = Why::done;
  int64_t frames = 0;   // the frames that count: ordinals [0, frames)
  std::string message;  // input_error: the one-line error of the first bad frame
  int signo = 0;        // stopped: the signal that stopped it
};

/// Per-rank figures for the run's report, gathered to rank 0 at the end.
struct RankReport {
  int rank = 0;
  std::string host;
  std::string json;  // the rank's own activity (drivers/report/activity_report.hpp)
};

class Distribution : public FrameSupply {
 public:
  virtual int rank() const = 0;
  virtual int ranks() const = 0;

  /// Rank 0 passes its plan (or one carrying the error that stops the run before it starts);
  /// every rank returns rank 0's, and the frame dispenser starts. `stop`: the signal flag each
  /// rank watches (a stop on any rank ends the run for all, after the frames handed out).
  virtual DistributedPlan share_plan(const DistributedPlan* plan, const std::atomic<int>* stop) = 0;
  /// This rank cannot read or count the frame at `file_index`: the run's frames end before it,
  /// and `message` (naming file and frame) is its error unless an earlier frame fails too.
  virtual void report_error(int64_t file_index, const std::string& message) = 0;
  /// Something other than the input failed on this rank: every rank is ended at once, with
  /// `message` on rank 0.
  [[noreturn]] virtual void fail(const std::string& message) = 0;
  /// After claim() returned false: how and where the run's frames ended. Returns once every rank
  /// has read or given up all frames handed to it, so all ranks learn the same end.
  virtual RunEnd run_end() = 0;

  /// Hands this rank's payload of output interval `interval` to the reduction (StarPU must be
  /// running). A payload is `count_entries` uint64 counts, which are added, then frame records
  /// of three words each, taken from the rank that filled them (a record's first word is
  /// ~0 where the rank has none). Every rank contributes to every interval up to the run's last,
  /// in increasing order.
  virtual void contribute(int64_t interval, std::vector<uint64_t> payload,
                          size_t count_entries) = 0;
  /// Rank 0: the reduced payload of `interval` (contributed here before) once its reduction is
  /// complete; with `wait`, waits for it. False when it is not (yet).
  virtual bool reduced(int64_t interval, std::vector<uint64_t>& payload, bool wait) = 0;
  /// At the end, on every rank: the largest of the ranks' `mine`.
  virtual int64_t agree_max(int64_t mine) = 0;
  /// At the end, on every rank: each rank's report, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<RankReport> gather_reports(const RankReport& mine) = 0;
  /// Rank 0: what the run has kept on disk so far ("3 complete intervals (30 frames) in DIR"),
  /// added to the message when a lost rank ends the job.
  virtual void note_kept(const std::string& what) = 0;
  /// Seconds this rank spent waiting for rank 0 to hand out frames, and in reductions.
  virtual double claim_seconds() const = 0;
  virtual double reduction_seconds() const = 0;
  /// Waits for this rank's reductions, shuts StarPU-MPI down (before StarPU itself) and stops
  /// the dispenser; every rank calls it once, at the end.
  virtual void finish() = 0;
};

/// What ranks other than 0 throw when the run fails: rank 0 says why; they end quietly with
/// `code`.
class RankFailure : public std::runtime_error {
 public:
  explicit RankFailure(int code) : std::runtime_error("the run failed"), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// The distribution of this process's run: null unless it is one of several ranks of an MPI
/// job (MpiWorld::distributed()).
std::unique_ptr<Distribution> make_distribution();

}  // namespace pairhist
