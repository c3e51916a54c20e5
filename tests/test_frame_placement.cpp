// Whole frames on one GPU or spread over all (tasks/frame_placement).
#include <doctest/doctest.h>

#include <cstdlib>
#include <vector>

#include "tasks/frame_placement.hpp"

using namespace pairhist;

namespace {
FramePlacementInputs cell_frame(int gpus, double in_flight) {
  FramePlacementInputs in;
  in.gpus = gpus;
  in.cell_lists = true;
  in.frames_in_flight = in_flight;
  return in;
}
}  // namespace

TEST_CASE("cell-list frames go whole to one GPU once the other GPUs have frames of their own") {
  CHECK_FALSE(place_frame_whole(cell_frame(4, 0)));  // the first frame: every GPU helps
  CHECK_FALSE(place_frame_whole(cell_frame(4, 2.9)));
  CHECK(place_frame_whole(cell_frame(4, 3)));
  CHECK(place_frame_whole(cell_frame(2, 1)));
  CHECK_FALSE(place_frame_whole(cell_frame(1, 10)));  // one GPU: nothing to choose
  CHECK_FALSE(place_frame_whole(cell_frame(0, 10)));  // cores only
  FramePlacementInputs tiles = cell_frame(4, 10);
  tiles.cell_lists = false;  // all-pairs tiles cost little to send to every GPU
  CHECK_FALSE(place_frame_whole(tiles));
  FramePlacementInputs part = cell_frame(4, 10);
  part.parts = 3;  // a part of a frame split between processes is spread
  CHECK_FALSE(place_frame_whole(part));
}

TEST_CASE("the measurement modes force either placement, never onto a single GPU's node") {
  FramePlacementInputs in = cell_frame(4, 0);
  in.mode = PlacementMode::whole;
  CHECK(place_frame_whole(in));
  in.cell_lists = false;
  CHECK(place_frame_whole(in));
  in.mode = PlacementMode::spread;
  in.cell_lists = true;
  in.frames_in_flight = 10;
  CHECK_FALSE(place_frame_whole(in));
  in.mode = PlacementMode::whole;
  in.gpus = 1;
  CHECK_FALSE(place_frame_whole(in));

  setenv("PAIRHIST_FRAME_PLACEMENT", "spread", 1);
  CHECK(placement_mode_from_environment() == PlacementMode::spread);
  setenv("PAIRHIST_FRAME_PLACEMENT", "whole", 1);
  CHECK(placement_mode_from_environment() == PlacementMode::whole);
  unsetenv("PAIRHIST_FRAME_PLACEMENT");
  CHECK(placement_mode_from_environment() == PlacementMode::automatic);
}

TEST_CASE("frames placed whole take the GPUs in turn") {
  GpuRoundRobin gpus(3);
  std::vector<int> order;
  for (int k = 0; k < 7; ++k) order.push_back(gpus.next());
  CHECK(order == std::vector<int>{0, 1, 2, 0, 1, 2, 0});
  GpuRoundRobin none(0);  // no GPU: always "GPU 0", never used
  CHECK(none.next() == 0);
}
