#include "drivers/job/frame_stream.hpp"

#include <cstdlib>

#include "drivers/job/local_count_sink.hpp"
#include "io/xtc_parallel_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {
namespace {

// Frames of this many atoms read by the automatic reader with GPUs to feed: reading bounds the
// run (issue 24), so every decoding thread starts as soon as the species are known, not once the
// feeding plan is made after the first frame and the engine's start (W1 x16 on the 4-GPU node:
// ~0.6 s later, while 4 threads decoded). The plan may lower the count again.
constexpr int kEarlyDecodingAtoms = 1000000;

bool early_decoding_allowed() {  // PAIRHIST_EARLY_DECODING=0: the plan starts them (comparisons)
  const char* v = std::getenv("PAIRHIST_EARLY_DECODING");
  return !(v && std::atoi(v) == 0);
}

}  // namespace

bool FrameStream::next(io::TrajectoryFrame& frame, WorkUnit& unit) {
  if (source_->next(frame, unit)) return true;
  ran_out_ = !stop_requested();
  return false;
}

LocalFrameStream::LocalFrameStream(const JobOptions& o, const FramePlan& plan)
    : stop_(o.stop), feeds_gpus_(o.decode_threads == 0 && o.ncuda != 0) {
  // The species are not known yet: the decoding threads deliver whole frames until open().
  io::FramePreparation pending;
  pending.pending = true;
  source_ = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, plan, pending);
}

void LocalFrameStream::open(const RunDefinition& run) {
  source_->set_preparation(run.preparation);
  source_->stop_on(stop_);
  auto* parallel = dynamic_cast<io::XtcParallelReader*>(&source_->reader());
  if (feeds_gpus_ && parallel && parallel->natoms() >= kEarlyDecodingAtoms &&
      early_decoding_allowed() && cuda_devices() > 0)
    parallel->set_active_threads(parallel->max_threads());
}

std::unique_ptr<CountSink> LocalFrameStream::make_sink(const RunDefinition& run,
                                                       const JobClock& clock, BoxKind kind) {
  return std::make_unique<LocalCountSink>(run, clock, kind);
}

}  // namespace pairhist
