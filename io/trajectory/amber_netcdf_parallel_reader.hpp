// AMBER NetCDF trajectories read on several threads: a NetCDF-3 file's frames lie at fixed
// offsets, so threads read the frames ahead of the caller with pread, each its own, while
// next() delivers them in order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/trajectory/amber_netcdf_frames.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads an AMBER NetCDF trajectory like AmberNetcdfReader: the same frames, in the same order,
/// with the same errors (message, frame, frames delivered before them) and the same end, with
/// `threads` frames read ahead in parallel (memory: 2 x threads frames beyond the caller's).
/// The threads start at the first next(), so that a chooser given before then (choose_frames)
/// decides every frame claimed; the chooser is called under a lock, in delivery order.
class AmberNetcdfParallelReader : public TrajectoryReader {
 public:
  AmberNetcdfParallelReader(std::string path, int natoms, int64_t frames,
                            const AmberNetcdfLayout& layout, int64_t file_size, int threads);
  /// Stops the threads, also when frames were left unread.
  ~AmberNetcdfParallelReader() override;
  AmberNetcdfParallelReader(const AmberNetcdfParallelReader&) = delete;
  AmberNetcdfParallelReader& operator=(const AmberNetcdfParallelReader&) = delete;

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }
  /// False, changing nothing, once the threads started.
  bool choose_frames(FrameChooser chooser) override;
  bool chooses_frames() const override { return static_cast<bool>(chooser_); }
  ReadingFigures reading_figures() const override;

 private:
  enum class State { free, reading, ready, again, end, failed };
  struct Slot {
    State state = State::free;
    int64_t frame = -1;  // index in the file
    TrajectoryFrame data;
    std::exception_ptr error;
  };
  void work();
  // The next slot, its state and frame set; `read_it`: this thread reads the frame into it (no
  // other thread touches the slot until it is ready). Null to stop.
  Slot* claim(bool& read_it);

  std::string path_;
  int natoms_ = 0;
  int64_t frames_ = 0;
  AmberNetcdfRecords records_;
  int threads_ = 1;
  FrameChooser chooser_;
  int64_t frames_read_ = 0;  // delivered (next()'s view; the caller's thread only)

  // claim_mutex_ orders the claims (and guards next_in_file_, chosen_last_); mutex_ the slots'
  // states and the counts. A thread holding both took claim_mutex_ first.
  std::mutex claim_mutex_;
  mutable std::mutex mutex_;
  std::condition_variable room_, ready_;
  std::vector<Slot> slots_;
  int64_t claimed_ = 0, delivered_ = 0;  // slots claimed and delivered so far
  int64_t next_in_file_ = 0;             // the first frame not yet claimed or passed over
  int64_t chosen_last_ = -1;             // the frame claimed last
  bool stop_claiming_ = false, shutting_down_ = false;
  std::exception_ptr delivered_error_;
  double read_seconds_ = 0;
  int64_t frames_decoded_ = 0;
  std::vector<std::thread> workers_;
};

/// Opens an AMBER NetCDF file (.nc, .ncdf, .ncrst) with threads_for(its atom count) threads: a
/// trajectory of more than one frame whose values are float or double record variables gets an
/// AmberNetcdfParallelReader where that is more than 1, anything else the serial
/// AmberNetcdfReader. `chooser` as TrajectoryReader::choose_frames.
std::unique_ptr<TrajectoryReader> open_amber_netcdf(const std::string& path,
                                                    const std::function<int(int)>& threads_for,
                                                    FrameChooser chooser = {});

}  // namespace pairhist::io
