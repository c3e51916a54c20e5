// XtcParallelReader against the serial XtcReader: the same frames bit for bit, the same end, and
// the same errors after the same delivered frames, whatever the number of decode threads.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "drivers/job/trajectory_job.hpp"
#include "io/trajectory/trajectory_opening.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "io/xtc/xtc_scanner.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::InputError;
using pairhist::io::ColumnMap;
using pairhist::io::FrameChooser;
using pairhist::io::FramePreparation;
using pairhist::io::gather_species_columns;
using pairhist::io::SpeciesColumns;
using pairhist::io::TrajectoryFrame;
using pairhist::io::TrajectoryReader;
using pairhist::io::XtcParallelReader;
using pairhist::io::XtcReader;
using pairhist::test::contains;
using pairhist::test::get_be32;
using pairhist::test::read_all;
using pairhist::test::write_all;

const std::string kSampleXtc = pairhist::test::data_dir() + "/spce_water.xtc";
constexpr int kThreadCounts[] = {1, 2, 4, 7};

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("xtcpar") {}
};

/// Everything a reader delivers: the frames (every field, floats compared as bits), the count it
/// reports, and the error that stopped it ("" for a clean end).
struct Outcome {
  std::vector<TrajectoryFrame> frames;
  int64_t frames_read = -1;
  std::string error;
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool same_frame(const TrajectoryFrame& a, const TrajectoryFrame& b) {
  return a.step == b.step && std::memcmp(&a.time, &b.time, sizeof a.time) == 0 &&
         std::memcmp(a.box.data(), b.box.data(), sizeof a.box) == 0 &&
         std::memcmp(&a.precision, &b.precision, sizeof a.precision) == 0 &&
         same_bits(a.xyz, b.xyz);
}

/// Reads to the end (or to the error), then once more to see that the end or error persists.
Outcome drain(TrajectoryReader& reader) {
  Outcome out;
  TrajectoryFrame frame;
  out.error = pairhist::test::input_error_of([&] {
    while (reader.next(frame)) out.frames.push_back(frame);
  });
  out.frames_read = reader.frames_read();
  const std::string again = pairhist::test::input_error_of([&] {
    const bool more = reader.next(frame);
    CHECK_FALSE(more);
  });
  CHECK(again == out.error);
  return out;
}

// Errors of the constructor count as the outcome's error too.
Outcome read_serial(const std::string& path) {
  Outcome out;
  const std::string open_error = pairhist::test::input_error_of([&] {
    XtcReader reader(path);
    out = drain(reader);
  });
  if (!open_error.empty()) out.error = open_error;
  return out;
}

Outcome read_parallel(const std::string& path, int threads) {
  Outcome out;
  const std::string open_error = pairhist::test::input_error_of([&] {
    XtcParallelReader reader(path, threads);
    CHECK(reader.threads() == threads);
    out = drain(reader);
  });
  if (!open_error.empty()) out.error = open_error;
  return out;
}

void check_same(const Outcome& serial, const Outcome& parallel) {
  CHECK(parallel.error == serial.error);
  CHECK(parallel.frames_read == serial.frames_read);
  REQUIRE(parallel.frames.size() == serial.frames.size());
  size_t differ = 0;
  for (size_t f = 0; f < serial.frames.size(); ++f)
    if (!same_frame(serial.frames[f], parallel.frames[f])) ++differ;
  CHECK(differ == 0);
}

/// Frame start offsets of a classic XTC with natoms > 9, walked from the byte counts.
std::vector<size_t> frame_starts(const std::string& b) {
  std::vector<size_t> starts;
  for (size_t pos = 0; pos + 92 <= b.size();
       pos += 92 + ((size_t{get_be32(b, pos + 88)} + 3) & ~size_t{3}))
    starts.push_back(pos);
  return starts;
}

/// An F1-like file at test scale: uniform random atoms in a 15 nm cube, no box, precision 10^4
/// (so packed triplets are about 52 bits and few small runs occur, as in F1).
std::string write_f1_like(const TempDir& tmp, int natoms, int frames) {
  const std::string path = tmp.file("f1like.xtc");
  pairhist::io::XtcWriter writer(path, natoms, 10000.0f);
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> u(0.0f, 15.0f);
  TrajectoryFrame frame;
  frame.xyz.resize(static_cast<size_t>(natoms) * 3);
  for (int t = 0; t < frames; ++t) {
    for (float& v : frame.xyz) v = u(rng);
    frame.step = t;
    frame.time = t;
    writer.write(frame);
  }
  writer.close();
  return path;
}

}  // namespace

