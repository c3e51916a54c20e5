// Rank 0's frame dispenser (no MPI needed): units in order to whoever asks, the last frames in
// parts, and where the run's frames end: the plan, the file's end, the earliest bad frame, a stop.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "frame_dispenser.hpp"

using namespace pairhist;

namespace {

std::vector<WorkUnit> drain(FrameDispenser& d, int ranks) {
  std::vector<WorkUnit> units;
  WorkUnit u;
  for (int r = 0; d.grant(r % ranks, u); ++r) units.push_back(u);
  return units;
}

DistributedPlan listed(int frames) {
  DistributedPlan p;
  p.listed = true;
  for (int i = 0; i < frames; ++i) p.indices.push_back(10 + 3 * i);
  return p;
}

}  // namespace

TEST_CASE("whole frames in order, to any rank, then the end of the plan") {
  FrameDispenser d(listed(5), 2);
  const auto units = drain(d, 2);
  REQUIRE(units.size() == 5);
  for (int k = 0; k < 5; ++k) {
    CHECK(units[size_t(k)].ordinal == k);
    CHECK(units[size_t(k)].file_index == 10 + 3 * k);
    CHECK(units[size_t(k)].part == -1);
  }
  CHECK(d.units_granted(0) == 3);
  CHECK(d.recent_frames(0) == "10, 16, 22");
  CHECK_FALSE(d.all_drained());
  d.drained(0);
  d.drained(1);
  CHECK(d.all_drained());
  const RunEnd end = d.end();
  CHECK(end.why == RunEnd::Why::done);
  CHECK(end.frames == 5);
}

TEST_CASE("a plan of indices ends where the file ends") {
  DistributedPlan p;  // frames 3, 5, 7, ... of a file whose length is unknown
  p.first = 3;
  p.step = 2;
  FrameDispenser d(p, 3);
  WorkUnit u;
  for (int k = 0; k < 6; ++k) REQUIRE(d.grant(k % 3, u));
  CHECK(u.file_index == 13);
  d.file_ends(10);  // frames 0..9: 3, 5, 7 and 9 exist
  CHECK_FALSE(d.grant(0, u));
  CHECK(d.end().frames == 4);
  CHECK(d.end().why == RunEnd::Why::done);
  p.last = 8;  // and with a last frame: 3, 5, 7
  FrameDispenser bounded(p, 1);
  CHECK(drain(bounded, 1).size() == 3);
}

TEST_CASE("the earliest bad frame ends the frames and gives the error") {
  FrameDispenser d(listed(10), 2);
  drain(d, 2);
  d.error(25, "frame 25: bad");    // ordinal 5
  d.error(16, "frame 16: worse");  // ordinal 2: earlier, wins
  d.error(28, "frame 28: later");
  d.file_ends(40);
  const RunEnd end = d.end();
  CHECK(end.why == RunEnd::Why::input_error);
  CHECK(end.frames == 2);
  CHECK(end.message == "frame 16: worse");
  DistributedPlan scanned = listed(4);  // a damaged frame after the listed ones
  scanned.bad_frame = 22;
  scanned.bad_frame_message = "frame 22: truncated";
  FrameDispenser s(scanned, 1);
  CHECK(drain(s, 1).size() == 4);
  CHECK(s.end().why == RunEnd::Why::input_error);
  CHECK(s.end().frames == 4);
}

TEST_CASE("a stop counts the frames handed out, and a frame begun in parts whole") {
  FrameDispenser d(listed(10), 2);
  WorkUnit u;
  for (int k = 0; k < 3; ++k) REQUIRE(d.grant(k % 2, u));
  d.stop(15);
  CHECK_FALSE(d.grant(0, u));
  CHECK(d.end().why == RunEnd::Why::stopped);
  CHECK(d.end().signo == 15);
  CHECK(d.end().frames == 3);

  DistributedPlan p = listed(4);
  p.frame_parts = 3;
  p.split_last = 2;  // frames 2 and 3 in three parts each
  FrameDispenser parts(p, 2);
  const auto all = drain(parts, 2);
  REQUIRE(all.size() == 2 + 2 * 3);
  CHECK(all[1].part == -1);
  CHECK(all[2].ordinal == 2);
  CHECK(all[2].part == 0);
  CHECK(all[4].part == 2);
  CHECK(all[7].ordinal == 3);
  CHECK(all[7].part == 2);

  FrameDispenser stopped(p, 2);
  for (int k = 0; k < 4; ++k) REQUIRE(stopped.grant(0, u));  // frame 2: parts 0 and 1 out
  stopped.stop(2);
  REQUIRE(stopped.grant(1, u));  // its last part still goes out
  CHECK(u.ordinal == 2);
  CHECK(u.part == 2);
  CHECK_FALSE(stopped.grant(1, u));
  CHECK(stopped.end().frames == 3);
}

TEST_CASE("a rank five times slower gets parts before the others near the end") {
  DistributedPlan p = listed(60);
  p.frame_parts = 4;
  FrameDispenser d(p, 2);
  // Rank 0 claims a frame a second, rank 1 one every five seconds (or a part every 1.25 s).
  double next[2] = {0, 0};
  bool slow_split_first = false, fast_split = false, slow_waited = false;
  WorkUnit u;
  for (;;) {
    const int r = next[0] <= next[1] ? 0 : 1;
    const Offer offer = d.grant(r, u, next[r]);
    if (offer.kind == Offer::none) break;
    if (offer.kind == Offer::later) {  // the fast rank counts the rest sooner
      CHECK(r == 1);
      slow_waited = true;
      next[r] += 0.1;
      continue;
    }
    const double pace = r == 0 ? 1.0 : 5.0;
    next[r] += u.part >= 0 ? pace / 4 : pace;
    if (u.part >= 0 && r == 1 && !fast_split) slow_split_first = true;
    if (u.part >= 0 && r == 0) fast_split = true;
  }
  CHECK(slow_split_first);
  CHECK(slow_waited);
  CHECK(d.seconds_per_frame(0) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(d.seconds_per_frame(1) == doctest::Approx(5.0).epsilon(0.05));
  // Both end within a part of the slow rank (1.25 s) of each other; as they last claimed, the
  // slow rank had its last part ahead of it: it ends by next[1], the fast one by next[0].
  CHECK(std::abs(next[0] - next[1]) < 1.5);
}
