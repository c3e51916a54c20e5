// Rank 0's book of a distributed run's frames: it hands out units (frames, or parts of frames)
// in order to whichever rank asks next, so a rank with GPUs takes more than a rank without and
// no rank idles while units remain, and it learns where the frames end (the file's end, a bad
// frame, a stop). No MPI here: drivers/distributed/mpi_distribution.cpp carries the requests.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "drivers/distributed/distribution.hpp"

namespace pairhist {

/// What a rank asking for a unit gets: one, none now (ask again shortly), or none at all.
struct Offer {
  enum Kind { unit, later, none };
  Kind kind = none;
  explicit operator bool() const { return kind == unit; }
};

class FrameDispenser {
 public:
  FrameDispenser(const DistributedPlan& plan, int ranks);

  /// The next unit, for `rank`, asking at `now` (seconds on any steady clock); none when none
  /// is left to hand out. A whole frame, or a part when frames are split: the plan's last
  /// frames (DistributedPlan::split_last), and earlier for a rank whose frames take so long that
  /// a whole one would end after the other ranks have counted every frame left. Near the end a
  /// rank so slow that even a part would end after a faster rank could have counted it gets
  /// `later`: it asks again, and the faster ranks take what is left.
  /// `delivered`: the units `rank` has taken into counting so far, in parts of a frame (a whole
  /// frame is frame_parts); its pace then comes from them and what it holds (granted but not
  /// taken) is known. -1: the rank does not say; its pace comes from its claims' intervals, and
  /// it is taken to hold kHeldUnits units.
  Offer grant(int rank, WorkUnit& unit, double now = 0, int64_t delivered = -1);
  /// Seconds `rank` takes per frame, as it counts them (0 until measured).
  double seconds_per_frame(int rank) const { return pace_[static_cast<size_t>(rank)]; }
  /// The file has only `frames` frames.
  void file_ends(int64_t frames);
  /// The frame at `file_index` cannot be counted (`message` names it); the earliest such frame
  /// ends the run's frames and gives its error.
  void error(int64_t file_index, const std::string& message);
  /// A stop signal: frames not yet handed out are not counted (those handed out are).
  void stop(int signo);
  bool stopping() const { return stop_signo_ != 0; }
  /// `rank` has read or given up every unit it was handed and asks for none.
  void drained(int rank);
  bool all_drained() const;
  /// Where the run's frames end; final once all ranks are drained.
  RunEnd end() const;

  /// The first units of frames handed to `rank` among its last ones ("41, 44, 47").
  std::string recent_frames(int rank) const;
  int64_t units_granted(int rank) const { return granted_[static_cast<size_t>(rank)]; }
  /// The file index of the run's frame at `ordinal`.
  int64_t file_index(int64_t ordinal) const;

 private:
  /// The first ordinal whose frame lies at or after `file_index`.
  int64_t ordinal_at(int64_t file_index) const;
  enum class Limit { plan, file_end, error, stop };
  void lower_limit(int64_t ordinal, Limit why);

  DistributedPlan plan_;
  int parts_ = 1;
  int64_t next_ordinal_ = 0;
  int next_part_ = 0;
  int64_t limit_ = std::numeric_limits<int64_t>::max();  // ordinals from here are not counted
  Limit limit_why_ = Limit::plan;
  int64_t error_index_ = -1;
  std::string error_message_;
  int stop_signo_ = 0;
  /// Whether `rank`, asking now, should get a part rather than a whole frame.
  bool slow_for_the_rest(int rank) const;
  /// Whether a unit of `share` of a frame would end later on `rank` (behind what it holds) than
  /// on the fastest other rank after the frames left are counted.
  bool better_elsewhere(int rank, double share) const;
  /// Whether `rank`, whose pace is not known yet, already holds an even share of the parts
  /// left to count (those not handed out and those the ranks hold).
  bool holds_its_share(int rank) const;
  /// Frames per second of all ranks together, and the fastest pace (0 until measured).
  double total_rate(double& fastest) const;
  /// Frames (whole and parts) `rank` holds: granted, not yet taken into counting; for a rank
  /// that does not say, kHeldUnits units of `share`.
  double held_frames(int rank, double share) const;
  /// Whether every rank reports its deliveries.
  bool reporting() const;
  /// When the ranks other than `rank` will have counted what they hold and `frames` more,
  /// sharing them by their paces.
  double others_end(int rank, double frames) const;
  /// The rank's pace from its claims' intervals (ranks that do not report deliveries), or from
  /// the frames it took into counting since the last measurement.
  void measure_pace(int rank, double now, int64_t delivered);

  std::vector<int64_t> granted_;             // units per rank
  std::vector<std::deque<int64_t>> recent_;  // last ordinals per rank
  std::vector<bool> drained_;
  std::vector<double> last_claim_;  // when each rank last asked (-1: never)
  std::vector<bool> last_split_;    // whether it got a part then
  std::vector<bool> waited_;        // it was told to ask later since its last unit
  std::vector<double> pace_;        // its seconds per frame (moving average)
  // Ranks that report their deliveries: parts granted and taken into counting (a whole frame is
  // parts_; -1: the rank does not say), and its last deliveries (time, parts taken so far).
  std::vector<int64_t> granted_parts_;
  std::vector<int64_t> delivered_;
  std::vector<std::deque<std::pair<double, int64_t>>> paced_;
};

}  // namespace pairhist