TEST_CASE("the parallel reader delivers the serial reader's frames bit for bit") {
  TempDir tmp;
  const std::string f1 = write_f1_like(tmp, 3000, 12);
  for (const std::string& path : {kSampleXtc, f1}) {
    CAPTURE(path);
    const Outcome serial = read_serial(path);
    REQUIRE(serial.error.empty());
    REQUIRE(serial.frames.size() > 10);
    for (int threads : kThreadCounts) {
      CAPTURE(threads);
      check_same(serial, read_parallel(path, threads));
    }
  }
}

TEST_CASE("decoding threads deliver each frame's species as columns, gathered or decoded into") {
  // Disjoint species in no particular order (decoded straight into columns unless the whole frame
  // is wanted too), and overlapping ones (always gathered from the whole frame); the sample, and a
  // file of 7 atoms, whose frames XTC stores uncompressed.
  TempDir tmp;
  const std::string tiny = write_f1_like(tmp, 7, 5);
  for (const std::string& path : {kSampleXtc, tiny}) {
    CAPTURE(path);
    const Outcome serial = read_serial(path);
    const int last = serial.frames.front().xyz.size() / 3 - 1;
    const std::vector<std::vector<int>> disjoint = {{5, 0, last, 3}, {1, 2, 4}, {}};
    const std::vector<std::vector<int>> overlapping = {{5, 0, last, 3}, {3, 1, 2, 4}};
    for (const auto* atoms : {&disjoint, &overlapping})
      for (bool whole_frame : {false, true})
        for (int threads : {2, 5}) {
          CAPTURE(atoms == &disjoint);
          CAPTURE(whole_frame);
          CAPTURE(threads);
          FramePreparation prep;
          prep.species = *atoms;
          prep.whole_frame = whole_frame;
          XtcParallelReader reader(path, threads, prep);
          TrajectoryFrame frame;
          size_t k = 0;
          while (reader.next(frame)) {
            REQUIRE(k < serial.frames.size());
            const TrajectoryFrame& want = serial.frames[k];
            CHECK(frame.step == want.step);
            CHECK(frame.time == want.time);
            CHECK(frame.box == want.box);
            // Decoded straight into columns, the whole frame is not delivered (tiny frames are
            // decoded whole, then gathered).
            if (whole_frame || atoms == &overlapping || path == tiny)
              REQUIRE(same_frame(frame, want));
            else
              CHECK(frame.xyz.empty());
            REQUIRE(frame.columns.filled);
            CHECK(frame.columns.bad_species == -1);
            REQUIRE(frame.columns.soa.size() == atoms->size());
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (size_t s = 0; s < atoms->size(); ++s) {
              const size_t n = (*atoms)[s].size();
              REQUIRE(frame.columns.soa[s].size() == 3 * n);
              for (size_t i = 0; i < n; ++i)
                for (int c = 0; c < 3; ++c) {
                  const float v = want.xyz[3 * size_t((*atoms)[s][i]) + size_t(c)];
                  REQUIRE(frame.columns.soa[s][size_t(c) * n + i] == v);
                  lo[c] = std::min(lo[c], v);
                  hi[c] = std::max(hi[c], v);
                }
            }
            for (int c = 0; c < 3; ++c) {
              CHECK(frame.columns.lo[c] == lo[c]);
              CHECK(frame.columns.hi[c] == hi[c]);
            }
            ++k;
          }
          CHECK(k == serial.frames.size());
        }
  }
  // Without species the columns the caller hands back are never mistaken for a new frame's.
  XtcParallelReader reader(kSampleXtc, 3);
  TrajectoryFrame frame;
  frame.columns.filled = true;
  while (reader.next(frame)) REQUIRE(!frame.columns.filled);
}

TEST_CASE("a reader opened before the species are known: whole frames first, then columns") {
  const Outcome serial = read_serial(kSampleXtc);
  FramePreparation pending;
  pending.pending = true;
  XtcParallelReader reader(kSampleXtc, 4, pending, 2);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(same_frame(frame, serial.frames[0]));
  CHECK_FALSE(frame.columns.filled);
  FramePreparation prep;
  prep.species = {{4, 2}, {0}};
  prep.whole_frame = false;
  reader.set_preparation(prep);
  size_t k = 1, with_columns = 0;
  while (reader.next(frame)) {
    REQUIRE(k < serial.frames.size());
    // Frames claimed before set_preparation come whole (at most kPendingFrames ahead).
    if (frame.columns.filled) {
      ++with_columns;
      CHECK(frame.columns.soa[1][0] == serial.frames[k].xyz[0]);
      CHECK(frame.columns.soa[0][1] == serial.frames[k].xyz[3 * 2]);
    } else {
      CHECK(k <= 2);
      CHECK(same_frame(frame, serial.frames[k]));
    }
    ++k;
  }
  CHECK(k == serial.frames.size());
  CHECK(with_columns + 3 >= k);
}

