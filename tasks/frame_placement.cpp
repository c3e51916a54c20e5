#include "tasks/frame_placement.hpp"

#include <cstdlib>
#include <string>

namespace pairhist {

bool place_frame_whole(const FramePlacementInputs& in) {
  if (in.gpus < 2 || in.parts > 1) return false;
  switch (in.mode) {
    case PlacementMode::spread:
      return false;
    case PlacementMode::whole:
      return true;
    case PlacementMode::automatic:
      break;
  }
  return in.cell_lists && in.frames_in_flight >= in.gpus - 1;
}

PlacementMode placement_mode_from_environment() {
  const char* v = std::getenv("PAIRHIST_FRAME_PLACEMENT");
  const std::string s = v ? v : "";
  if (s == "spread") return PlacementMode::spread;
  if (s == "whole") return PlacementMode::whole;
  return PlacementMode::automatic;
}

}  // namespace pairhist
