// The end of a distributed run, on every rank (drivers/trajectory_job.cpp runs the frames): the
// ranks learn where the frames ended, hand their last counts over, rank 0 folds every interval
// and gets each rank's activity (and task trace), then StarPU-MPI stops.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/interval_exchange.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

struct DistributedEnd {
  Distribution& dist;
  const JobOptions& options;
  HistogramResult& header;  // species, pairs, units ...; its box kind is set here
  BoxKind kind;
  JobAccumulator& local;   // this rank's counts since its last hand-over (all taken)
  JobAccumulator* global;  // rank 0: the run's state
  IntervalExchange& exchange;
  const HistogramEngine& engine;
  std::chrono::steady_clock::time_point origin;                 // the ranks' common clock
  std::chrono::steady_clock::time_point engine_started;         // this rank's engine
  std::chrono::steady_clock::time_point start;                  // this rank's first frame
  std::function<void()> interval_closed;                        // rank 0: an interval was folded
  std::function<HistogramResult(const std::string&)> snapshot;  // rank 0: completed intervals
  std::function<void()> checkpoint;                             // rank 0: keep the state
  int frame_parts = 1;
};

/// Finishes the run on this rank; rank 0 returns the run's outcome, the others their own
/// activity (out.root false). A run that ended at a bad frame throws its InputError on rank 0
/// (after keeping the completed intervals) and RankFailure elsewhere; one stopped by a signal
/// returns with the signal in stopped_by_signal.
JobOutcome finish_distributed_job(DistributedEnd& d, JobOutcome out);

/// The engine's report, its workers and the pairs it examined for `whole_frames` frames.
void describe_engine(const HistogramEngine& engine, uint64_t whole_frames, JobOutcome& out);

/// What ranks other than 0 throw when the run fails: rank 0 says why; they end quietly with
/// `code`.
class RankFailure : public std::runtime_error {
 public:
  explicit RankFailure(int code) : std::runtime_error("the run failed"), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace pairhist
