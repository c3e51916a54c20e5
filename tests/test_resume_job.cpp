// Stopping and resuming inside the process: the engine's frame gate drops whole frames only,
// a stopped job keeps exact state, and a job resumed from any state it handed out ends with the
// same result as a job never stopped. (test_resume_cli does the same through signals.)
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codelets/starpu/frame_gate.hpp"
#include "drivers/job/checkpoint.hpp"
#include "drivers/job/frame_source.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/trajectory/trajectory_opening.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/engine_reference.hpp"
#include "tests/test_paths.hpp"

using namespace pairhist;

namespace {

JobOptions water_job() {
  JobOptions o;
  o.trajectory = test::data_dir() + "/spce_water.xtc";
  o.topology = test::data_dir() + "/spce_water.gro";
  o.species = {parse_species("O=OW"), parse_species("H=HW1,HW2")};
  o.r_max = 1.0;
  o.nbins = 50;
  o.ncpu = 2;
  o.ncuda = 0;
  o.last = 59;
  o.interval = 7;
  o.exclude = "residue";  // excluded pairs are kept per frame until the engine counted it
  return o;
}

/// Everything a run's outputs are made of.
void check_same_result(const HistogramResult& a, const HistogramResult& b) {
  CHECK(a.complete == b.complete);
  CHECK(a.frame_indices == b.frame_indices);
  CHECK(a.frame_times == b.frame_times);
  CHECK(a.volumes == b.volumes);
  CHECK(a.box_kind == b.box_kind);
  REQUIRE(a.pairs.size() == b.pairs.size());
  for (size_t p = 0; p < a.pairs.size(); ++p) {
    CHECK(a.pairs[p].counts == b.pairs[p].counts);
    CHECK(a.pairs[p].excluded_pairs == b.pairs[p].excluded_pairs);
  }
  REQUIRE(a.intervals.size() == b.intervals.size());
  for (size_t i = 0; i < a.intervals.size(); ++i) {
    CHECK(a.intervals[i].frame_begin == b.intervals[i].frame_begin);
    CHECK(a.intervals[i].frame_end == b.intervals[i].frame_end);
    CHECK(a.intervals[i].counts == b.intervals[i].counts);
  }
}

std::vector<const float*> pointers(const test::RandomFrames& f, size_t t) {
  std::vector<const float*> p;
  for (const auto& s : f.xyz[t]) p.push_back(s.data());
  return p;
}

test::RandomFrames first_frames(const test::RandomFrames& f, uint64_t n) {
  test::RandomFrames g = f;
  g.boxes.resize(n);
  g.xyz.resize(n);
  return g;
}

}  // namespace

TEST_CASE("the frame gate admits whole frames: those begun before it closed") {
  codelets::FrameGate gate;
  CHECK(gate.admit(0));
  CHECK(gate.admit(3));  // frames begin out of order under any scheduler
  CHECK(gate.admit(1));
  CHECK(gate.counted(10) == 10);
  CHECK(gate.close() == 4);
  CHECK(gate.close() == 4);
  CHECK(gate.counted(10) == 4);
  CHECK(gate.admit(2));  // a late task of a frame that has begun still counts
  CHECK(gate.admit(3));
  CHECK_FALSE(gate.admit(4));
  CHECK_FALSE(gate.admit(9));

  // Threads beginning tasks of increasing frames while another closes: no frame is admitted in
  // part, the admitted ones are exactly those below the bound.
  for (int trial = 0; trial < 20; ++trial) {
    codelets::FrameGate g;
    constexpr int kThreads = 4, kFrames = 2000;
    std::vector<std::vector<char>> admitted(kThreads, std::vector<char>(kFrames));
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t)
      workers.emplace_back([&, t] {
        for (int f = 0; f < kFrames; ++f) admitted[t][f] = g.admit(static_cast<uint64_t>(f));
      });
    std::this_thread::sleep_for(std::chrono::microseconds(50 * trial));
    const uint64_t bound = g.close();
    for (auto& w : workers) w.join();
    for (int t = 0; t < kThreads; ++t)
      for (int f = 0; f < kFrames; ++f)
        if (static_cast<bool>(admitted[t][f]) != (static_cast<uint64_t>(f) < bound)) {
          FAIL("thread " << t << " frame " << f << " admitted " << int(admitted[t][f])
                         << " with bound " << bound);
        }
  }
}

