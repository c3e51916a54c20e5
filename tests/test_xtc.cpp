// XtcReader against GROMACS itself (`gmx dump` is the reference decoder), plus truncated, corrupt
// and hand-made files. Needs gmx: PAIRHIST_GMX names the executable (default "gmx").
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::TrajectoryFrame;
using pairhist::io::XtcReader;

namespace {

const std::string kSampleXtc = pairhist::test::data_dir() + "/spce_water.xtc";

using pairhist::test::append_be32;
using pairhist::test::contains;
using pairhist::test::get_be32;
using pairhist::test::gmx;
using pairhist::test::input_error_of;
using pairhist::test::put_be32;
using pairhist::test::read_all;
using pairhist::test::require_gmx;
using pairhist::test::run_shell;
using pairhist::test::shell_quote;
using pairhist::test::write_all;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("xtc") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<XtcReader>(path, frames);
}

void append_float(std::string& b, float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  append_be32(b, bits);
}

/// Frame start offsets of a classic (magic 1995) XTC, walked independently of XtcReader:
/// 56 header bytes, then for natoms > 9 a 36-byte packed header whose last word is the data size.
std::vector<size_t> frame_starts(const std::string& b) {
  std::vector<size_t> starts;
  size_t pos = 0;
  while (pos + 56 <= b.size()) {
    REQUIRE(get_be32(b, pos) == 1995u);
    starts.push_back(pos);
    const uint32_t natoms = get_be32(b, pos + 4);
    if (natoms <= 9) {
      pos += 56 + 12 * size_t{natoms};
    } else {
      const size_t nbytes = get_be32(b, pos + 88);
      pos += 92 + ((nbytes + 3) & ~size_t{3});
    }
  }
  REQUIRE(pos == b.size());
  return starts;
}

// ---- gmx dump reference -------------------------------------------------------------------

struct DumpFrame {
  int natoms = -1;
  long long step = 0;
  double time = 0, precision = 0;
  std::array<double, 9> box{};
  std::vector<double> xyz;
};

std::vector<DumpFrame> gmx_dump(const std::string& xtc) {
  const std::string cmd =
      shell_quote(gmx()) + " -quiet dump -f " + shell_quote(xtc) + " 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE_MESSAGE(pipe != nullptr, "cannot run " << cmd);
  std::vector<DumpFrame> frames;
  bool in_order = true;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    const std::string line(buf);
    int idx = 0;
    double a = 0, b = 0, c = 0;
    if (line.size() > 2 && contains(line, " frame ") && line[line.size() - 2] == ':') {
      frames.emplace_back();
    } else if (frames.empty()) {
      continue;
    } else if (std::sscanf(buf, " natoms=%d step=%lld time=%lf prec=%lf", &frames.back().natoms,
                           &frames.back().step, &frames.back().time,
                           &frames.back().precision) == 4) {
      frames.back().xyz.reserve(3 * static_cast<size_t>(frames.back().natoms));
    } else if (std::sscanf(buf, " box[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4 && idx >= 0 &&
               idx < 3) {
      frames.back().box[3 * idx] = a;
      frames.back().box[3 * idx + 1] = b;
      frames.back().box[3 * idx + 2] = c;
    } else if (std::sscanf(buf, " x[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4) {
      // Out-of-order indices would misalign everything after them; catch them once, below.
      if (static_cast<size_t>(idx) * 3 != frames.back().xyz.size()) in_order = false;
      frames.back().xyz.insert(frames.back().xyz.end(), {a, b, c});
    }
  }
  const int status = ::pclose(pipe);
  REQUIRE_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "failed: " << cmd);
  REQUIRE_MESSAGE(!frames.empty(), "gmx dump printed no frames for " << xtc);
  REQUIRE_MESSAGE(in_order, "unexpected atom numbering in gmx dump output for " << xtc);
  return frames;
}