TEST_CASE("a column map needs disjoint species of existing atoms") {
  CHECK(ColumnMap({{0, 2}, {1}}, 3).usable());
  CHECK_FALSE(ColumnMap({{0, 2}, {2}}, 3).usable());
  CHECK_FALSE(ColumnMap({{0, 3}}, 3).usable());
  CHECK_FALSE(ColumnMap({{-1}}, 3).usable());
  const ColumnMap m({{4, 1}, {}, {0}}, 5);
  CHECK(m.species_of(1) == 0);
  CHECK(m.position_of(1) == 1);
  CHECK(m.species_of(0) == 2);
  CHECK(m.species_of(2) == -1);
  CHECK(m.size(1) == 0);
}

TEST_CASE("gather_species_columns: bounds, and the first non-finite coordinate") {
  std::vector<float> xyz = {1, 2, 3, -4, 5, 6, 7, -8, 9, 0.5f, 0.25f, -0.125f};
  SpeciesColumns c;
  gather_species_columns(xyz.data(), {{3, 1}, {}, {2}}, c);
  REQUIRE(c.filled);
  CHECK(c.bad_species == -1);
  CHECK(c.soa[0] == pairhist::HostColumn{0.5f, -4, 0.25f, 5, -0.125f, 6});
  CHECK(c.soa[1].empty());
  CHECK(c.soa[2] == pairhist::HostColumn{7, -8, 9});
  CHECK(c.lo[0] == -4);
  CHECK(c.hi[0] == 7);
  CHECK(c.lo[1] == -8);
  CHECK(c.hi[1] == 5);
  CHECK(c.lo[2] == -0.125f);
  CHECK(c.hi[2] == 9);
  xyz[3 * 2 + 1] = INFINITY;
  gather_species_columns(xyz.data(), {{0, 1}, {3, 2, 0}}, c);
  CHECK(c.bad_species == 1);
  CHECK(c.bad_position == 1);
}

TEST_CASE("measured and copied columns: the bounds and first non-finite coordinate of a gather") {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> coordinate(-50, 50);
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    // Species of 0..40 atoms (the copy's unaligned head, vector body and tail), one atom in
    // three unused; every fourth trial an inf or a NaN somewhere.
    const int natoms = 1 + static_cast<int>(rng() % 120);
    std::vector<float> xyz(3 * static_cast<size_t>(natoms));
    for (float& v : xyz) v = coordinate(rng);
    if (trial % 4 == 3)
      xyz[rng() % xyz.size()] =
          trial % 8 == 3 ? -INFINITY : std::numeric_limits<float>::quiet_NaN();
    std::vector<std::vector<int>> atoms(3);
    for (int a = 0; a < natoms; ++a)
      if (rng() % 3 != 0) atoms[rng() % 3].push_back(a);
    SpeciesColumns expected;
    gather_species_columns(xyz.data(), atoms, expected);
    SpeciesColumns threaded;  // picked in pieces on several threads: the same, bit for bit
    gather_species_columns(xyz.data(), atoms, threaded, 2 + trial % 4);
    REQUIRE(threaded.soa.size() == expected.soa.size());
    for (size_t s = 0; s < atoms.size(); ++s)
      CHECK((threaded.soa[s].size() == expected.soa[s].size() &&
             std::memcmp(threaded.soa[s].data(), expected.soa[s].data(),
                         expected.soa[s].size() * sizeof(float)) == 0));
    CHECK(threaded.bad_species == expected.bad_species);
    CHECK(threaded.bad_position == expected.bad_position);
    if (expected.bad_species < 0)
      for (int c = 0; c < 3; ++c)
        CHECK((threaded.lo[c] == expected.lo[c] && threaded.hi[c] == expected.hi[c]));

    SpeciesColumns measured;  // the columns a decoder wrote, then measured in place
    measured.soa.resize(atoms.size());
    for (size_t s = 0; s < atoms.size(); ++s) {
      const size_t n = atoms[s].size();
      for (int c = 0; c < 3; ++c)
        for (size_t i = 0; i < n; ++i)
          measured.soa[s].push_back(xyz[3 * static_cast<size_t>(atoms[s][i]) + c]);
    }
    const std::vector<pairhist::HostColumn> written = measured.soa;
    pairhist::io::measure_species_columns(measured);
    SpeciesColumns copied;  // and copied into another set (of another size before)
    copied.soa.assign(1, pairhist::HostColumn(7, 1.0f));
    pairhist::io::copy_species_columns(written, copied);
    for (const SpeciesColumns* c : {&measured, &copied}) {
      REQUIRE(c->filled);
      CHECK(c->bad_species == expected.bad_species);
      CHECK(c->bad_position == expected.bad_position);
      if (expected.bad_species >= 0) continue;  // a refused frame's bounds mean nothing
      for (int d = 0; d < 3; ++d) {
        CHECK(c->lo[d] == expected.lo[d]);
        CHECK(c->hi[d] == expected.hi[d]);
      }
    }
    REQUIRE(copied.soa.size() == written.size());
    for (size_t s = 0; s < written.size(); ++s)  // bit for bit, NaN included
      CHECK(std::memcmp(copied.soa[s].data(), written[s].data(), written[s].size() * 4) == 0);
  }
}

