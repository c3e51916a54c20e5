// Rank 0's frame dispenser (no MPI needed): units in order to whoever asks, the last frames in
// parts, and where the run's frames end: the plan, the file's end, the earliest bad frame, a stop.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "drivers/distributed/distributed_setup.hpp"
#include "drivers/distributed/frame_dispenser.hpp"

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

namespace {

/// Ranks counting a plan's frames as a distributed run does: each holds up to `held` claimed
/// units ahead of the one it counts (its reader's frames), claims whenever it holds fewer, counts
/// its units one after the other at its pace, and asks again 5 ms after a `later`. With
/// `report`, every claim says how many parts the rank took into counting. Returns each rank's
/// finishing time.
std::vector<double> simulate(FrameDispenser& d, const std::vector<double>& pace, int held,
                             int parts, bool report, std::vector<int>* waits = nullptr,
                             double late_start = 0, double jitter = 0) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.0, 1.0);
  const size_t n = pace.size();
  struct Rank {
    std::vector<double> queue;  // shares of a frame, claimed and not yet counted
    size_t next = 0;
    double busy_until = 0;
    int64_t delivered = 0;
    bool out = false;  // told none: claims no more
    double retry = -1;
  };
  std::vector<Rank> ranks(n);
  if (waits) waits->assign(n, 0);
  auto claim = [&](size_t r, double now) {
    Rank& k = ranks[r];
    while (!k.out && k.retry < 0 && k.queue.size() - k.next < size_t(held)) {
      WorkUnit u;
      const Offer o = d.grant(int(r), u, now, report ? k.delivered : -1);
      if (o.kind == Offer::none) {
        k.out = true;
      } else if (o.kind == Offer::later) {
        k.retry = now + 0.005;
        if (waits) ++(*waits)[r];
      } else {
        k.queue.push_back(u.part >= 0 ? 1.0 / parts : 1.0);
      }
    }
  };
  double now = 0;
  // Rank 0 claims at once; the others start `late_start` later (their claims' round trips).
  claim(0, 0);
  for (size_t r = 1; r < n; ++r) ranks[r].retry = late_start;
  for (;;) {
    // The next event: a rank's unit ends (or an idle rank with units starts), or a retry.
    double t = INFINITY;
    for (const Rank& k : ranks) {
      if (k.next < k.queue.size()) t = std::min(t, std::max(k.busy_until, now));
      if (k.retry >= 0) t = std::min(t, k.retry);
    }
    if (t == INFINITY) break;
    now = t;
    for (size_t r = 0; r < n; ++r) {
      Rank& k = ranks[r];
      if (k.retry >= 0 && k.retry <= now) {
        k.retry = -1;
        claim(r, now);
      }
      if (k.next < k.queue.size() && k.busy_until <= now) {
        const double share = k.queue[k.next++];
        k.delivered += share < 1 ? 1 : parts;
        k.busy_until = now + share * pace[r] * (1 + jitter * (noise(rng) - 0.5));
        claim(r, now);  // its reader's slot is free again
      }
    }
  }
  std::vector<double> ends;
  for (const Rank& k : ranks) ends.push_back(k.busy_until);
  return ends;
}

DistributedPlan split_plan(int frames, int parts, int ranks) {
  DistributedPlan p = listed(frames);
  p.frame_parts = parts;
  p.split_last = 6 * ranks;
  return p;
}

}  // namespace