TEST_CASE("drop_unstarted_frames: the histograms hold exactly the frames before its bound") {
  const auto frames = test::make_frames({1000, 300}, 24, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 64, 1.0, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  config.frames_in_flight = 4;
  config.max_pairs_per_task = 100000;  // many tasks per frame: a drop lands inside frames

  SUBCASE("from the submitting thread, between frames") {
    HistogramEngine engine(config);
    for (size_t t = 0; t < 12; ++t) engine.submit_frame(pointers(frames, t), frames.boxes[t]);
    const uint64_t bound = engine.drop_unstarted_frames();
    // Frame 11 reused frame 7's buffers, so frames up to 7 were counted before the drop.
    CHECK(bound >= 8);
    CHECK(bound <= 12);
    for (size_t t = 12; t < 24; ++t) engine.submit_frame(pointers(frames, t), frames.boxes[t]);
    const auto counts = engine.finish();
    CHECK(engine.frames_counted() == bound);
    CHECK(counts == test::reference_histograms<float>(first_frames(frames, bound), config));
  }
  SUBCASE("from another thread at random moments, also inside a take") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 4; ++trial) {
      HistogramEngine engine(config);
      std::atomic<uint64_t> bound{0};
      const int delay_ms = std::uniform_int_distribution<int>(0, 20)(rng);
      std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        bound = engine.drop_unstarted_frames();
      });
      std::vector<std::vector<uint64_t>> counts;
      for (size_t t = 0; t < 24; ++t) {
        engine.submit_frame(pointers(frames, t), frames.boxes[t]);
        if (t == 15) counts = engine.take_histograms();
      }
      stopper.join();
      const auto rest = engine.finish();
      CAPTURE(delay_ms);
      CAPTURE(bound.load());
      CHECK(engine.frames_counted() == bound);
      for (size_t p = 0; p < rest.size(); ++p)
        for (size_t k = 0; k < rest[p].size(); ++k) counts[p][k] += rest[p][k];
      CHECK(counts == test::reference_histograms<float>(first_frames(frames, bound), config));
    }
  }
}

TEST_CASE(
    "a job stopped between frames, resumed from any state it kept, ends as if never stopped") {
  const JobOptions base = water_job();
  const JobOutcome whole = run_trajectory_job(base);
  REQUIRE(whole.result.complete);
  REQUIRE(whole.result.frame_indices.size() == 60);

  // Stop after a given number of frames handed over, then resume from the state kept at the
  // stop; repeat until the run is done. Frames in flight at the stop are dropped and read again.
  for (int64_t every : {11, 29}) {
    CAPTURE(every);
    JobState state;
    bool have_state = false;
    HistogramResult last;
    int runs = 0;
    for (; runs < 12; ++runs) {
      std::atomic<int> stop{0};
      JobOptions o = base;
      o.hooks.stop = &stop;
      o.hooks.checkpoint_seconds = 0;
      if (have_state) o.resume = &state;
      // A stop drops the frames whose tasks have not begun; should a loaded machine drop all of
      // them every time, the last run goes through.
      const auto stop_at = static_cast<int64_t>(state.frames()) + every;
      o.hooks.progress = [&, stop_at, runs](int64_t frames) {
        if (frames == stop_at && runs < 10) stop = SIGINT;
      };
      JobState kept;
      o.hooks.on_checkpoint = [&](const JobState& s) { kept = s; };
      const JobOutcome out = run_trajectory_job(o);
      if (out.result.complete) {
        last = out.result;
        break;
      }
      CHECK(out.stopped_by_signal == SIGINT);
      CHECK(out.result.stopped_by == "SIGINT");
      REQUIRE(kept.frames() == out.result.frame_indices.size());
      CHECK(kept.frames() >= state.frames());
      state = kept;
      have_state = true;
    }
    CHECK(runs >= 2);
    check_same_result(last, whole.result);
  }

  // A checkpoint after every frame; a run killed at any of them goes on from it.
  JobOptions o = base;
  o.hooks.checkpoint_seconds = 1e-9;
  std::vector<JobState> kept;
  o.hooks.on_checkpoint = [&](const JobState& s) { kept.push_back(s); };
  check_same_result(run_trajectory_job(o).result, whole.result);
  REQUIRE(kept.size() >= 30);
  for (size_t i : {size_t(0), size_t(5), kept.size() / 2, kept.size() - 1}) {
    CAPTURE(i);
    JobOptions r = base;
    r.resume = &kept[i];
    check_same_result(run_trajectory_job(r).result, whole.result);
  }
}