TEST_CASE("threads join and leave while frames are read; every frame comes once, in order") {
  const Outcome serial = read_serial(kSampleXtc);
  for (int start : {1, 2, 6}) {
    CAPTURE(start);
    XtcParallelReader reader(kSampleXtc, 6, {}, start);
    CHECK(reader.threads() == start);
    CHECK(reader.max_threads() == 6);
    CHECK(reader.seconds_per_frame() >= 0);
    TrajectoryFrame frame;
    size_t k = 0;
    while (reader.next(frame)) {
      REQUIRE(k < serial.frames.size());
      REQUIRE(same_frame(frame, serial.frames[k]));
      if (k % 7 == 3) reader.set_active_threads(int(1 + (k * 5) % 9));  // 1..9, clamped to 6
      ++k;
    }
    CHECK(k == serial.frames.size());
    CHECK(reader.seconds_per_frame() > 0);
    CHECK(reader.threads() >= 1);
    CHECK(reader.threads() <= 6);
  }
}

TEST_CASE("recorded timings: one per delivered frame, in order, claimed <= decoded <= delivered") {
  const Outcome serial = read_serial(kSampleXtc);
  XtcParallelReader reader(kSampleXtc, 4);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));  // frames delivered before record_timings() are not recorded
  reader.record_timings();
  while (reader.next(frame)) {
  }
  const auto timings = reader.timings();
  REQUIRE(timings.size() == serial.frames.size() - 1);
  for (size_t k = 0; k < timings.size(); ++k) {
    CAPTURE(k);
    const auto& t = timings[k];
    CHECK(t.frame == static_cast<int64_t>(k + 1));
    CHECK(t.thread >= 0);
    CHECK(t.thread < 4);
    CHECK(t.promoted_by == -2);  // no pinning hooks here: nothing staged
    CHECK(t.decode_seconds > 0);
    CHECK(t.claimed <= t.decoded);
    CHECK(t.decoded == t.ready);
    CHECK(t.ready <= t.delivered);
  }
}

TEST_CASE("more threads than frames, and readers dropped before the end") {
  TempDir tmp;
  const std::string bytes = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(bytes);
  REQUIRE(starts.size() >= 4);
  const std::string path = tmp.file("short.xtc");
  for (size_t nframes : {size_t{1}, size_t{3}}) {
    write_all(path, bytes.substr(0, starts[nframes]));
    const Outcome serial = read_serial(path);
    REQUIRE(serial.frames.size() == nframes);
    for (int threads : {2, 7, 16}) check_same(serial, read_parallel(path, threads));
  }
  // A run that stops early (--last) destroys the reader while frames are decoding or waiting.
  const Outcome serial = read_serial(kSampleXtc);
  for (int repeat = 0; repeat < 20; ++repeat) {
    for (int threads : {2, 3, 7}) {
      XtcParallelReader reader(kSampleXtc, threads);
      TrajectoryFrame frame;
      const int take = repeat % 5;
      for (int f = 0; f < take; ++f) {
        REQUIRE(reader.next(frame));
        CHECK(same_frame(frame, serial.frames[static_cast<size_t>(f)]));
      }
      CHECK(reader.frames_read() == take);
    }
  }
}

TEST_CASE("a truncated file fails at the same frame with the same message, earlier frames intact") {
  TempDir tmp;
  const std::vector<size_t> all = frame_starts(read_all(kSampleXtc));
  REQUIRE(all.size() > 8);
  const std::string bytes = read_all(kSampleXtc).substr(0, all[8]);  // 8 frames
  const std::vector<size_t> starts = frame_starts(bytes);
  const std::string path = tmp.file("cut.xtc");
  // Every offset around two frame boundaries (header, packed header, padding), and a stride
  // through the rest of the file.
  std::vector<size_t> cuts;
  for (size_t at : {starts[1], starts[5]})
    for (size_t k = at - 8; k < at + 100; ++k) cuts.push_back(k);
  for (size_t k = 1; k < bytes.size(); k += 331) cuts.push_back(k);
  int errors = 0;
  for (size_t cut : cuts) {
    CAPTURE(cut);
    write_all(path, bytes.substr(0, cut));
    const Outcome serial = read_serial(path);
    if (!serial.error.empty()) ++errors;
    for (int threads : {2, 4}) {
      CAPTURE(threads);
      check_same(serial, read_parallel(path, threads));
    }
  }
  CHECK(errors > static_cast<int>(cuts.size()) / 2);  // most cuts fall inside a frame
}

