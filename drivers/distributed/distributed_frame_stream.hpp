// The frames of one rank of a distributed run: rank 0 plans the run's frames once the run is
// defined, every rank follows the plan and counts the units it claims from rank 0
// (Distribution, a FrameSupply). The trajectory opens only then: the decoding threads claim the
// units. A stop or a bad frame is the run's, decided by rank 0 over the frames handed out.
#pragma once

#include <chrono>
#include <future>
#include <string>

#include "drivers/distributed/distributed_setup.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/job/frame_stream.hpp"

namespace pairhist {

class DistributedFrameStream : public FrameStream {
 public:
  /// `frames`: the run's frame selection, which rank 0 plans from; rank 0 reads its first frame
  /// from `trajectory` at once, on a thread of its own (empty: when it plans).
  DistributedFrameStream(Distribution& dist, const FramePlan& frames,
                         const std::string& trajectory = {});
  ~DistributedFrameStream() override;

  /// Shares rank 0's plan; a plan that stops the run before it starts is thrown here, on rank 0
  /// with its error and as RankFailure on the others.
  void open(const RunDefinition& run) override;
  std::unique_ptr<CountSink> make_sink(const RunDefinition& run, const JobClock& clock,
                                       BoxKind kind) override;

  int frame_parts() const override;
  std::vector<Algorithm> pair_algorithms() const override;
  int box_kind() const override { return plan_.box_kind; }
  int periodic_images() const override { return plan_.periodic_images; }
  /// An XTC file's frames end where rank 0's listing found it cut (other formats' ranks read
  /// through, and a cut frame is an error, as a damaged one).
  std::string cut_short() const override { return plan_.cut_short; }
  void limit_engine(EngineConfig& config) const override;

  /// Rank 0 decides a stop (the frames handed out are counted): no rank drops frames on its own.
  const std::atomic<int>* stop_flag() const override { return nullptr; }
  /// The run's frames end before this one, on every rank; this rank goes on to the end.
  bool ends_before(int64_t file_index, const std::string& message) override;
  void fail(const std::string& message) override { dist_.fail(message); }

 private:
  void refuse_failed_plan() const;

  Distribution& dist_;
  FramePlan frames_;
  int ncuda_ = -1;
  DistributedPlan plan_;
  std::future<FirstFrame> first_;                 // rank 0: the first frame, read ahead
  std::chrono::steady_clock::time_point origin_;  // the ranks' common clock: all have the plan
};

}  // namespace pairhist