TEST_CASE("a resumed run counts periodic images as its checkpoint's frames were counted") {
  // Frame 45 of the water sample allows r_max 1.4815 nm, frames 46-60 at least 1.4826 nm: at
  // 1.482 nm the run's first frame needs every image and the others do not. A run resumed after
  // frame 45 must go on with images (the two ways round differently), as the checkpoint says.
  JobOptions base = water_job();
  base.r_max = 1.482;
  base.nbins = 296;
  base.first = 45;
  base.last = 60;
  base.interval = 4;
  base.exclude = "none";
  const JobOutcome whole = run_trajectory_job(base);
  REQUIRE(whole.result.complete);
  REQUIRE(whole.result.frame_indices.size() == 16);
  JobOptions o = base;
  o.hooks.checkpoint_seconds = 1e-9;
  std::vector<JobState> kept;
  o.hooks.on_checkpoint = [&](const JobState& s) { kept.push_back(s); };
  check_same_result(run_trajectory_job(o).result, whole.result);
  REQUIRE_FALSE(kept.empty());
  CHECK(kept[0].periodic_images == 1);
  for (size_t i : {size_t(0), kept.size() / 2}) {
    CAPTURE(i);
    JobOptions r = base;
    r.resume = &kept[i];
    check_same_result(run_trajectory_job(r).result, whole.result);
  }
}

TEST_CASE("JobAccumulator: a take holds the frames below the engine's bound, the rest dropped") {
  // Two pairs, three bins; pair 0 has one shared atom (a self pair in bin 0 every frame).
  JobAccumulator acc(2, 3, {1, 0}, 2, JobState{});
  acc.submitted({10, 1.0, 5.0}, {{1, 1}});  // frame 10: an excluded pair in pair 0, bin 1
  acc.submitted({11, 2.0, 5.0}, {{4, 2}});  // frame 11: two in pair 1, bin 1
  acc.submitted({12, 3.0, 5.0}, {{0, 1}});
  acc.finished_before(1);  // frame 10's excluded bins are folded away
  CHECK(acc.pending() == 3);
  // The engine counted frames 0 and 1 of its three (a stop dropped the third).
  acc.taken({{10, 10, 10}, {20, 20, 20}}, 2);
  CHECK(acc.dropped() == 1);
  CHECK(acc.state().frame_indices == std::vector<int64_t>{10, 11});
  CHECK(acc.state().volumes == std::vector<double>{5.0, 5.0});
  CHECK(acc.state().open_counts[0] == std::vector<uint64_t>{8, 9, 10});
  CHECK(acc.state().open_counts[1] == std::vector<uint64_t>{20, 18, 20});
  CHECK(acc.block_full());
  acc.close_block();
  CHECK(acc.state().intervals.size() == 1);
  CHECK(acc.open_frames() == 0);
  // Left-out pairs beyond the counts are a bug, not a result.
  acc.submitted({13, 4.0, 5.0}, {{2, 5}});
  CHECK_THROWS_AS(acc.taken({{1, 1, 1}, {1, 1, 1}}, 4), std::logic_error);
}