TEST_CASE("corrupt compressed coordinates fail at the same frame in the same way") {
  TempDir tmp;
  const std::string good = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(good);
  const std::string path = tmp.file("garbage.xtc");
  std::mt19937 rng(777);
  int errors = 0;
  for (int trial = 0; trial < 30; ++trial) {
    CAPTURE(trial);
    std::string bytes = good.substr(0, starts[10]);
    // Garbage in the data of frame 4, sometimes also in frame 7 (the first error must win).
    for (size_t frame : {size_t{4}, size_t{7}}) {
      if (frame == 7 && trial % 2 == 0) continue;
      const size_t data = starts[frame] + 92, len = 1 + rng() % 400;
      for (size_t i = 0; i < len; ++i) bytes[data + rng() % (starts[frame + 1] - data)] ^= 0x5a;
    }
    write_all(path, bytes);
    const Outcome serial = read_serial(path);
    if (!serial.error.empty()) {
      ++errors;
      // Garbage may also decode silently; then frame 7's damage is the first error.
      CHECK((contains(serial.error, "frame 4:") ||
             (trial % 2 == 1 && contains(serial.error, "frame 7:"))));
    }
    for (int threads : {2, 7}) check_same(serial, read_parallel(path, threads));
  }
  CHECK(errors > 0);
}

TEST_CASE("errors of the first frame and of opening match the serial reader") {
  TempDir tmp;
  const std::string path = tmp.file("bad.xtc");
  write_all(path, read_all(kSampleXtc).substr(0, 30));
  const std::string msg = read_parallel(path, 3).error;
  CHECK(msg == read_serial(path).error);
  CHECK(contains(msg, "frame 0:"));
  write_all(path, "not an xtc file at all");
  CHECK(read_parallel(path, 3).error == read_serial(path).error);
  CHECK_THROWS_AS(XtcParallelReader(path, 0), InputError);  // the file is checked first
  CHECK_THROWS_AS(XtcParallelReader(kSampleXtc, 0), pairhist::UsageError);
}

TEST_CASE("pinned frames: half the decoding threads, from 8 to 32") {
  using pairhist::io::pinned_frames_for;
  CHECK(pinned_frames_for(1) == pairhist::io::kPinnedFrames);
  CHECK(pinned_frames_for(15) == 8);   // the 16-core H100 host: as before
  CHECK(pinned_frames_for(31) == 15);  // 2x H200, 32 cores
  CHECK(pinned_frames_for(63) == 31);  // 4-GPU node, 64 cores
  CHECK(pinned_frames_for(200) == pairhist::io::kMaxPinnedFrames);
  XtcParallelReader reader(kSampleXtc, 20);
  CHECK(reader.pinned_frames() == 10);
}

TEST_CASE("open_trajectory_threaded picks the reader; the automatic rule") {
  using pairhist::io::automatic_decode_threads;
  CHECK(automatic_decode_threads(2652, 64) == 1);
  CHECK(automatic_decode_threads(280000, 2) == 1);
  CHECK(automatic_decode_threads(280000, 8) == 2);
  CHECK(automatic_decode_threads(280000, 16) == 4);
  CHECK(automatic_decode_threads(280000, 64) == 4);
  CHECK(automatic_decode_threads(pairhist::io::kParallelDecodeMinAtoms, 16) == 4);
  // The threads an automatic reader may grow to: cores but one, within the memory bound.
  using pairhist::io::automatic_max_decode_threads;
  using pairhist::io::kDecodeMemoryBytes;
  CHECK(automatic_max_decode_threads(2652, 16, kDecodeMemoryBytes) == 1);
  CHECK(automatic_max_decode_threads(71604, 16, kDecodeMemoryBytes) == 15);
  CHECK(automatic_max_decode_threads(280000, 2, kDecodeMemoryBytes) == 1);  // serial
  CHECK(automatic_max_decode_threads(1357824, 16, kDecodeMemoryBytes) == 15);
  CHECK(automatic_max_decode_threads(10862592, 16, kDecodeMemoryBytes) == 8);  // 260 MB each
  // never below the starting threads
  CHECK(automatic_max_decode_threads(200000000, 64, kDecodeMemoryBytes) == 4);
  // 11.2M atoms on the 64-core, 512 GB node: 7 threads within 2 GiB, 63 within 1/8 of its memory.
  CHECK(automatic_max_decode_threads(11200000, 64, kDecodeMemoryBytes) == 7);
  CHECK(automatic_max_decode_threads(11200000, 64, 64.0 * (1 << 30)) == 63);
  // Without a bound given: 1/8 of this node's memory, never less than 2 GiB.
  CHECK(pairhist::io::decode_memory_bytes() >= kDecodeMemoryBytes);
  CHECK(automatic_max_decode_threads(10862592, 16) >= 8);

  auto is_parallel = [](const std::unique_ptr<TrajectoryReader>& r) {
    return dynamic_cast<XtcParallelReader*>(r.get()) != nullptr;
  };
  CHECK_FALSE(is_parallel(pairhist::io::open_trajectory_threaded(kSampleXtc, 1)));
  CHECK_FALSE(is_parallel(pairhist::io::open_trajectory_threaded(kSampleXtc, 0)));  // small
  const auto three = pairhist::io::open_trajectory_threaded(kSampleXtc, 3);
  REQUIRE(is_parallel(three));
  CHECK(dynamic_cast<XtcParallelReader&>(*three).threads() == 3);
  CHECK(three->natoms() == 2652);
  // Other formats ignore the setting: a .gro trajectory is read serially.
  const std::string gro = pairhist::test::data_dir() + "/spce_water.gro";
  CHECK_FALSE(is_parallel(pairhist::io::open_trajectory_threaded(gro, 4)));
  CHECK_THROWS_AS(pairhist::io::open_trajectory_threaded(kSampleXtc, -1), pairhist::UsageError);
}

