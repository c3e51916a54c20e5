#include "frame_source.hpp"

#include "xtc_parallel_reader.hpp"

namespace pairhist {

FrameSource::FrameSource(const std::string& path, int decode_threads, const FramePlan& plan,
                         const io::FramePreparation& prep)
    : plan_(plan),
      reader_(io::open_trajectory_after(
          path, decode_threads, plan.resume_after >= 0 ? plan.resume_after + 1 : 0, prep)) {}

void FrameSource::set_preparation(const io::FramePreparation& prep) {
  if (auto* parallel = dynamic_cast<io::XtcParallelReader*>(reader_.get()))
    parallel->set_preparation(prep);
}

bool FrameSource::next(io::TrajectoryFrame& frame, int64_t& index) {
  while (!done_ && !(stop_ && stop_->load() != 0) && reader_->next(frame)) {
    index = reader_->frames_read() - 1;
    if (plan_.last >= 0 && index > plan_.last) break;
    if (index < plan_.first || (index - plan_.first) % plan_.step != 0) continue;
    if (frame.time < plan_.begin_time) continue;  // false for NaN: no bound
    if (frame.time > plan_.end_time) break;
    return true;
  }
  done_ = true;
  return false;
}

}  // namespace pairhist
