// The trajectory job as a pipeline (drivers/job/trajectory_job.hpp): a frame stream yields the
// run's frames (FrameStream: this process's plan, or the units of a distributed run), the engine
// counts them, and a count sink keeps the exact state and makes the outputs of it (CountSink).
// The kind of run is the kind of stream and sink; the pipeline between them is the same.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "drivers/job/count_sink.hpp"
#include "drivers/job/frame_exclusions.hpp"
#include "drivers/job/frame_stream.hpp"
#include "drivers/job/run_definition.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "pairhist/engine.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

class TrajectoryPipeline {
 public:
  explicit TrajectoryPipeline(const JobOptions& options);
  TrajectoryPipeline(const TrajectoryPipeline&) = delete;
  TrajectoryPipeline& operator=(const TrajectoryPipeline&) = delete;

  /// Runs the job, once.
  JobOutcome run();
  /// After run(): shuts the engine down before the reader and the frames go.
  void release_engine();

 private:
  void start_loading();
  void assemble();
  void count_frames();
  void count_until_end();
  /// Hands the unit just read to the engine; false when the run's frames end before it.
  bool count_unit();
  /// Hands the engine the atoms of the frame just read that lie inside the run's --sphere (at
  /// their minimum image around its centre, without a box) and returns their number per species.
  std::vector<int64_t> submit_sphere(const BoxMatrix& box, const std::string& where);
  // start_engine for the first frame, its species' columns made meanwhile where it has none.
  void start_engine_with_first_frame(const BoxMatrix& box, bool dynamic);
  void start_engine(const io::TrajectoryFrame* first, const BoxMatrix* box);
  std::string device_error_message(const DeviceError& e) const;

  // In the order they are made; what depends on another is destroyed first.
  JobOptions options_;  // as the caller gave them; run_->options as the topology completed them
  // The host pinning hooks installed (before any column is allocated outside the reader).
  std::shared_future<void> pinning_ready_;
  // The decoding threads stage columns until the GPUs are ready (TrajectoryReader::
  // await_pinning) instead of waiting for the hooks: pinning while CUDA makes the contexts
  // waits for them (frames pinned then took 0.85-1.2 s on the 4x H200 node).
  io::TrajectoryReader* awaiting_pinning_ = nullptr;
  std::future<double> gpus_ready_;  // when the GPUs' contexts were made (process seconds)
  struct LoadedTopology {
    analysis::Topology topology;
    JobOptions resolved;  // with the topology and species the file gave
    double seconds = 0;
    double loaded_at = 0;  // process seconds
  };
  std::future<LoadedTopology> topology_;
  std::unique_ptr<FrameStream> stream_;
  std::optional<RunDefinition> run_;
  JobClock clock_;
  BoxKind kind_ = BoxKind::none;
  bool kind_known_ = false;
  bool images_ = false;  // every periodic image within r_max (EngineConfig::periodic_images)
  std::unique_ptr<CountSink> sink_;
  JobOutcome out_;
  std::optional<FrameExclusions> exclusions_;
  bool hands_over_ = false;
  io::TrajectoryFrame frame_;
  FrameSpecies frame_species_;          // a run with a dynamic species: this frame's atoms
  analysis::SphereFrame sphere_frame_;  // --sphere: the frame's cut-out, its buffers reused
  WorkUnit unit_;
  std::vector<int64_t> engine_frames_;  // the file's frame of each frame the engine was given
  std::unique_ptr<HistogramEngine> engine_;
  // After the engine: it is gone before the engine is.
  std::optional<StopWatcher> watcher_;
};

}  // namespace pairhist
