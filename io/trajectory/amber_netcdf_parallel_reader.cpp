#include "io/trajectory/amber_netcdf_parallel_reader.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/trajectory/amber_netcdf_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

AmberNetcdfParallelReader::AmberNetcdfParallelReader(std::string path, int natoms, int64_t frames,
                                                     const AmberNetcdfLayout& layout,
                                                     int64_t file_size, int threads)
    : path_(std::move(path)),
      natoms_(natoms),
      frames_(frames),
      records_(path_, layout, file_size),
      threads_(std::max(threads, 1)),
      slots_(static_cast<size_t>(2 * std::max(threads, 1))) {}

AmberNetcdfParallelReader::~AmberNetcdfParallelReader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
  }
  room_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool AmberNetcdfParallelReader::choose_frames(FrameChooser chooser) {
  if (!workers_.empty()) return false;
  chooser_ = std::move(chooser);
  return true;
}

ReadingFigures AmberNetcdfParallelReader::reading_figures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ReadingFigures f;
  f.threads = f.max_threads = threads_;
  f.seconds_per_frame =
      frames_decoded_ > 0 ? read_seconds_ / static_cast<double>(frames_decoded_) : 0.0;
  return f;
}

AmberNetcdfParallelReader::Slot* AmberNetcdfParallelReader::claim(bool& read_it) {
  // Claims in order, the chooser outside mutex_: a chooser that blocks (a distributed run's
  // supply) holds back the other claims, never the delivery of frames read before.
  std::lock_guard<std::mutex> order(claim_mutex_);
  Slot* slot = nullptr;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] {
      return shutting_down_ || stop_claiming_ ||
             claimed_ - delivered_ < static_cast<int64_t>(slots_.size());
    });
    if (shutting_down_ || stop_claiming_) return nullptr;
    slot = &slots_[static_cast<size_t>(claimed_ % static_cast<int64_t>(slots_.size()))];
    ++claimed_;
  }
  // As AmberNetcdfReader::next: the chooser names the frame, frames before it are passed over.
  State state = State::reading;
  int64_t frame = next_in_file_;
  std::exception_ptr error;
  try {
    if (chooser_) {
      const int64_t wanted = chooser_(next_in_file_);
      if (wanted == kFrameAgain)
        state = State::again, frame = chosen_last_;
      else if (wanted < 0)
        state = State::end;
      else
        frame = std::max(wanted, next_in_file_);
    }
  } catch (...) {
    state = State::failed;
    error = std::current_exception();
  }
  if (state == State::reading && frame >= frames_) state = State::end, frame = frames_;
  if (state == State::reading) chosen_last_ = frame, next_in_file_ = frame + 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot->frame = frame;
    slot->error = error;
    slot->state = state;
    if (state == State::end || state == State::failed) stop_claiming_ = true;
  }
  read_it = state == State::reading;
  if (!read_it) {
    ready_.notify_all();
    room_.notify_all();
  }
  return slot;
}

void AmberNetcdfParallelReader::work() {
  std::vector<unsigned char> bytes;
  std::vector<double> values;
  bool read_it = false;
  while (Slot* slot = claim(read_it)) {
    if (!read_it) continue;
    const auto start = std::chrono::steady_clock::now();
    std::exception_ptr error;
    try {
      records_.read(slot->frame, slot->data, bytes, values);
    } catch (...) {
      error = std::current_exception();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      read_seconds_ += seconds;
      ++frames_decoded_;
      slot->error = error;
      slot->state = error ? State::failed : State::ready;
      if (error) stop_claiming_ = true;  // frames after a bad one are never delivered
    }
    ready_.notify_all();
    if (error) room_.notify_all();
  }
}

bool AmberNetcdfParallelReader::next(TrajectoryFrame& frame) {
  if (delivered_error_) std::rethrow_exception(delivered_error_);
  if (workers_.empty())
    for (int t = 0; t < threads_; ++t) workers_.emplace_back([this] { work(); });
  std::unique_lock<std::mutex> lock(mutex_);
  Slot& slot = slots_[static_cast<size_t>(delivered_ % static_cast<int64_t>(slots_.size()))];
  ready_.wait(lock, [&] {
    return delivered_ < claimed_ && slot.state != State::free && slot.state != State::reading;
  });
  switch (slot.state) {
    case State::end:
      // Stays at the end: no slot is freed, nothing more is claimed.
      frames_read_ = slot.frame;
      return false;
    case State::failed:
      delivered_error_ = slot.error;
      frames_read_ = slot.frame;
      std::rethrow_exception(delivered_error_);
    case State::again:
      break;  // the caller's frame holds it
    default:
      std::swap(frame.xyz, slot.data.xyz);
      frame.box = slot.data.box;
      frame.time = slot.data.time;
      frame.step = slot.data.step;
      frame.precision = slot.data.precision;
      frames_read_ = slot.frame + 1;
  }
  slot.state = State::free;
  ++delivered_;
  lock.unlock();
  room_.notify_all();
  return true;
}

std::unique_ptr<TrajectoryReader> open_amber_netcdf(const std::string& path,
                                                    const std::function<int(int)>& threads_for,
                                                    FrameChooser chooser) {
  auto serial = std::make_unique<AmberNetcdfReader>(path);  // checks the header
  const int threads = threads_for(serial->natoms());
  AmberNetcdfLayout layout;
  NetcdfExtents extents;
  if (threads > 1 && !serial->is_restart() && serial->frames() > 1 &&
      read_netcdf_extents(path, extents).empty() &&
      amber_netcdf_layout(extents, serial->natoms(), layout)) {
    std::error_code ec;
    const auto size = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    auto parallel = std::make_unique<AmberNetcdfParallelReader>(
        path, serial->natoms(), serial->frames(), layout, size, threads);
    if (chooser) parallel->choose_frames(std::move(chooser));
    return parallel;
  }
  if (chooser) serial->choose_frames(std::move(chooser));
  return serial;
}

}  // namespace pairhist::io
