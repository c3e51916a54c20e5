#include "drivers/distributed/distributed_frame_stream.hpp"

#include <algorithm>
#include <stdexcept>

#include "drivers/distributed/distributed_count_sink.hpp"
#include "drivers/distributed/distributed_setup.hpp"
#include "drivers/job/engine_settings.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {
// Frames a process of a distributed run holds in its engine at once, plus one per GPU.
constexpr int kDistributedFramesInFlight = 2;
}  // namespace

DistributedFrameStream::DistributedFrameStream(Distribution& dist, const FramePlan& frames,
                                               const std::string& trajectory)
    : dist_(dist), frames_(frames) {
  // Rank 0 plans from the first frame (a 10.9M-atom XTC frame: 0.27 s of one thread, while
  // the other ranks waited for the plan): read while the topology loads.
  if (dist_.rank() == 0 && !trajectory.empty())
    first_ = std::async(std::launch::async, read_first_frame, trajectory, frames_);
}

DistributedFrameStream::~DistributedFrameStream() {
  if (first_.valid()) first_.wait();  // an error before open(): the read has nobody to tell
}

void DistributedFrameStream::open(const RunDefinition& run) {
  const JobOptions& o = run.options;
  ncuda_ = o.ncuda;
  DistributedPlan mine;
  if (dist_.rank() == 0)
    mine =
        plan_distributed_run(run, frames_, engine_config(o, run.atoms, BoxKind::none, run.r_max_nm),
                             dist_.ranks(), run.seed.box_kind, std::move(first_));
  mine.resumed_frames = static_cast<int64_t>(run.seed.frames());
  plan_ = dist_.share_plan(&mine, o.hooks.stop);
  refuse_failed_plan();
  origin_ = std::chrono::steady_clock::now();
  source_ = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, dist_, run.preparation);
}

void DistributedFrameStream::refuse_failed_plan() const {
  // Rank 0 says why the run cannot start (DistributedPlan::error_kind); the others end quietly
  // with the same exit status.
  const int kind = plan_.error_kind;
  if (kind != 0 && dist_.rank() != 0) throw RankFailure(kind >= 4 ? kind - 4 : kind == 2 ? 2 : 1);
  if (kind == 1) throw InputError(plan_.error);
  if (kind == 2) throw UsageError(plan_.error);
  if (kind == 3) throw std::runtime_error(plan_.error);
  if (kind >= 4) throw RankFailure(kind - 4);
}

std::unique_ptr<CountSink> DistributedFrameStream::make_sink(const RunDefinition& run,
                                                             const JobClock& clock, BoxKind kind) {
  return std::make_unique<DistributedCountSink>(dist_, run, clock, kind, frame_parts(),
                                                plan_.resumed_frames, origin_);
}

int DistributedFrameStream::frame_parts() const {
  return std::max(1, plan_.frame_parts);
}

std::vector<Algorithm> DistributedFrameStream::pair_algorithms() const {
  std::vector<Algorithm> algorithms;
  for (int a : plan_.pair_algorithms) algorithms.push_back(static_cast<Algorithm>(a));
  return algorithms;
}

void DistributedFrameStream::limit_engine(EngineConfig& config) const {
  // StarPU-MPI's sums run on a core of every rank; where the user or the feeding plan chose no
  // CPU workers, that core only sums.
  if (config.ncpu == 0 || config.ncpu_beside_gpus == 0) config.cpu_workers_count = false;
  if (config.ncpu == 0) config.ncpu = 1;
  if (config.ncpu_beside_gpus == 0) config.ncpu_beside_gpus = 1;
  // Frames claimed are frames held: a few per GPU keep them fed, more would pile up the last
  // frames on one rank while others have none.
  const int gpus =
      ncuda_ == 0 ? 0 : (ncuda_ > 0 ? std::min(ncuda_, cuda_devices()) : cuda_devices());
  config.max_frames_in_flight = kDistributedFramesInFlight + gpus;
}

bool DistributedFrameStream::ends_before(int64_t file_index, const std::string& message) {
  dist_.report_error(file_index, message);
  return true;
}

}  // namespace pairhist