// O and H of the sample water, one core counting on no GPU, serial reading.
static pairhist::JobOptions sample_water_job() {
  pairhist::JobOptions o;
  o.trajectory = kSampleXtc;
  o.topology = pairhist::test::data_dir() + "/spce_water.gro";
  o.species = {pairhist::parse_species("O=OW"), pairhist::parse_species("H=HW1,HW2")};
  o.r_max = 1.2;
  o.nbins = 60;
  o.ncpu = 1;
  o.ncuda = 0;
  o.decode_threads = 1;
  return o;
}

TEST_CASE("a job gives the same result with parallel decoding, frame selection respected") {
  pairhist::JobOptions o = sample_water_job();
  o.first = 2;
  o.last = 20;
  o.step = 6;  // frames 2, 8, 14, 20
  const pairhist::JobOutcome serial_run = pairhist::run_trajectory_job(o);
  const auto& serial = serial_run.result;
  REQUIRE(serial.frame_indices == std::vector<int64_t>{2, 8, 14, 20});
  CHECK(serial_run.activity.frames_handed_over == 0);  // whole frames: the engine picks atoms
  for (int threads : {2, 5}) {
    CAPTURE(threads);
    o.decode_threads = threads;
    const pairhist::JobOutcome run = pairhist::run_trajectory_job(o);
    const auto& parallel = run.result;
    // The decoding threads' columns went to the engine without a copy, and those of the frame
    // decoded whole before the topology named the species, made while the engine started.
    CHECK(run.activity.frames_handed_over == 4);
    CHECK(parallel.frame_indices == serial.frame_indices);
    CHECK(parallel.frame_times == serial.frame_times);
    CHECK(parallel.volumes == serial.volumes);
    REQUIRE(parallel.pairs.size() == serial.pairs.size());
    for (size_t p = 0; p < serial.pairs.size(); ++p)
      CHECK(parallel.pairs[p].counts == serial.pairs[p].counts);
  }
  // Without --ncpu the feeding plan runs on the first frame, which the decoding threads may have
  // read before the topology named the species: it still measures the frame (an H100 run once
  // kept 4 threads because the plan gave up on such a frame).
  o.ncpu = -1;
  o.decode_threads = 3;
  const pairhist::JobOutcome planned = pairhist::run_trajectory_job(o);
  CHECK(planned.decode_threads == 3);
  CHECK(planned.prepare_seconds > 0);
  CHECK(planned.result.pairs[0].counts == serial.pairs[0].counts);
}

TEST_CASE("the first frame, decoded before the species were known, goes over as columns") {
  pairhist::JobOptions o = sample_water_job();
  o.last = 3;  // frames 0 to 3: frame 0 is decoded whole while the topology loads
  const pairhist::JobOutcome serial = pairhist::run_trajectory_job(o);
  REQUIRE(serial.result.frame_indices.size() == 4);
  o.decode_threads = 3;
  const pairhist::JobOutcome run = pairhist::run_trajectory_job(o);
  // Its columns were made while the engine started, and the engine took them over.
  CHECK(run.activity.frames_handed_over == 4);
  REQUIRE(run.result.pairs.size() == serial.result.pairs.size());
  for (size_t p = 0; p < serial.result.pairs.size(); ++p)
    CHECK(run.result.pairs[p].counts == serial.result.pairs[p].counts);
}

// `pairhist bench --decode` of the sample on 2 threads, once; `extra` adds options.
static int bench_decode_sample(const std::string& extra, std::string& out) {
  const std::string bin = pairhist::test::shell_quote(pairhist::test::pairhist_binary());
  return pairhist::test::capture(bin + " bench --decode " +
                                     pairhist::test::shell_quote(kSampleXtc) +
                                     " --threads 2 --repeats 1 --warmup 0" + extra,
                                 out);
}

