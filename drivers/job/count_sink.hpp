// Where the engine's counts go (drivers/job/trajectory_pipeline.hpp): the exact state of the run,
// kept as frames are handed to the engine and its histograms taken, and the output callbacks
// made from it. One process keeps the run's state itself (LocalCountSink); a rank of a
// distributed run hands its counts to rank 0, which keeps the state (DistributedCountSink).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/job/frame_source.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/run_definition.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

class FrameStream;

/// The times a run's figures are taken from (JobMeasurements::seconds and its parts).
struct JobClock {
  std::chrono::steady_clock::time_point start;           // this process's first frame read
  std::chrono::steady_clock::time_point engine_started;  // this process's engine
  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

class CountSink {
 public:
  /// `interval` and `seed` as JobAccumulator's, for this process's own counts; `kind`: the
  /// run's box kind as known before its first frame.
  CountSink(const RunDefinition& run, const JobClock& clock, BoxKind kind, int64_t interval,
            JobState seed);
  virtual ~CountSink() = default;
  CountSink(const CountSink&) = delete;
  CountSink& operator=(const CountSink&) = delete;

  /// The run's box kind and whether it counts every periodic image, fixed by its first frame.
  virtual void set_box_kind(BoxKind kind, bool periodic_images);
  /// Before `unit` goes to the engine.
  virtual void unit_coming(const WorkUnit& unit, HistogramEngine& engine) {
    (void)unit, (void)engine;
  }
  /// `unit` went to the engine as `frame`, with its excluded pairs' bins.
  virtual void submitted(const WorkUnit& unit, const FrameRecord& frame, SparseBins excluded);
  /// After every unit handed to the engine: false when the run ends here (a stop dropped frames
  /// while the engine drained them for an interval or a checkpoint).
  bool unit_done(HistogramEngine& engine);
  /// The engine's histograms holding its frames before `counted` (HistogramEngine::frames_counted
  /// after the take).
  void taken(std::vector<std::vector<uint64_t>> counts, uint64_t counted) {
    counts_.taken(run_histograms(run_, std::move(counts)), counted);
  }
  /// The run fails with `why`: what its completed intervals hold is kept, marked incomplete.
  virtual void keep_completed(const std::string& why) = 0;
  /// Whether finish() needs an engine even when no frame started one.
  virtual bool needs_engine_to_finish() const { return false; }
  /// The run's outcome once the frames ended and `engine` (null if never started) finished.
  virtual JobOutcome finish(JobOutcome out, const HistogramEngine* engine,
                            const FrameStream& frames) = 0;

 protected:
  /// After unit_done's bookkeeping common to all sinks.
  virtual bool after_unit(HistogramEngine& engine) = 0;
  /// Takes the engine's histograms into this process's counts.
  void take_histograms(HistogramEngine& engine);
  /// The result as far as `state`'s completed intervals go: what is safe to write while the run
  /// goes on, or after it failed.
  HistogramResult snapshot(const JobAccumulator& state, const std::string& stopped_by) const;
  HistogramResult header() const;  // with the run's box kind

  const RunDefinition& run_;
  const JobClock& clock_;
  BoxKind kind_;
  JobAccumulator counts_;  // this process's counts
};

}  // namespace pairhist
