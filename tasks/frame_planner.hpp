// A planner turns one frame into tasks: the all-pairs planner (row tiles and groups of whole
// pairs) and the cell-list planner (key ranges of the frame's cell grid) sit side by side, each
// for the species pairs assigned to it; the engine owns the data, the reduction and the report.
#pragma once

#include <cstdint>
#include <vector>

#include "frame_ring.hpp"
#include "pairhist/box_setup.hpp"

namespace pairhist {

/// One frame as the planners see it: its buffers (already written), box and bounds.
struct PlannedFrame {
  const FrameRing::Slot& slot;
  const BoxMatrix& box;
  const FrameBounds& bounds;  // empty unless the engine gathered them (cell-list runs)
  uint64_t number = 0;        // the engine's frame number
};

class FramePlanner {
 public:
  virtual ~FramePlanner() = default;
  /// Submits every task of the frame for the planner's pairs.
  virtual void submit_frame(const PlannedFrame& frame) = 0;
  /// Pairs examined per frame (cell lists: estimated candidates) by the planner's pairs.
  virtual void describe(RunActivity& run) const = 0;
};

}  // namespace pairhist