TEST_CASE("pairhist bench --decode reports the file and the threads used") {
  const std::string bin = pairhist::test::shell_quote(pairhist::test::pairhist_binary());
  std::string out;
  REQUIRE(bench_decode_sample(" --json", out) == 0);
  CHECK(contains(out, "\"frames\":101"));
  CHECK(contains(out, "\"natoms\":2652"));
  CHECK(contains(out, "\"threads\":2"));
  CHECK(contains(out, "\"frames_per_s_median\""));
  CHECK(pairhist::test::capture(bin + " bench --decode /nonexistent.xtc", out) == 1);
  CHECK(contains(out, "/nonexistent.xtc: no such file"));
  CHECK(pairhist::test::capture(bin + " run " + pairhist::test::shell_quote(kSampleXtc) +
                                    " --top x.gro --species O=OW --rmax 1 --nbins 10 "
                                    "--decode-threads -1",
                                out) != 0);
  CHECK(contains(out, "decode-threads"));
}

TEST_CASE("readers deliver only the chosen frames, passed over without decoding, or one again") {
  // What a rank of a distributed run asks for: frames of its own, the same frame again for
  // another part of it, then the end.
  const Outcome all = read_serial(kSampleXtc);
  REQUIRE(all.frames.size() > 12);
  const std::vector<int64_t> wanted = {
      1, pairhist::io::kFrameAgain, 3, 4, pairhist::io::kFrameAgain, 12, -1};
  const std::vector<size_t> expected = {1, 1, 3, 4, 4, 12};
  // open(chooser): a reader delivering what `chooser` names from its first frame on.
  auto check = [&](const std::function<std::unique_ptr<TrajectoryReader>(FrameChooser)>& open) {
    size_t asked = 0;
    std::vector<int64_t> seen_positions;
    auto reader = open([&](int64_t next_in_file) {
      seen_positions.push_back(next_in_file);
      return wanted[std::min(asked++, wanted.size() - 1)];
    });
    REQUIRE(reader->chooses_frames());
    TrajectoryFrame frame;
    for (size_t k = 0; k < expected.size(); ++k) {
      CAPTURE(k);
      REQUIRE(reader->next(frame));
      CHECK(same_frame(frame, all.frames[expected[k]]));
      CHECK(reader->frames_read() == static_cast<int64_t>(expected[k]) + 1);
    }
    CHECK_FALSE(reader->next(frame));
    reader.reset();  // its threads stop before the chooser's state goes
    // The chooser hears where the file stands: after frame 1 it is at frame 2, and so on.
    REQUIRE(seen_positions.size() >= 3);
    CHECK(seen_positions[0] == 0);
    CHECK(seen_positions[1] == 2);
    CHECK(seen_positions[2] == 2);
  };
  check([](FrameChooser chooser) {
    auto serial = std::make_unique<XtcReader>(kSampleXtc);
    REQUIRE(serial->choose_frames(std::move(chooser)));
    return std::unique_ptr<TrajectoryReader>(std::move(serial));
  });
  for (int threads : kThreadCounts) {
    CAPTURE(threads);
    check([&](FrameChooser chooser) {
      return pairhist::io::open_trajectory_threaded(kSampleXtc, threads, {}, std::move(chooser));
    });
    // Threads that began reading cannot be told afterwards which frames were wanted.
    XtcParallelReader started(kSampleXtc, threads);
    TrajectoryFrame frame;
    REQUIRE(started.next(frame));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // they claim the next ones
    CHECK_FALSE(started.choose_frames([](int64_t) { return int64_t{0}; }));
    CHECK_FALSE(started.chooses_frames());
  }
}

// Reading that scales with cores (issue 24): frames located under a lock, then fetched by pread
// and decoded by the threads concurrently, into buffers reused frame after frame.

TEST_CASE("positional reads: 1 to 8 threads deliver the serial reader's frames bit for bit") {
  TempDir tmp;
  const std::string f1 = write_f1_like(tmp, 20000, 23);  // frames of ~110 KB, a prime count
  for (const std::string& path : {kSampleXtc, f1}) {
    CAPTURE(path);
    const Outcome serial = read_serial(path);
    REQUIRE(serial.error.empty());
    for (int threads = 1; threads <= 8; ++threads) {
      CAPTURE(threads);
      check_same(serial, read_parallel(path, threads));
    }
  }
}

