// The counts of a run in one process: the run's state is this process's own (JobAccumulator),
// intervals close and checkpoints are kept as the frame loop goes, and the end is the result.
#pragma once

#include <chrono>
#include <optional>

#include "drivers/job/count_sink.hpp"

namespace pairhist {

class LocalCountSink : public CountSink {
 public:
  LocalCountSink(const RunDefinition& run, const JobClock& clock, BoxKind kind);

  void keep_completed(const std::string& why) override;
  /// Throws InputError when the run ran through its frames without selecting any.
  JobOutcome finish(JobOutcome out, const HistogramEngine* engine,
                    const FrameStream& frames) override;

 private:
  bool after_unit(HistogramEngine& engine) override;
  bool checkpoint_due() const;
  void checkpoint();

  std::optional<std::chrono::steady_clock::time_point> last_checkpoint_;  // none: the start
};

}  // namespace pairhist