/// gmx dump prints floats with 6 significant digits (%12.5e), so a correct value lies within half
/// a unit of the 6th digit of the printed one: at most 5e-6 relative. A wrong decoded integer is
/// off by at least 1/precision (1e-3 nm), far outside this for any coordinate below 100 nm.
bool matches_printed(double value, double printed, double rel = 5e-6) {
  return std::fabs(value - printed) <= rel * std::fabs(printed) * (1 + 1e-9) + 1e-30;
}

/// Every frame, header field and coordinate of `xtc` agrees with what gmx dump prints.
void check_against_gmx_dump(const std::string& xtc) {
  const std::vector<DumpFrame> ref = gmx_dump(xtc);
  XtcReader reader(xtc);
  CHECK(reader.path() == xtc);
  REQUIRE(reader.natoms() == ref.front().natoms);
  TrajectoryFrame frame;
  size_t bad_values = 0, bad_headers = 0;
  double worst = 0;
  for (size_t f = 0; f < ref.size(); ++f) {
    const DumpFrame& d = ref[f];
    REQUIRE_MESSAGE(reader.next(frame), "reader stopped early at frame " << f);
    REQUIRE(d.xyz.size() == 3 * static_cast<size_t>(d.natoms));
    REQUIRE(frame.xyz.size() == d.xyz.size());
    // gmx dump prints -1 as the precision of uncompressed frames; the reader reports 0.
    const double prec = d.precision < 0 ? 0 : d.precision;
    if (frame.step != d.step || !matches_printed(frame.time, d.time, 5e-8) ||
        !matches_printed(frame.precision, prec)) {
      if (bad_headers++ < 5) {
        MESSAGE("frame " << f << ": step/time/prec " << frame.step << " " << frame.time << " "
                         << frame.precision << " vs gmx " << d.step << " " << d.time << " "
                         << d.precision);
      }
    }
    for (size_t k = 0; k < 9; ++k) {
      if (!matches_printed(frame.box[k], d.box[k]) && bad_values++ < 5) {
        MESSAGE("frame " << f << " box[" << k << "]: " << frame.box[k] << " vs " << d.box[k]);
      }
    }
    for (size_t k = 0; k < d.xyz.size(); ++k) {
      worst = std::max(worst, std::fabs(frame.xyz[k] - d.xyz[k]));
      if (!matches_printed(frame.xyz[k], d.xyz[k]) && bad_values++ < 5) {
        MESSAGE("frame " << f << " atom " << k / 3 << " dim " << k % 3 << ": " << frame.xyz[k]
                         << " vs gmx " << d.xyz[k]);
      }
    }
  }
  CHECK(bad_headers == 0);
  CHECK(bad_values == 0);
  CHECK(worst < 2e-5);
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == static_cast<int64_t>(ref.size()));
}

/// Runs `gmx trjconv` on the sample (selecting group 0 of `ndx`, or of the default groups) and
/// returns the path of the written trajectory.
std::string gmx_trjconv(const TempDir& tmp, const std::string& out_name, const std::string& args) {
  const std::string out = tmp.file(out_name);
  const std::string cmd = "echo 0 | " + shell_quote(gmx()) + " -quiet trjconv -f " +
                          shell_quote(kSampleXtc) + " -o " + shell_quote(out) + " " + args + " >" +
                          shell_quote(tmp.file("trjconv.log")) + " 2>&1";
  REQUIRE_MESSAGE(run_shell(cmd), "gmx trjconv failed: " << cmd);
  REQUIRE(fs::exists(out));
  return out;
}

/// A copy of the first `natoms` atoms of the sample.
std::string gmx_subset(const TempDir& tmp, int natoms) {
  const std::string ndx = tmp.file("first" + std::to_string(natoms) + ".ndx");
  std::ofstream idx(ndx);
  idx << "[ first ]\n";
  for (int i = 1; i <= natoms; ++i) idx << i << (i % 10 == 0 ? '\n' : ' ');
  idx << '\n';
  idx.close();
  return gmx_trjconv(tmp, "first" + std::to_string(natoms) + ".xtc", "-n " + shell_quote(ndx));
}

}  // namespace

