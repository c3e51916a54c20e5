// Whether a frame's tasks may run on every GPU or only on one (issue 24). Every GPU that counts
// a share of a frame first receives the whole frame (its species are the tasks' inputs) and each
// of its workers sorts them into cells: four H200s spreading 10.9M-atom frames spent ~15 ms of
// node time per frame, where one GPU needs ~25 ms for a whole frame alone, so whole frames, one
// per GPU, count up to ~2.5x faster. Spreading pays only while there are too few frames to keep
// every GPU busy (the first frames of a run, a run of one frame, frames fed slower than counted),
// and for all-pairs tiles, whose many tasks per frame cost little to send (F1-like frames: 3.8x
// on four GPUs spread). No StarPU here: the rule is unit-tested (test_frame_placement).
#pragma once

#include <cstdint>

namespace pairhist {

enum class PlacementMode { automatic, spread, whole };

struct FramePlacementInputs {
  int gpus = 0;             // distinct GPUs the engine's CUDA workers drive
  bool cell_lists = false;  // the frame's tasks include cell-list tasks
  int parts = 1;            // the frame is one of `parts` parts (a distributed run's split frame)
  // Frames submitted and not yet counted, this one not included (an estimate from the tasks in
  // flight: they complete out of order).
  double frames_in_flight = 0;
  PlacementMode mode = PlacementMode::automatic;
};

/// Whole frames on one GPU when the frame holds cell-list tasks, is whole, there are at least two
/// GPUs, and the frames already in flight give the other GPUs work meanwhile (at least gpus - 1
/// of them); PlacementMode::spread and ::whole force either (PAIRHIST_FRAME_PLACEMENT, for
/// measurements), ::whole still only with two GPUs or more.
bool place_frame_whole(const FramePlacementInputs& in);

/// PAIRHIST_FRAME_PLACEMENT: "spread", "whole", anything else (unset): automatic.
PlacementMode placement_mode_from_environment();

/// Round robin over the GPUs for the frames placed whole: equal GPUs get equal shares of equal
/// frames, and a GPU that falls behind holds at most its frames in flight.
class GpuRoundRobin {
 public:
  explicit GpuRoundRobin(int gpus) : gpus_(gpus > 0 ? gpus : 1) {}
  int next() { return static_cast<int>(next_++ % static_cast<uint64_t>(gpus_)); }

 private:
  int gpus_;
  uint64_t next_ = 0;
};

}  // namespace pairhist
