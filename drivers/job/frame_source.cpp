#include "drivers/job/frame_source.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "io/trajectory/trajectory_opening.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

FrameSource::FrameSource(const std::string& path, int decode_threads, const FramePlan& plan,
                         const io::FramePreparation& prep)
    : plan_(plan),
      reader_(io::open_trajectory_after(path, decode_threads,
                                        plan.resume_after >= 0 ? plan.resume_after + 1 : 0, prep)) {
  // Readers that address frames (AMBER NetCDF) pass over those outside --first/--last/--step
  // without reading them; next() still checks every frame against the whole plan.
  if (plan.first <= 0 && plan.step <= 1 && plan.last < 0) return;
  const FramePlan p = plan;
  reader_->choose_frames([p](int64_t next) -> int64_t {
    int64_t wanted = std::max(next, p.first);
    if (p.step > 1) wanted += (p.step - (wanted - p.first) % p.step) % p.step;
    return p.last >= 0 && wanted > p.last ? -1 : wanted;
  });
}

FrameSource::FrameSource(const std::string& path, int decode_threads, FrameSupply& supply,
                         const io::FramePreparation& prep)
    : supply_(&supply) {
  // XTC readers claim units as their decoding threads become free and pass over the frames of
  // other processes without decoding them; another part of the frame claimed last is that
  // frame again. The chooser is in place before any thread reads a frame.
  reader_ = io::open_trajectory_threaded(path, decode_threads, prep, [this](int64_t) -> int64_t {
    WorkUnit unit;
    if (!supply_->claim(unit)) return -1;
    std::lock_guard<std::mutex> lock(claimed_mutex_);
    claimed_.push_back(unit);
    const bool again = unit.file_index == claimed_index_;
    claimed_index_ = unit.file_index;
    return again ? io::kFrameAgain : unit.file_index;
  });
  reader_chooses_ = reader_->chooses_frames();
}

void FrameSource::set_preparation(const io::FramePreparation& prep) {
  reader_->set_preparation(prep);
}

bool FrameSource::next(io::TrajectoryFrame& frame, int64_t& index) {
  WorkUnit unit;
  if (!next(frame, unit)) return false;
  index = unit.file_index;
  return true;
}

bool FrameSource::read(io::TrajectoryFrame& frame) {
  try {
    return reader_->next(frame);
  } catch (const TruncatedFrame& e) {
    // gmx's "Incomplete frame": a trajectory still being written, or a copy cut short, keeps
    // its complete frames. Without one there is nothing to keep: the error stands.
    if (reader_->frames_read() == 0) throw;
    cut_short_ = e.what();
    std::fprintf(stderr,
                 "pairhist: warning: incomplete frame, the file ends inside it: %s; the run keeps "
                 "the frames before it (outputs marked complete = 0)\n",
                 cut_short_.c_str());
    return false;
  }
}

bool FrameSource::next(io::TrajectoryFrame& frame, WorkUnit& unit) {
  if (supply_) return next_supplied(frame, unit);
  while (!done_ && !(stop_ && stop_->load() != 0) && read(frame)) {
    const int64_t index = reader_->frames_read() - 1;
    if (plan_.last >= 0 && index > plan_.last) break;
    if (index < plan_.first || (index - plan_.first) % plan_.step != 0) continue;
    if (frame.time < plan_.begin_time) continue;  // false for NaN: no bound
    if (frame.time > plan_.end_time) break;
    unit = {ordinal_++, index, -1};
    return true;
  }
  done_ = true;
  return false;
}

bool FrameSource::next_supplied(io::TrajectoryFrame& frame, WorkUnit& unit) {
  if (done_) return false;
  if (reader_chooses_) {
    const bool got = reader_->next(frame);
    std::lock_guard<std::mutex> lock(claimed_mutex_);
    if (!got) {
      // The chooser ran out of units, or the file ended before the next claimed frame.
      if (!claimed_.empty()) supply_->file_ends(reader_->frames_read());
      done_ = true;
      return false;
    }
    if (claimed_.empty() || claimed_.front().file_index != reader_->frames_read() - 1)
      throw std::logic_error("FrameSource: the reader delivered a frame no unit claimed");
    unit = claimed_.front();
    claimed_.pop_front();
    supply_->delivered(unit);
    return true;
  }
  if (!supply_->claim(unit)) {
    done_ = true;
    return false;
  }
  if (unit.file_index == delivered_index_) {  // another part of the same frame
    supply_->delivered(unit);
    return true;
  }
  if (unit.file_index < delivered_index_)
    throw std::logic_error("FrameSource: units must come in increasing frame order");
  // Readers that cannot pass over frames read the ones in between and drop them.
  // A frame the file ends inside is an error here, as a damaged one: the other ranks could not
  // know that the frames end before it (an XTC file's cut frame is found as rank 0 lists them).
  while (reader_->frames_read() <= unit.file_index) {
    if (!reader_->next(frame)) {
      supply_->file_ends(reader_->frames_read());
      done_ = true;
      return false;
    }
  }
  delivered_index_ = unit.file_index;
  supply_->delivered(unit);
  return true;
}

}  // namespace pairhist
