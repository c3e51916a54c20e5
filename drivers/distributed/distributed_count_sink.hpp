// The counts of one rank of a distributed run. A rank hands its counts of each output interval
// to rank 0 (IntervalExchange) when its next unit lies in a later one, and at the end; rank 0
// folds the reduced intervals into the run's state and keeps it as one process keeps its own
// (checkpoint, then outputs). At the end every rank learns where the frames ended, hands its
// last counts over, rank 0 gets each rank's activity (and task trace), then StarPU-MPI stops.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/interval_exchange.hpp"
#include "drivers/job/count_sink.hpp"

namespace pairhist {

class DistributedCountSink : public CountSink {
 public:
  /// `frame_parts`: parts per frame of the plan; `resumed_frames`: frames a resumed run's
  /// checkpoint holds; `origin`: the ranks' common clock.
  DistributedCountSink(Distribution& dist, const RunDefinition& run, const JobClock& clock,
                       BoxKind kind, int frame_parts, int64_t resumed_frames,
                       std::chrono::steady_clock::time_point origin);

  void set_box_kind(BoxKind kind, bool periodic_images) override;
  /// A unit of a later interval: this rank's counts of its interval go to rank 0 first.
  void unit_coming(const WorkUnit& unit, HistogramEngine& engine) override;
  void submitted(const WorkUnit& unit, const FrameRecord& frame, SparseBins excluded) override;
  /// Nothing to add: a rank's own counts never hold a completed interval (rank 0 keeps them as
  /// they are folded).
  void keep_completed(const std::string&) override {}
  /// StarPU-MPI needs StarPU, frames or not.
  bool needs_engine_to_finish() const override { return true; }
  /// Rank 0 returns the run's outcome, the others their own activity (out.root false). A run
  /// that ended at a bad frame throws its InputError on rank 0 (after keeping the completed
  /// intervals) and RankFailure elsewhere; one stopped by a signal returns with the signal in
  /// stopped_by_signal.
  JobOutcome finish(JobOutcome out, const HistogramEngine* engine,
                    const FrameStream& frames) override;

 private:
  bool after_unit(HistogramEngine& engine) override;
  void interval_closed();
  void checkpoint();
  // `cut_short`: the error of a frame the file ends inside, where the frames ended before it.
  JobOutcome finish_run(JobOutcome out, const HistogramEngine& engine,
                        const std::string& cut_short);
  /// This rank's activity, on the common clock, gathered on rank 0 (empty elsewhere).
  std::vector<RankReport> gather_activity(const JobOutcome& mine, const HistogramEngine& engine);
  /// Rank 0: the run's outcome, its own engine's report, and every rank's part.
  void add_ranks(JobOutcome& out, const JobOutcome& mine, const std::vector<RankReport>& reports);

  Distribution& dist_;
  int frame_parts_;
  std::chrono::steady_clock::time_point origin_;
  IntervalExchange exchange_;
  std::unique_ptr<JobAccumulator> global_;  // rank 0: the run's state, from the ranks' intervals
};

}  // namespace pairhist
