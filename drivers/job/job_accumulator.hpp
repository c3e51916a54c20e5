// The exact state of a run as its frames are counted: the closed output intervals, the open one's
// counts, and which frames they hold. It is what a checkpoint keeps and what the outputs are made
// of, so a resumed run starts from a checkpoint's state and ends with the same integers as a run
// that was never stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist {

/// Everything a run has counted so far. Counts are exact, with the pairs the histograms leave
/// out (self pairs of shared atoms, excluded pairs) already taken out.
struct JobState {
  int box_kind = -1;  // the run's BoxKind, fixed by its first frame; -1 before any frame
  // 1: every periodic image within r_max counted (EngineConfig::periodic_images), 0: the
  // minimum image; fixed by the first frame, kept by a resumed run; -1 before any frame.
  int periodic_images = -1;
  std::vector<int64_t> frame_indices;  // every frame counted, in order
  std::vector<double> frame_times;
  std::vector<double> volumes;  // per frame (run's unit^3); empty without box or volume
  // Per frame, the atoms of every species (a --sphere run or a dynamic species,
  // HistogramResult::frame_species_counts); empty when every frame holds the species' full
  // sizes. A dynamic species' runs also keep every frame's pairs.
  std::vector<std::vector<int64_t>> species_counts;
  std::vector<std::vector<uint64_t>> frame_pairs;
  // A --sphere run's centre-distance counts per species (HistogramResult::centre_counts): those
  // of the closed blocks' frames and those of the open block's; empty for other runs. Each
  // closed interval keeps its own as well (IntervalBlock::centre_counts).
  std::vector<std::vector<uint64_t>> centre_closed, centre_open;
  std::vector<IntervalBlock> intervals;            // closed output blocks (`--interval`)
  size_t open_begin = 0;                           // first frame of the open block
  std::vector<std::vector<uint64_t>> open_counts;  // the open block's counts, per pair

  size_t frames() const { return frame_indices.size(); }
};

/// One frame as handed to the engine.
struct FrameRecord {
  int64_t index = 0;
  double time = 0;
  double volume = 0;  // 0: none (no box and no --volume)
  /// False for the parts of a frame after its first (frames split among processes): counted,
  /// but neither a frame of the result nor one whose self pairs are taken out again.
  bool whole = true;
  // A frame whose species' sizes vary: its atoms per species (a dynamic species or a --sphere
  // run), and for a dynamic species its pairs and the self pairs of atoms in both species per
  // pair (empty: the run's fixed ones).
  std::vector<int64_t> species_counts = {};
  std::vector<uint64_t> pairs = {};
  std::vector<uint64_t> shared = {};
  // A --sphere frame's atoms per species binned by distance from the centre (SphereFrame).
  std::vector<std::vector<uint64_t>> centre_counts = {};
};

/// Bins of a frame's excluded pairs that the kernels counted: (pair * nbins + bin, count).
using SparseBins = std::vector<std::pair<uint32_t, uint64_t>>;

class JobAccumulator {
 public:
  /// `shared`: self pairs per frame of every pair (taken out of bin 0); `interval`: frames per
  /// output block, 0 for one block; `seed`: a checkpoint's state, or an empty one.
  JobAccumulator(size_t npairs, int nbins, std::vector<uint64_t> shared, int64_t interval,
                 JobState seed);

  /// The engine's next frame, with the bins of its excluded pairs.
  void submitted(const FrameRecord& frame, SparseBins excluded);
  /// The engine has counted every frame before `engine_frames` (its frame numbers, from 0): the
  /// excluded-pair bins of those frames no longer need to be kept apart.
  void finished_before(uint64_t engine_frames);
  /// Adds an engine take (counts since its last take) holding the engine's frames before
  /// `counted` (HistogramEngine::frames_counted); frames submitted from `counted` on were
  /// dropped by a stop and are forgotten.
  void taken(std::vector<std::vector<uint64_t>> counts, uint64_t counted);

  /// Frames submitted but not yet in a take.
  size_t pending() const { return pending_.size(); }
  /// Frames submitted in this process and dropped by a stop.
  uint64_t dropped() const { return dropped_; }
  size_t open_frames() const { return state_.frames() - state_.open_begin; }
  /// Whether the open block has its `interval` frames; it then becomes a closed interval.
  bool block_full() const;
  void close_block();

  const JobState& state() const { return state_; }
  /// Moves out the frames and counts so far (a process of a distributed run handing an
  /// interval over), leaving none; the engine's frame numbers go on.
  JobState take_counted();
  /// Counts of one process may be smaller than what is taken out of them (a part of a frame
  /// whose self and excluded pairs another process counted): they are then kept modulo 2^64,
  /// exact once the processes' counts are summed.
  void allow_wrapping() { wrapping_ = true; }
  void set_box_kind(int kind) { state_.box_kind = kind; }
  void set_periodic_images(bool images) { state_.periodic_images = images ? 1 : 0; }

  /// `header` (species, pairs without counts, units, ...) with the frames and counts filled in:
  /// with `with_open`, every counted frame (the open block as a last, shorter interval when
  /// there are intervals); else only the closed intervals.
  HistogramResult result(const HistogramResult& header, bool with_open) const;

 private:
  struct Pending {
    FrameRecord frame;
    SparseBins excluded;  // empty once folded into folded_excluded_
  };
  size_t npairs_;
  int nbins_;
  int64_t interval_;
  std::vector<uint64_t> shared_;
  JobState state_;
  std::deque<Pending> pending_;  // the engine's frames base_, base_ + 1, ...
  uint64_t base_ = 0;
  uint64_t folded_before_ = 0;  // engine frames whose excluded bins are in folded_excluded_
  std::vector<uint64_t> folded_excluded_;  // npairs * nbins, or empty
  uint64_t dropped_ = 0;
  bool wrapping_ = false;
};

}  // namespace pairhist
