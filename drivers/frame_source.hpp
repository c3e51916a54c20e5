// Which frames of a trajectory a run reads, and reading them. The run's frame loop takes frames
// from here, hands them to the engine and the counts to the output; a resumed run differs only
// in where its frame source starts (and a run over several processes would differ only in the
// frames each one's source yields).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "trajectory_reader.hpp"
#include "xtc_parallel_reader.hpp"

namespace pairhist {

/// The frames a run takes: indices first, first + step, ... up to last (-1: the end), within the
/// time window [begin_time, end_time] (ps, NaN: unbounded), after resume_after.
struct FramePlan {
  int64_t first = 0;
  int64_t last = -1;
  int64_t step = 1;
  double begin_time = std::numeric_limits<double>::quiet_NaN();
  double end_time = std::numeric_limits<double>::quiet_NaN();
  int64_t resume_after = -1;  // frames up to this index were counted before (a resumed run)
};

class FrameSource {
 public:
  /// Opens the trajectory (XTC decoded on `decode_threads` threads as in
  /// io::open_trajectory_threaded). The frames a resumed run counted before are passed over
  /// without decoding where the format allows it.
  /// `prep`: what XTC decoding threads deliver (io::open_trajectory_threaded).
  FrameSource(const std::string& path, int decode_threads, const FramePlan& plan,
              const io::FramePreparation& prep = {});

  /// Reads the next frame of the plan into `frame` and its index in the file into `index`;
  /// false when the plan or the file ends, or a stop is requested (stop_on). Throws InputError
  /// as the readers do.
  bool next(io::TrajectoryFrame& frame, int64_t& index);
  /// A non-zero `*stop` ends next() also while it reads frames outside the plan (a long
  /// --first or --begin).
  void stop_on(const std::atomic<int>* stop) { stop_ = stop; }

  /// What XTC decoding threads deliver from now on (a source opened before the topology loaded,
  /// with prep.pending, learns the species here); other readers deliver whole frames anyway.
  void set_preparation(const io::FramePreparation& prep);

  io::TrajectoryReader& reader() { return *reader_; }
  int natoms() const { return reader_->natoms(); }
  /// Frames of the file read or passed over so far.
  int64_t frames_read() const { return reader_->frames_read(); }

 private:
  FramePlan plan_;
  std::unique_ptr<io::TrajectoryReader> reader_;
  bool done_ = false;
  const std::atomic<int>* stop_ = nullptr;
};

}  // namespace pairhist