TEST_CASE("ranks that hold many units and report what they count finish together") {
  // F1-like on 2 GPUs: 200 frames of 23 ms per rank, 5 parts, each rank holding up to 12 units
  // ahead (its reader's window), rank 1 starting 7 ms later, every unit's time within +-20%.
  for (int held : {3, 12}) {
    CAPTURE(held);
    FrameDispenser d(split_plan(200, 5, 2), 2);
    std::vector<int> waits;
    const auto ends = simulate(d, {0.023, 0.023}, held, 5, true, &waits, 0.007, 0.4);
    CHECK(waits[0] + waits[1] == 0);
    CHECK(std::abs(ends[0] - ends[1]) < 0.023 / 5 * 1.5);
    CHECK(d.seconds_per_frame(0) == doctest::Approx(0.023).epsilon(0.1));
    CHECK(d.seconds_per_frame(1) == doctest::Approx(0.023).epsilon(0.1));
    CHECK(d.end().frames == 200);
  }
  // A GPU rank and a rank three times slower, each holding up to 8 or 12 units: the slow one
  // gets fewer units and parts earlier, and waits where the fast one would finish sooner. Its
  // pace comes from what it counts (judged from its claims' intervals it looked 3-4 times slower
  // still), and the two finish within 3.5% of the run, against 7-11% without the reports.
  for (int held : {8, 12}) {
    CAPTURE(held);
    double tail[2];
    for (bool report : {false, true}) {
      FrameDispenser d(split_plan(200, 5, 2), 2);
      const auto ends = simulate(d, {0.02, 0.06}, held, 5, report, nullptr, 0.007, 0.4);
      tail[report] = std::abs(ends[0] - ends[1]) / std::max(ends[0], ends[1]);
      CHECK(d.units_granted(0) > 3 * d.units_granted(1));
      if (report) CHECK(d.seconds_per_frame(1) == doctest::Approx(0.06).epsilon(0.1));
    }
    CHECK(tail[1] < 0.035);
    CHECK(tail[1] < tail[0] / 1.5);
  }
}

TEST_CASE("the last frames go out in parts only where counting a part outweighs reading it") {
  // F1 on one GPU a rank: 28 ms of counting, 18 ms to read a frame on one of 12 cores.
  CHECK(tail_frame_parts(0.028, 0.018, 12, 2) == 5);
  CHECK(tail_frame_parts(1.0, 0.018, 12, 2) == kPartsPerRank * 2);  // capped
  // W1 at 11M atoms: 16.6 ms of counting against 0.3 s of reading over 15 cores: whole frames.
  CHECK(tail_frame_parts(0.0166, 0.3, 15, 2) == 1);
  // The same frame with more cores to read it on: parts of the read's share (0.3 / 120).
  CHECK(tail_frame_parts(0.0166, 0.3, 120, 2) == 3);
  CHECK(tail_frame_parts(0.001, 0.0, 8, 4) == 1);  // less than one part's minimum
}

TEST_CASE("a frame split over ranks whose paces are unknown goes out in even shares") {
  // One frame in 6 parts over 2 ranks that report what they count: rank 0's decoding threads ask
  // first, many times; it takes half and is told to ask later, rank 1 takes the rest.
  FrameDispenser d(split_plan(1, 6, 2), 2);
  WorkUnit u;
  int first = 0;
  for (int ask = 0; ask < 6; ++ask)
    if (d.grant(0, u, 0.001 * ask, 0)) ++first;
  CHECK(first == 3);
  CHECK(d.grant(0, u, 0.01, 0).kind == Offer::later);
  int second = 0;
  for (int ask = 0; ask < 6; ++ask)
    if (d.grant(1, u, 0.02 + 0.001 * ask, 0)) ++second;
  CHECK(second == 3);
  CHECK(d.grant(0, u, 0.03, 3).kind == Offer::none);
  // Once rank 0 has taken its parts into counting, it may take what rank 1 has not asked for.
  FrameDispenser e(split_plan(1, 6, 2), 2);
  for (int ask = 0; ask < 3; ++ask) CHECK(e.grant(0, u, 0.001 * ask, 0));
  CHECK(e.grant(0, u, 0.004, 0).kind == Offer::later);
  CHECK(e.grant(0, u, 0.005, 3));
  // A rank that does not report what it counts is not held back (its pace is its claims').
  FrameDispenser f(split_plan(1, 6, 2), 2);
  CHECK(drain(f, 1).size() == 6);
}