TEST_CASE("the dump comparison is strict enough to see a one-step decode error") {
  // 1/precision = 0.001 nm is the smallest error a wrong integer can cause.
  CHECK(matches_printed(0.246f, 2.46000e-01));
  CHECK_FALSE(matches_printed(0.247f, 2.46000e-01));
  CHECK_FALSE(matches_printed(2.999f, 3.00000e+00));
  CHECK_FALSE(matches_printed(29.999f, 3.00000e+01));
  CHECK_FALSE(matches_printed(0.001f, 0.0));
}

TEST_CASE("XtcReader decodes the sample trajectory exactly as gmx dump does") {
  require_gmx();
  check_against_gmx_dump(kSampleXtc);
}

TEST_CASE("XtcReader reads small systems: plain floats up to 9 atoms, compressed from 10") {
  require_gmx();
  TempDir tmp;
  for (int natoms : {1, 3, 9, 10, 12}) {
    CAPTURE(natoms);
    const std::string path = gmx_subset(tmp, natoms);
    check_against_gmx_dump(path);
    XtcReader reader(path);
    TrajectoryFrame frame;
    REQUIRE(reader.next(frame));
    CHECK((natoms <= 9 ? frame.precision == 0 : frame.precision > 0));
  }
}

TEST_CASE("XtcReader decodes high-precision files (wide integers, per-dimension packing)") {
  // At 5 decimals a packed triplet exceeds 32 bits, at 6 it exceeds 56 bits (the long-division
  // path), and from 7 the coordinate ranges exceed 2^24 so each integer is stored separately.
  require_gmx();
  TempDir tmp;
  for (int ndec : {5, 6, 7, 8}) {
    CAPTURE(ndec);
    const std::string path = gmx_trjconv(tmp, "ndec" + std::to_string(ndec) + ".xtc",
                                         "-e 3 -ndec " + std::to_string(ndec));
    check_against_gmx_dump(path);
    // The coordinates were 3-decimal values to begin with, so they must survive re-encoding at
    // higher precision up to its rounding (half a unit) and float resolution.
    XtcReader original(kSampleXtc), fine(path);
    TrajectoryFrame a, b;
    double worst = 0;
    while (fine.next(b)) {
      REQUIRE(original.next(a));
      CHECK(b.precision == doctest::Approx(std::pow(10.0, ndec)));
      for (size_t k = 0; k < a.xyz.size(); ++k) {
        worst = std::max(worst, std::fabs(double{a.xyz[k]} - b.xyz[k]));
      }
    }
    CHECK(fine.frames_read() > 1);
    CHECK(worst <= 0.5 * std::pow(10.0, -ndec) + 1e-6);
  }
}

TEST_CASE("XtcReader reads a hand-written uncompressed XTC exactly") {
  TempDir tmp;
  const std::array<float, 9> box = {2.5f, 0, 0, 0.1f, 2.25f, 0, -0.3f, 0.2f, 2.0f};
  const std::vector<float> xyz = {0.125f, -1.5f, 3.75f, 1e-3f, 2.0f, -0.0625f};
  std::string bytes;
  for (int f = 0; f < 2; ++f) {
    append_be32(bytes, 1995);
    append_be32(bytes, 2);
    append_be32(bytes, static_cast<uint32_t>(100 * f));
    append_float(bytes, 0.5f * static_cast<float>(f));
    for (float v : box) append_float(bytes, v);
    append_be32(bytes, 2);
    for (float v : xyz) append_float(bytes, v + static_cast<float>(f));
  }
  const std::string path = tmp.file("tiny.xtc");
  write_all(path, bytes);

  XtcReader reader(path);
  CHECK(reader.natoms() == 2);
  TrajectoryFrame frame;
  for (int f = 0; f < 2; ++f) {
    REQUIRE(reader.next(frame));
    CHECK(frame.step == 100 * f);
    CHECK(frame.time == 0.5 * f);
    CHECK(frame.precision == 0);
    CHECK(frame.box == box);
    REQUIRE(frame.xyz.size() == xyz.size());
    for (size_t k = 0; k < xyz.size(); ++k) CHECK(frame.xyz[k] == xyz[k] + static_cast<float>(f));
  }
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == 2);

  // Cut inside the coordinates of the second frame.
  write_all(path, bytes.substr(0, bytes.size() - 5));
  const std::string msg = read_to_end(path);
  CHECK(contains(msg, "frame 1:"));
  CHECK(contains(msg, "truncated"));
  CHECK(contains(msg, "last complete frame is 0"));
}

