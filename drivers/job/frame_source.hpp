// Which frames of a trajectory a run reads, and reading them. The run's frame loop takes frames
// from here, hands them to the engine and the counts to the output; a resumed run differs only
// in where its frame source starts, and a process of a run over several differs only in the
// frames its source yields (units handed out by a FrameSupply).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "io/trajectory/trajectory_opening.hpp"
#include "io/trajectory/trajectory_reader.hpp"

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

/// One unit of a run's work: a frame, or with frames split among processes one part of it.
struct WorkUnit {
  int64_t ordinal = 0;     // the frame's position among the run's frames (after resumed ones)
  int64_t file_index = 0;  // the frame's index in the file
  int part = -1;           // which part of the frame; -1: the whole frame
};

/// Where the units of a process of a distributed run come from
/// (drivers/distributed/distribution.hpp).
class FrameSupply {
 public:
  virtual ~FrameSupply() = default;
  /// The next unit this process counts; false when none is left. May block; called by one
  /// thread at a time.
  virtual bool claim(WorkUnit& unit) = 0;
  /// The file has only `frames` frames: units at or beyond them do not exist.
  virtual void file_ends(int64_t frames) = 0;
  /// `unit`, claimed before, goes to counting now (FrameSource::next returns it).
  virtual void delivered(const WorkUnit& unit) { (void)unit; }
};

class FrameSource {
 public:
  /// Opens the trajectory (XTC decoded on `decode_threads` threads as in
  /// io::open_trajectory_threaded). The frames a resumed run counted before are passed over
  /// without decoding where the format allows it.
  /// `prep`: what XTC decoding threads deliver (io::open_trajectory_threaded).
  FrameSource(const std::string& path, int decode_threads, const FramePlan& plan,
              const io::FramePreparation& prep = {});
  /// A process of a distributed run: the units come from `supply`, not from a plan. XTC frames
  /// of other processes are passed over without decoding. A unit may be another part of the
  /// frame delivered last: that frame is then left in place, not read again.
  FrameSource(const std::string& path, int decode_threads, FrameSupply& supply,
              const io::FramePreparation& prep = {});

  /// Reads the next frame of the plan into `frame` and its index in the file into `index`;
  /// false when the plan or the file ends, or a stop is requested (stop_on). Throws InputError
  /// as the readers do, except where the file ends inside a frame after complete ones (the
  /// reader's TruncatedFrame): the frames of a plan end before it, with a warning, and
  /// cut_short() says why (units of a supply: an error, as the readers throw it).
  bool next(io::TrajectoryFrame& frame, int64_t& index);
  /// As next(), with the unit the frame belongs to (a plan's units are its frames, ordinals
  /// counting from 0). In a distributed run `frame` must be the object passed last time.
  bool next(io::TrajectoryFrame& frame, WorkUnit& unit);
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
  /// The reader's one-line error for the frame the file ends inside, where the frames ended
  /// there (a file cut short, or still being written); empty otherwise.
  const std::string& cut_short() const { return cut_short_; }

 private:
  bool next_supplied(io::TrajectoryFrame& frame, WorkUnit& unit);
  // reader_->next(), false where the file ends inside a frame after complete ones.
  bool read(io::TrajectoryFrame& frame);

  FramePlan plan_;
  bool done_ = false;
  std::string cut_short_;
  const std::atomic<int>* stop_ = nullptr;
  int64_t ordinal_ = 0;  // a plan's units delivered
  // A distributed run's: the supply; units the reader's chooser claimed, not yet delivered (in
  // claim order), under claimed_mutex_; the frame delivered last.
  FrameSupply* supply_ = nullptr;
  bool reader_chooses_ = false;  // the reader's threads claim units
  std::mutex claimed_mutex_;
  std::deque<WorkUnit> claimed_;
  int64_t claimed_index_ = -1;    // the frame of the unit claimed last
  int64_t delivered_index_ = -1;  // readers that do not choose: the frame delivered last
  // Last, so that it goes first: its decoding threads may be in the chooser, which uses the
  // members above.
  std::unique_ptr<io::TrajectoryReader> reader_;
};

}  // namespace pairhist