TEST_CASE("located frames fetched in any order, on several threads, hold the file's bytes") {
  using pairhist::io::xtc::RawFrame;
  using pairhist::io::xtc::Scanner;
  TempDir tmp;
  const std::string f1 = write_f1_like(tmp, 5000, 9);
  const std::string bytes = read_all(f1);
  const std::vector<size_t> starts = frame_starts(bytes);
  REQUIRE(starts.size() == 9);
  std::vector<RawFrame> located(9);
  std::string problem;
  Scanner scanner(f1);
  REQUIRE(scanner.positional());
  for (size_t k = 0; k < 9; ++k) {
    REQUIRE(scanner.locate(located[k], problem) == Scanner::Status::frame);
    CHECK(located[k].fetch_bytes > 0);  // located, not read
    CHECK(located[k].fetch_offset == starts[k] + 92);
    CHECK(located[k].nbytes == get_be32(bytes, starts[k] + 88));
  }
  RawFrame after;
  CHECK(scanner.locate(after, problem) == Scanner::Status::end);
  std::vector<std::thread> fetchers;
  std::vector<std::string> problems(9);
  for (size_t k = 9; k-- > 0;)  // last frame first
    fetchers.emplace_back([&, k] { problems[k] = scanner.fetch(located[k]); });
  for (auto& t : fetchers) t.join();
  for (size_t k = 0; k < 9; ++k) {
    CAPTURE(k);
    CHECK(problems[k].empty());
    CHECK(located[k].fetch_bytes == 0);
    const size_t n = static_cast<size_t>(located[k].nbytes);
    REQUIRE(located[k].packed.size() >= n + pairhist::io::xtc::kPackedPadding);
    CHECK(std::memcmp(located[k].packed.data(), bytes.data() + starts[k] + 92, n) == 0);
  }
}

TEST_CASE("frames held by the caller stay intact while the threads reuse their buffers") {
  TempDir tmp;
  const std::string f1 = write_f1_like(tmp, 4000, 17);
  const Outcome serial = read_serial(f1);
  for (int threads : {1, 2, 3, 8}) {
    CAPTURE(threads);
    // Every frame into a frame object of its own, all held to the end; then the same through a
    // ring of three frame objects, each compared before it is handed back.
    XtcParallelReader reader(f1, threads);
    std::vector<TrajectoryFrame> held(serial.frames.size() + 1);
    size_t k = 0;
    while (k < held.size() && reader.next(held[k])) ++k;
    REQUIRE(k == serial.frames.size());
    for (size_t f = 0; f < k; ++f) CHECK(same_frame(held[f], serial.frames[f]));

    XtcParallelReader again(f1, threads);
    std::vector<TrajectoryFrame> ring(3);
    for (size_t f = 0; f < serial.frames.size(); ++f) {
      REQUIRE(again.next(ring[f % 3]));
      if (f >= 2) CHECK(same_frame(ring[(f - 2) % 3], serial.frames[f - 2]));
    }
  }
}

TEST_CASE("damaged and truncated files with 1 to 8 threads: the serial reader's frames and error") {
  TempDir tmp;
  const std::string good = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(good);
  const std::string path = tmp.file("damaged.xtc");
  std::mt19937 rng(4242);
  for (int trial = 0; trial < 12; ++trial) {
    CAPTURE(trial);
    std::string bytes = good.substr(0, starts[12]);
    if (trial % 3 == 0) {  // a cut inside frame 6's coordinates
      bytes.resize(starts[6] + 92 + rng() % (starts[7] - starts[6] - 92));
    } else if (trial % 3 == 1) {  // garbage in frame 5's coordinates
      for (int i = 0; i < 50; ++i)
        bytes[starts[5] + 92 + rng() % (starts[6] - starts[5] - 92)] ^= 0x33;
    } else {  // a corrupt header: frame 8's byte count
      bytes[starts[8] + 88] = static_cast<char>(0x7f);
    }
    write_all(path, bytes);
    const Outcome serial = read_serial(path);
    if (trial % 3 != 1) CHECK(!serial.error.empty());  // garbage may decode silently
    for (int threads = 1; threads <= 8; ++threads) {
      CAPTURE(threads);
      check_same(serial, read_parallel(path, threads));
    }
  }
}

TEST_CASE("a pipe is streamed under the lock: the same frames as from the file") {
  TempDir tmp;
  const std::string fifo = tmp.file("frames.xtc");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const Outcome serial = read_serial(kSampleXtc);
  for (int threads : {1, 3}) {
    CAPTURE(threads);
    std::thread writer([&] { write_all(fifo, read_all(kSampleXtc)); });
    Outcome piped;
    {
      XtcParallelReader reader(fifo, threads);
      piped = drain(reader);
    }
    writer.join();
    check_same(serial, piped);
  }
}

TEST_CASE("pairhist bench --decode reports GB/s, the cores kept busy and the page faults") {
  std::string out;
  REQUIRE(bench_decode_sample(" --json", out) == 0);
  CHECK(contains(out, "\"gb_per_s_median\""));
  CHECK(contains(out, "\"cores_busy\""));
  CHECK(contains(out, "\"page_faults_median\""));
  REQUIRE(bench_decode_sample("", out) == 0);
  CHECK(contains(out, "GB/s"));
  CHECK(contains(out, "cores busy"));
}
