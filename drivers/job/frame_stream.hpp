// Where a run's frames come from (drivers/job/trajectory_pipeline.hpp): a frame source over the
// trajectory, and what the kind of run decides around it: when the trajectory opens, how the
// frames are divided, who may stop the run, what a bad frame does, and where the counts go
// (the CountSink of the same kind). One process reads its plan's frames (LocalFrameStream); a
// rank of a distributed run counts the units rank 0 hands out (DistributedFrameStream).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drivers/job/count_sink.hpp"
#include "drivers/job/frame_source.hpp"
#include "drivers/job/run_definition.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

class FrameStream {
 public:
  virtual ~FrameStream() = default;
  FrameStream(const FrameStream&) = delete;
  FrameStream& operator=(const FrameStream&) = delete;

  /// Once the run is defined: the stream is ready to deliver frames (source() exists).
  virtual void open(const RunDefinition& run) = 0;
  /// The reader of a trajectory the stream opened as it was made, decoding its first frames
  /// before open() (LocalFrameStream); null where the reader comes with open().
  virtual io::TrajectoryReader* opened_reader() { return nullptr; }
  /// Where the counts of this stream's frames go; after open().
  virtual std::unique_ptr<CountSink> make_sink(const RunDefinition& run, const JobClock& clock,
                                               BoxKind kind) = 0;

  /// The next unit and its frame; false when none is left or a stop is requested.
  bool next(io::TrajectoryFrame& frame, WorkUnit& unit);
  /// Whether next() returned false because the frames ran out, not because of a stop.
  bool ran_out() const { return ran_out_; }
  /// Where they ran out because the file ends inside a frame: the reader's error for it
  /// (FrameSource::cut_short); else empty.
  virtual std::string cut_short() const { return source_ ? source_->cut_short() : std::string(); }
  FrameSource& source() { return *source_; }
  int64_t frames_read() const { return source_->frames_read(); }

  /// Parts each frame is counted in (EngineConfig::frame_parts).
  virtual int frame_parts() const { return 1; }
  /// The algorithm of every species pair, when the run decided them before any frame.
  virtual std::vector<Algorithm> pair_algorithms() const { return {}; }
  /// The run's box kind, when it was decided before any frame; -1: the first frame's.
  virtual int box_kind() const { return -1; }
  /// Whether every periodic image within r_max is counted, when the run decided it before any
  /// frame (1 or 0; every rank of a distributed run as rank 0 on the run's first frame); -1:
  /// this process's first frame decides.
  virtual int periodic_images() const { return -1; }
  /// What this process's engine holds and where its workers go, after the feeding plan.
  virtual void limit_engine(EngineConfig& config) const { (void)config; }

  /// The stop request this process acts on (null: none); StopWatcher watches it too.
  virtual const std::atomic<int>* stop_flag() const = 0;
  bool stop_requested() const {
    const std::atomic<int>* stop = stop_flag();
    return stop != nullptr && stop->load() != 0;
  }
  /// The frame at `file_index` cannot be counted (`message` says why): true when the run's
  /// frames end before it and this process goes on to the end; false when the error ends the
  /// run here (it is thrown again).
  virtual bool ends_before(int64_t file_index, const std::string& message) = 0;
  /// Something other than a frame failed: a stream shared with other processes ends them all
  /// (not returning); else nothing to do before the error is thrown again.
  virtual void fail(const std::string& message) { (void)message; }

 protected:
  FrameStream() = default;
  std::unique_ptr<FrameSource> source_;

 private:
  bool ran_out_ = false;
};

/// One process's frames: those of its plan, read from a trajectory opened as soon as the stream
/// is made, before the topology has loaded (the first frames decode meanwhile).
class LocalFrameStream : public FrameStream {
 public:
  LocalFrameStream(const JobOptions& o, const FramePlan& plan);

  io::TrajectoryReader* opened_reader() override;
  void open(const RunDefinition& run) override;
  std::unique_ptr<CountSink> make_sink(const RunDefinition& run, const JobClock& clock,
                                       BoxKind kind) override;
  const std::atomic<int>* stop_flag() const override { return stop_; }
  bool ends_before(int64_t, const std::string&) override { return false; }

 private:
  const std::atomic<int>* stop_;
};

}  // namespace pairhist