TEST_CASE("truncated XTC files report the last complete frame") {
  TempDir tmp;
  const std::string bytes = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(bytes);
  REQUIRE(starts.size() >= 3);
  const size_t k = std::min<size_t>(57, starts.size() - 1);
  const size_t frame_end = k + 1 < starts.size() ? starts[k + 1] : bytes.size();
  const std::string path = tmp.file("cut.xtc");
  const std::string expect_frame = "frame " + std::to_string(k) + ":";
  const std::string expect_last = "last complete frame is " + std::to_string(k - 1) + ")";

  SUBCASE("cut in the middle of the compressed data") {
    write_all(path, bytes.substr(0, (starts[k] + frame_end) / 2));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == static_cast<int64_t>(k));
    CHECK(contains(msg, path));
    CHECK(contains(msg, expect_frame));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, expect_last));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("cut inside the frame header") {
    write_all(path, bytes.substr(0, starts[k] + 20));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == static_cast<int64_t>(k));
    CHECK(contains(msg, expect_frame));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, expect_last));
  }
  SUBCASE("cut inside the compressed-coordinate header") {
    write_all(path, bytes.substr(0, starts[k] + 70));
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, expect_frame));
    CHECK(contains(msg, expect_last));
  }
  SUBCASE("cut inside the padding after the data") {
    write_all(path, bytes.substr(0, frame_end - 1));
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, expect_frame));
    CHECK(contains(msg, expect_last));
  }
  SUBCASE("cut exactly at a frame boundary is a clean end") {
    write_all(path, bytes.substr(0, starts[k]));
    int64_t frames = 0;
    CHECK(read_to_end(path, &frames).empty());
    CHECK(frames == static_cast<int64_t>(k));
  }
  SUBCASE("cut inside the first frame") {
    write_all(path, bytes.substr(0, 30));
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, "frame 0:"));
    CHECK(contains(msg, "no complete frame"));
  }
  SUBCASE("the error is sticky") {
    write_all(path, bytes.substr(0, starts[1] + 10));
    XtcReader reader(path);
    TrajectoryFrame frame;
    REQUIRE(reader.next(frame));
    const std::string first = input_error_of([&] { reader.next(frame); });
    CHECK(contains(first, "frame 1:"));
    CHECK(input_error_of([&] { reader.next(frame); }) == first);
  }
}

TEST_CASE("XtcReader rejects files that are not XTC trajectories") {
  TempDir tmp;
  std::string bytes = read_all(kSampleXtc);
  const std::string path = tmp.file("bad.xtc");

  SUBCASE("missing file") {
    const std::string missing = tmp.file("does-not-exist.xtc");
    const std::string msg = input_error_of([&] { XtcReader reader(missing); });
    CHECK(contains(msg, missing));
  }
  SUBCASE("wrong magic") {
    put_be32(bytes, 0, 1996);
    write_all(path, bytes);
    const std::string msg = input_error_of([&] { XtcReader reader(path); });
    CHECK(contains(msg, path));
    CHECK(contains(msg, "not an XTC"));
  }
  SUBCASE("a text file") {
    write_all(path, "     3\nSOL OW 1 0.1 0.2 0.3\n");
    CHECK(contains(input_error_of([&] { XtcReader reader(path); }), "not an XTC"));
  }
  SUBCASE("empty file") {
    write_all(path, "");
    CHECK(contains(input_error_of([&] { XtcReader reader(path); }), "empty"));
  }
}