TEST_CASE("checkpoints: round trip, and any damage or change is refused with one line") {
  Checkpoint c;
  c.identity = run_identity(water_job());
  JobAccumulator acc(3, 4, {0, 0, 0}, 2, JobState{});
  for (int f = 0; f < 5; ++f) acc.submitted({f * 2, f * 0.5, 27.0 + f}, {});
  acc.taken({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}, 5);
  acc.close_block();
  acc.set_box_kind(1);
  acc.set_periodic_images(true);
  c.state = acc.state();
  const std::string bytes = encode_checkpoint(c);
  const Checkpoint back = decode_checkpoint(bytes, "ck");
  CHECK_FALSE(back.finished);
  Checkpoint done = c;
  done.finished = true;
  CHECK(decode_checkpoint(encode_checkpoint(done), "ck").finished);
  CHECK(back.identity.settings == c.identity.settings);
  CHECK(back.identity.version == c.identity.version);
  REQUIRE(back.identity.inputs.size() == 2);
  CHECK(back.identity.inputs[0].mtime_ns == c.identity.inputs[0].mtime_ns);
  CHECK(back.state.box_kind == 1);
  CHECK(back.state.periodic_images == 1);
  CHECK(back.state.frame_indices == c.state.frame_indices);
  CHECK(back.state.frame_times == c.state.frame_times);
  CHECK(back.state.volumes == c.state.volumes);
  REQUIRE(back.state.intervals.size() == 1);
  CHECK(back.state.intervals[0].counts == c.state.intervals[0].counts);
  CHECK(back.state.open_begin == 5);
  CHECK(back.state.open_counts == c.state.open_counts);
  CHECK(identity_difference(back.identity, run_identity(water_job())).empty());
  CHECK(back.state.species_counts.empty());
  CHECK(back.state.frame_pairs.empty());

  // A --sphere run's atoms per frame, and a dynamic species' pairs per frame besides.
  Checkpoint sized = c;
  sized.state.species_counts = {{3, 4}, {2, 5}, {3, 3}, {1, 1}, {0, 2}};
  const Checkpoint sphere = decode_checkpoint(encode_checkpoint(sized), "ck");
  CHECK(sphere.state.species_counts == sized.state.species_counts);
  CHECK(sphere.state.frame_pairs.empty());
  sized.state.frame_pairs = {{3, 12, 6}, {1, 10, 10}, {3, 9, 3}, {0, 1, 0}, {0, 0, 1}};
  const Checkpoint dynamic = decode_checkpoint(encode_checkpoint(sized), "ck");
  CHECK(dynamic.state.species_counts == sized.state.species_counts);
  CHECK(dynamic.state.frame_pairs == sized.state.frame_pairs);
  // A --sphere run's centre distances: all closed blocks', the open block's, and each closed
  // block's own (the errors of the sphere excess); a checkpoint without the blocks' own (written
  // before they were kept) still reads, its blocks without them.
  Checkpoint centred = c;
  centred.state.species_counts = {{3, 4}, {2, 5}, {3, 3}, {1, 1}, {0, 2}};
  centred.state.centre_closed = {{1, 2, 2}, {4, 3, 2}};
  centred.state.centre_open = {{0, 1, 0}, {1, 0, 1}};
  centred.state.intervals[0].centre_counts = centred.state.centre_closed;
  const Checkpoint centres = decode_checkpoint(encode_checkpoint(centred), "ck");
  CHECK(centres.state.centre_closed == centred.state.centre_closed);
  CHECK(centres.state.centre_open == centred.state.centre_open);
  REQUIRE(centres.state.intervals.size() == 1);
  CHECK(centres.state.intervals[0].centre_counts == centred.state.centre_closed);
  std::string older = encode_checkpoint(centred);
  // Drop the blocks' own counts (u64 blocks, u32 flag, 6 counts) and fix the header and CRC.
  const size_t own = 8 + 4 + 6 * 8, body = older.size() - 4 - own;
  older = older.substr(0, body);
  const uint64_t payload = body - (8 + 4 + 4 + 8);
  for (int i = 0; i < 8; ++i) older[16 + i] = static_cast<char>((payload >> (8 * i)) & 0xff);
  uint32_t crc = ~0u;  // CRC-32 (zlib's), bit by bit
  for (const char byte : older) {
    crc ^= static_cast<uint8_t>(byte);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc = ~crc;
  for (int i = 0; i < 4; ++i) older.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  const Checkpoint old_centres = decode_checkpoint(older, "ck");
  CHECK(old_centres.state.centre_closed == centred.state.centre_closed);
  CHECK(old_centres.state.intervals.at(0).centre_counts.empty());

  // Every flipped bit and every truncation is caught.
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    CHECK_THROWS_AS(decode_checkpoint(bad, "ck"), InputError);
  }
  for (size_t n : {size_t(0), size_t(7), size_t(30), bytes.size() / 2, bytes.size() - 1}) {
    try {
      decode_checkpoint(bytes.substr(0, n), "dir/pairhist.ckpt");
      FAIL("a truncated checkpoint was accepted");
    } catch (const InputError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("dir/pairhist.ckpt: not a valid pairhist checkpoint") == 0);
      CHECK(msg.find('\n') == std::string::npos);
    }
  }

  // What differs is named: a setting, then an input file.
  JobOptions other = water_job();
  other.r_max = 1.1;
  const std::string diff = identity_difference(c.identity, run_identity(other));
  CHECK(diff.find("--rmax differs") == 0);
  CHECK(diff.find("'1'") != std::string::npos);
  CHECK(diff.find("'1.1000000000000001'") != std::string::npos);
  RunIdentity moved = c.identity;
  moved.inputs[0].size += 1;
  const std::string changed = identity_difference(moved, c.identity);
  CHECK(changed.find("spce_water.xtc changed since the checkpoint") != std::string::npos);
  // Settings that only change the speed may differ.
  JobOptions faster = water_job();
  faster.ncpu = 1;
  faster.algorithm = Algorithm::cell_list;
  faster.decode_threads = 2;
  CHECK(identity_difference(c.identity, run_identity(faster)).empty());
}

