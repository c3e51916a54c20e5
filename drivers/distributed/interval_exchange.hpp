// The output intervals of a distributed run. Each rank counts whatever frames it is handed, so
// an interval's frames are spread over the ranks: a rank hands its counts of an interval over
// when its next frame lies in a later one (draining its engine, as a single process does at an
// interval's end), and at the end; rank 0 gets each interval summed over the ranks
// (Distribution::contribute / reduced) and keeps the run's state from them, as a single
// process's JobAccumulator keeps it from its engine.
//
// A payload is the interval's counts (npairs x nbins), then, for a run whose species' sizes
// change per frame (a dynamic species), every frame slot's atoms per species and pairs per
// species pair, then every slot's record (index, time, volume). Both the counts and the sizes
// are summed by the reduction: a slot's sizes are zero on every rank but the one that counted
// the frame (its first part), so the sum is that rank's, exactly, and rank 0 keeps every
// frame's sizes in frame order, as one process keeps them.
#pragma once

#include <cstdint>
#include <vector>

#include "drivers/distributed/distribution.hpp"
#include "drivers/job/job_accumulator.hpp"

namespace pairhist {

class IntervalExchange {
 public:
  /// `interval`: frames per output block (0: one block); `resumed`: frames a resumed run's
  /// checkpoint holds, which come before the units' ordinals; `nspecies`: species whose sizes
  /// each frame's record carries (0: the species' sizes are fixed).
  IntervalExchange(Distribution& dist, size_t npairs, int nbins, int64_t interval, int64_t resumed,
                   size_t nspecies = 0);

  /// The output interval a unit's frame belongs to.
  int64_t interval_of(int64_t ordinal) const;
  /// The interval this rank counts now (its counts since the last hand-over belong to it).
  int64_t current() const { return current_; }
  /// Notes a unit handed to the engine (its frame's record is the next in `local`'s order).
  void submitted(const WorkUnit& unit);
  /// Hands the counts in `local` over as interval current() and the intervals after it, before
  /// `next`, as empty ones; `local` is left empty, current() becomes `next`. `local` must have
  /// taken everything its engine counted.
  void hand_over(JobAccumulator& local, int64_t next);
  /// At the end, every rank: the last interval any rank contributes to, given how the frames
  /// ended (a collective). Then hand_over(local, last + 1) contributes everything.
  int64_t last_interval(const RunEnd& end);
  /// The record slots of each interval's payload; fixed once the end is known for runs without
  /// intervals (their one block holds every frame).
  void set_frames(int64_t frames) { frames_ = frames; }

  /// Rank 0: folds the reduced intervals, in order, into `global` (a JobAccumulator without
  /// self or excluded pairs to take out, seeded with any resumed state) and calls `closed`
  /// after each complete interval. `end`: null while the run goes on (only complete intervals
  /// are folded; wait: no), else how it ended (wait: every interval up to `last`; a stopped or
  /// finished run's last partial interval is folded too, a failed run's is not).
  template <class Closed>
  void collect(JobAccumulator& global, const RunEnd* end, int64_t last, bool wait, Closed closed);

 private:
  /// Folds one reduced payload; false when the interval is not all there.
  bool fold(JobAccumulator& global, int64_t interval, const std::vector<uint64_t>& payload,
            int64_t expected, bool close);
  size_t slots() const;
  /// Words of a slot's sizes: atoms per species and pairs per species pair (0: fixed sizes).
  size_t size_words() const { return nspecies_ > 0 ? nspecies_ + npairs_ : 0; }
  /// Frames of `interval` the run counts: up to `frames` ordinals (-1: the whole interval).
  int64_t frames_in(int64_t interval, int64_t frames) const;

  Distribution& dist_;
  size_t npairs_;
  int nbins_;
  int64_t interval_;
  int64_t resumed_;
  size_t nspecies_;
  int64_t current_;
  int64_t frames_ = 0;
  std::vector<int64_t> ordinals_;  // of the whole frames in `local`, in its order
  int64_t next_fold_;              // rank 0: the next interval to fold
  bool folding_ = true;            // rank 0: false once an interval came incomplete
  uint64_t global_frames_ = 0;     // rank 0: frames folded so far (the global state's "engine")
};

template <class Closed>
void IntervalExchange::collect(JobAccumulator& global, const RunEnd* end, int64_t last, bool wait,
                               Closed closed) {
  std::vector<uint64_t> payload;
  while (next_fold_ <= last && dist_.reduced(next_fold_, payload, wait)) {
    const int64_t b = next_fold_++;
    if (!folding_) continue;
    int64_t expected = frames_in(b, -1);
    bool close = interval_ > 0;  // without intervals the one block stays open, as in one process
    if (end) {
      const int64_t valid = frames_in(b, end->frames);
      const bool whole = valid == expected;
      // A failed run keeps its complete intervals only; a stopped or finished one also the
      // frames of its last, partial one (an open block, as a single process leaves it).
      if (!whole && end->why == RunEnd::Why::input_error) {
        folding_ = false;
        continue;
      }
      expected = valid;
      close = close && whole;
      if (valid == 0) continue;
    }
    if (!fold(global, b, payload, expected, close)) {
      folding_ = false;
      continue;
    }
    if (close) closed();
  }
}

}  // namespace pairhist