TEST_CASE("corrupt header fields give InputError naming the frame") {
  TempDir tmp;
  const std::string good = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(good);
  REQUIRE(starts.size() >= 4);
  const size_t k = 3;
  const std::string path = tmp.file("corrupt.xtc");
  auto expect = [&](size_t offset, uint32_t value, const std::string& what) {
    CAPTURE(what);
    std::string bytes = good;
    put_be32(bytes, starts[k] + offset, value);
    write_all(path, bytes);
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == static_cast<int64_t>(k));
    CHECK(contains(msg, "frame 3:"));
    CHECK(contains(msg, "last complete frame is 2)"));
    CHECK(contains(msg, what));
  };
  float nan = std::nanf("");
  uint32_t nan_bits = 0;
  std::memcpy(&nan_bits, &nan, sizeof nan_bits);
  expect(0, 1234, "magic");
  expect(4, 2653, "atom count");
  expect(52, 2651, "coordinate block");
  expect(16, nan_bits, "box");
  expect(56, nan_bits, "precision");
  expect(56, 0, "precision");
  expect(84, 8, "small index");
  expect(84, 73, "small index");
  expect(88, 0x7fffffff, "compressed data");
  expect(88, 0x80000000u, "negative");
  expect(88, 12, "too small");
  // minint above maxint in x.
  expect(60, 0x7ffffff0, "coordinate range");
}

TEST_CASE("the GROMACS 2023 layout (magic 2023, 64-bit byte count) decodes like the classic one") {
  TempDir tmp;
  const std::string classic = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(classic);
  std::string large;
  for (size_t f = 0; f < starts.size(); ++f) {
    const size_t end = f + 1 < starts.size() ? starts[f + 1] : classic.size();
    std::string frame = classic.substr(starts[f], end - starts[f]);
    put_be32(frame, 0, 2023);
    frame.insert(88, 4, '\0');  // high word of the byte count
    large += frame;
  }
  const std::string path = tmp.file("magic2023.xtc");
  write_all(path, large);

  XtcReader a(kSampleXtc), b(path);
  TrajectoryFrame fa, fb;
  int64_t n = 0;
  while (a.next(fa)) {
    REQUIRE(b.next(fb));
    CHECK(fb.step == fa.step);
    CHECK(fb.box == fa.box);
    CHECK(fb.precision == fa.precision);
    CHECK(fb.xyz == fa.xyz);
    ++n;
  }
  CHECK_FALSE(b.next(fb));
  CHECK(n == static_cast<int64_t>(starts.size()));
}

TEST_CASE("corrupted compressed bytes never crash the decoder") {
  // Run this under -fsanitize=address,undefined to see that garbage input stays defined.
  TempDir tmp;
  const std::string good = read_all(kSampleXtc);
  const std::vector<size_t> starts = frame_starts(good);
  REQUIRE(starts.size() >= 3);
  const std::string path = tmp.file("garbage.xtc");
  std::mt19937 rng(12345);
  int errors = 0, silent = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes = good;
    const size_t data = starts[1] + 92;
    const size_t data_end = starts[2];
    // Overwrite a random span with random bytes: sometimes one byte, sometimes most of the data.
    const size_t len = trial % 4 == 0 ? 1 : 1 + rng() % (data_end - data);
    const size_t at = data + rng() % (data_end - data - len + 1);
    for (size_t i = 0; i < len; ++i) bytes[at + i] = static_cast<char>(rng() & 0xff);
    write_all(path, bytes);
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    if (msg.empty()) {
      ++silent;  // garbage coordinates are acceptable; the framing still holds
      CHECK(frames == static_cast<int64_t>(starts.size()));
    } else {
      ++errors;
      CHECK(contains(msg, "frame 1:"));
      CHECK(frames == 1);
    }
  }
  MESSAGE("random corruption of frame 1: " << errors << " InputErrors, " << silent
                                           << " decoded as garbage");
  CHECK(errors > 0);
}