TEST_CASE("a resumed run's frame source passes over the frames done, without decoding XTC") {
  const std::string xtc = test::data_dir() + "/spce_water.xtc";
  io::XtcReader plain(xtc);
  std::vector<io::TrajectoryFrame> all(101);
  for (auto& f : all) REQUIRE(plain.next(f));
  for (int threads : {1, 3}) {
    CAPTURE(threads);
    auto reader = io::open_trajectory_after(xtc, threads, 40);
    CHECK(reader->frames_read() == 40);
    io::TrajectoryFrame f;
    for (size_t k = 40; k < 101; ++k) {
      REQUIRE(reader->next(f));
      CHECK(f.time == all[k].time);
      CHECK(f.xyz == all[k].xyz);
    }
    CHECK_FALSE(reader->next(f));
    CHECK(reader->frames_read() == 101);
    CHECK_THROWS_WITH_AS(io::open_trajectory_after(xtc, threads, 102),
                         doctest::Contains("ends after 101 frames"), InputError);
  }
  // The plan still applies after the frames passed over.
  FramePlan plan;
  plan.first = 3;
  plan.step = 4;
  plan.last = 50;
  plan.resume_after = 19;
  FrameSource source(xtc, 1, plan);
  io::TrajectoryFrame f;
  int64_t index = -1;
  std::vector<int64_t> got;
  while (source.next(f, index)) got.push_back(index);
  CHECK(got == std::vector<int64_t>{23, 27, 31, 35, 39, 43, 47});
}
