#include "drivers/job/frame_stream.hpp"

#include "drivers/job/local_count_sink.hpp"

namespace pairhist {

bool FrameStream::next(io::TrajectoryFrame& frame, WorkUnit& unit) {
  if (source_->next(frame, unit)) return true;
  ran_out_ = !stop_requested();
  return false;
}

LocalFrameStream::LocalFrameStream(const JobOptions& o, const FramePlan& plan)
    : stop_(o.hooks.stop) {
  // The species are not known yet: the decoding threads deliver whole frames until open().
  io::FramePreparation pending;
  pending.pending = true;
  source_ = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, plan, pending);
}

FrameStreamOpener local_frame_streams() {
  return [](const FramePlan& plan, const JobOptions& job) {
    return std::unique_ptr<FrameStream>(std::make_unique<LocalFrameStream>(job, plan));
  };
}

io::TrajectoryReader* LocalFrameStream::opened_reader() {
  return &source_->reader();
}

void LocalFrameStream::open(const RunDefinition& run) {
  source_->set_preparation(run.preparation);
  source_->stop_on(stop_);
}

std::unique_ptr<CountSink> LocalFrameStream::make_sink(const RunDefinition& run,
                                                       const JobClock& clock, BoxKind kind) {
  return std::make_unique<LocalCountSink>(run, clock, kind);
}

}  // namespace pairhist
