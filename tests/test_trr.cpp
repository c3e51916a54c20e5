// TrrReader against GROMACS itself: files written at test time by gmx trjconv and gmx_d, and one
// written once by GROMACS's MD engine (data/fixtures), checked against `gmx dump` and the XTC they
// were converted from; plus truncated, corrupt and hand-made files. Needs gmx: PAIRHIST_GMX names the executable (default "gmx").
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
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
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trr_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::TrajectoryFrame;
using pairhist::io::TrrReader;
using pairhist::io::XtcReader;

namespace {

const std::string kSampleXtc = pairhist::test::data_dir() + "/spce_water.xtc";
const std::string kSampleGro = pairhist::test::data_dir() + "/spce_water.gro";

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
  TempDir() : pairhist::test::TempDir("trr") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<TrrReader>(path, frames);
}

/// The double-precision build next to gmx (Debian's gmx_d), or "" when there is none.
std::string gmx_double() {
  if (const char* env = std::getenv("PAIRHIST_GMX_D"); env != nullptr && *env != '\0') return env;
  return run_shell("gmx_d -quiet -version >/dev/null 2>&1") ? "gmx_d" : "";
}

void append_real(std::string& b, double v, bool dbl) {
  if (dbl) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    append_be32(b, static_cast<uint32_t>(bits >> 32));
    append_be32(b, static_cast<uint32_t>(bits));
  } else {
    const float f = static_cast<float>(v);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    append_be32(b, bits);
  }
}

/// One TRR record as the format defines it (written here independently of the reader).
std::string trr_record(int natoms, int step, double time, const std::vector<double>* box,
                       const std::vector<double>* x, const std::vector<double>* v,
                       const std::vector<double>* f, bool dbl) {
  const uint32_t r = dbl ? 8 : 4;
  std::string b;
  append_be32(b, 1993);
  append_be32(b, 13);
  append_be32(b, 12);
  b += "GMX_trn_file";
  const uint32_t n3 = 3 * static_cast<uint32_t>(natoms);
  const uint32_t sizes[10] = {
      0, 0, box ? 9 * r : 0, 0, 0, 0, 0, x ? n3 * r : 0, v ? n3 * r : 0, f ? n3 * r : 0};
  for (uint32_t s : sizes) append_be32(b, s);
  append_be32(b, static_cast<uint32_t>(natoms));
  append_be32(b, static_cast<uint32_t>(step));
  append_be32(b, 0);  // nre
  append_real(b, time, dbl);
  append_real(b, 0.0, dbl);  // lambda
  for (const auto* block : {box, x, v, f}) {
    if (block != nullptr) {
      for (double value : *block) append_real(b, value, dbl);
    }
  }
  return b;
}

/// Record start offsets, walked independently of TrrReader (single or double precision).
std::vector<size_t> record_starts(const std::string& b) {
  std::vector<size_t> starts;
  size_t pos = 0;
  while (pos + 76 <= b.size()) {
    REQUIRE(get_be32(b, pos) == 1993u);
    starts.push_back(pos);
    size_t data = 0, real = 0;
    const uint32_t natoms = get_be32(b, pos + 64);
    for (int k = 0; k < 10; ++k) {
      const size_t s = get_be32(b, pos + 24 + 4 * k);
      data += s;
      if (s != 0 && real == 0) real = s / ((k >= 2 && k <= 4) ? 9 : 3 * size_t{natoms});
    }
    pos += 76 + 2 * (real == 0 ? 4 : real) + data;
  }
  REQUIRE(pos == b.size());
  return starts;
}

// ---- gmx dump reference -------------------------------------------------------------------

struct DumpFrame {
  int natoms = -1;
  long long step = 0;
  double time = 0;
  bool has_box = false;
  std::array<double, 9> box{};
  std::vector<double> x;
  size_t nv = 0, nf = 0;  // velocity and force rows printed
};

std::vector<DumpFrame> gmx_dump(const std::string& exe, const std::string& trr) {
  const std::string cmd = shell_quote(exe) + " -quiet dump -f " + shell_quote(trr) + " 2>/dev/null";
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
    } else if (std::sscanf(buf, " natoms=%d step=%lld time=%lf", &frames.back().natoms,
                           &frames.back().step, &frames.back().time) == 3) {
    } else if (std::sscanf(buf, " box[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4 && idx >= 0 &&
               idx < 3) {
      frames.back().has_box = true;
      frames.back().box[3 * idx] = a;
      frames.back().box[3 * idx + 1] = b;
      frames.back().box[3 * idx + 2] = c;
    } else if (std::sscanf(buf, " x[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4) {
      if (static_cast<size_t>(idx) * 3 != frames.back().x.size()) in_order = false;
      frames.back().x.insert(frames.back().x.end(), {a, b, c});
    } else if (std::sscanf(buf, " v[%d]={", &idx) == 1) {
      ++frames.back().nv;
    } else if (std::sscanf(buf, " f[%d]={", &idx) == 1) {
      ++frames.back().nf;
    }
  }
  const int status = ::pclose(pipe);
  REQUIRE_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "failed: " << cmd);
  REQUIRE_MESSAGE(!frames.empty(), "gmx dump printed no frames for " << trr);
  REQUIRE_MESSAGE(in_order, "unexpected atom numbering in gmx dump output for " << trr);
  return frames;
}

/// gmx dump prints 6 significant digits: a correct value lies within 5e-6 relative of it.
bool matches_printed(double value, double printed, double rel = 5e-6) {
  return std::fabs(value - printed) <= rel * std::fabs(printed) * (1 + 1e-9) + 1e-30;
}

/// Every record with coordinates agrees with gmx dump; records without are skipped. Returns the
/// number of frames compared.
size_t check_against_gmx_dump(const std::string& exe, const std::string& trr, bool expect_double) {
  const std::vector<DumpFrame> ref = gmx_dump(exe, trr);
  TrrReader reader(trr);
  CHECK(reader.path() == trr);
  REQUIRE(reader.natoms() == ref.front().natoms);
  TrajectoryFrame frame;
  size_t bad = 0, compared = 0;
  for (size_t f = 0; f < ref.size(); ++f) {
    const DumpFrame& d = ref[f];
    if (d.x.empty()) continue;
    REQUIRE_MESSAGE(reader.next(frame), "reader stopped early at dump frame " << f);
    CHECK(reader.double_precision() == expect_double);
    REQUIRE(frame.xyz.size() == d.x.size());
    REQUIRE(d.x.size() == 3 * static_cast<size_t>(d.natoms));
    CHECK(frame.step == d.step);
    CHECK(matches_printed(frame.time, d.time, 5e-8));
    CHECK(frame.precision == 0);
    for (size_t k = 0; k < 9; ++k) {
      const double want = d.has_box ? d.box[k] : 0.0;
      if (!matches_printed(frame.box[k], want) && bad++ < 5) {
        MESSAGE("dump frame " << f << " box[" << k << "]: " << frame.box[k] << " vs " << want);
      }
    }
    for (size_t k = 0; k < d.x.size(); ++k) {
      if (!matches_printed(frame.xyz[k], d.x[k]) && bad++ < 5) {
        MESSAGE("dump frame " << f << " atom " << k / 3 << " dim " << k % 3 << ": " << frame.xyz[k]
                              << " vs gmx " << d.x[k]);
      }
    }
    ++compared;
  }
  CHECK(bad == 0);
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == static_cast<int64_t>(compared));
  CHECK(reader.records_read() == static_cast<int64_t>(ref.size()));
  return compared;
}

std::string trjconv(const std::string& exe, const TempDir& tmp, const std::string& in,
                    const std::string& out_name, const std::string& args) {
  const std::string out = tmp.file(out_name);
  const std::string cmd = "echo 0 | " + shell_quote(exe) + " -quiet trjconv -f " + shell_quote(in) +
                          " -s " + shell_quote(kSampleGro) + " -o " + shell_quote(out) + " " +
                          args + " >" + shell_quote(tmp.file("trjconv.log")) + " 2>&1";
  REQUIRE_MESSAGE(run_shell(cmd), "gmx trjconv failed: " << cmd);
  REQUIRE(fs::exists(out));
  return out;
}

/// The TRR frames equal the XTC frames they were converted from, bit for bit (both readers
/// return floats; trjconv copies the decoded XTC values).
void check_equals_xtc(const std::string& trr, int64_t expect_frames) {
  XtcReader xtc(kSampleXtc);
  TrrReader reader(trr);
  TrajectoryFrame a, b;
  int64_t n = 0, differing = 0;
  while (reader.next(b)) {
    REQUIRE(xtc.next(a));
    CHECK(b.step == a.step);
    CHECK(b.time == doctest::Approx(a.time).epsilon(1e-6));
    CHECK(b.box == a.box);
    if (b.xyz != a.xyz) ++differing;
    ++n;
  }
  CHECK(differing == 0);
  CHECK(n == expect_frames);
}

}  // namespace

TEST_CASE("TrrReader reads a single-precision TRR written by gmx trjconv") {
  require_gmx();
  TempDir tmp;
  const std::string trr = trjconv(gmx(), tmp, kSampleXtc, "s.trr", "-e 3");
  CHECK(check_against_gmx_dump(gmx(), trr, false) == 11);
  check_equals_xtc(trr, 11);
}

TEST_CASE("TrrReader reads a double-precision TRR written by gmx_d trjconv") {
  require_gmx();
  const std::string exe = gmx_double();
  if (exe.empty()) {
    MESSAGE("no gmx_d (set PAIRHIST_GMX_D): double-precision TRR from GROMACS not tested");
    return;
  }
  TempDir tmp;
  const std::string trr = trjconv(exe, tmp, kSampleXtc, "d.trr", "-e 3");
  const std::string bytes = read_all(trr);
  REQUIRE(get_be32(bytes, 32) == 72u);  // box block of 9 doubles: it really is double
  CHECK(check_against_gmx_dump(exe, trr, true) == 11);
  check_equals_xtc(trr, 11);
}

TEST_CASE("TrrReader skips records without coordinates in a TRR of GROMACS's MD engine") {
  require_gmx();
  TempDir tmp;
  // scripts/make-reader-fixtures.sh: 4 MD steps of 10 waters, x every 2 steps, v every step,
  // f every 4: records 1 and 3 hold only box and v.
  const std::string trr = pairhist::test::data_dir() + "/fixtures/gmx_md_mixed.trr";
  const std::vector<DumpFrame> ref = gmx_dump(gmx(), trr);
  REQUIRE(ref.size() == 5);
  CHECK(ref[0].nf == 30);  // the file really mixes blocks
  CHECK(ref[1].x.empty());
  CHECK(ref[1].nv == 30);
  CHECK(check_against_gmx_dump(gmx(), trr, false) == 3);

  TrrReader reader(trr);
  TrajectoryFrame frame;
  std::vector<int64_t> steps;
  while (reader.next(frame)) steps.push_back(frame.step);
  CHECK(steps == std::vector<int64_t>{0, 2, 4});
  CHECK(reader.records_skipped() == 2);

  // Damage inside the skipped record 3 names the next frame and the file record.
  const std::string bytes = read_all(trr);
  const std::vector<size_t> starts = record_starts(bytes);
  REQUIRE(starts.size() == 5);
  const std::string cut = tmp.file("cut.trr");
  write_all(cut, bytes.substr(0, (starts[3] + starts[4]) / 2));
  int64_t frames = 0;
  const std::string msg = read_to_end(cut, &frames);
  CHECK(frames == 2);
  CHECK(contains(msg, "frame 2:"));
  CHECK(contains(msg, "last complete frame is 1; file record 3)"));
}

TEST_CASE("TrrReader reads the triclinic box of a dodecahedron") {
  require_gmx();
  TempDir tmp;
  const std::string gro = tmp.file("tric.gro");
  REQUIRE(run_shell(shell_quote(gmx()) + " -quiet editconf -f " + shell_quote(kSampleGro) +
                    " -bt dodecahedron -d 0.5 -o " + shell_quote(gro) + " >/dev/null 2>&1"));
  const std::string trr = tmp.file("tric.trr");
  REQUIRE(run_shell("echo 0 | " + shell_quote(gmx()) + " -quiet trjconv -s " + shell_quote(gro) +
                    " -f " + shell_quote(gro) + " -o " + shell_quote(trr) + " >/dev/null 2>&1"));
  CHECK(check_against_gmx_dump(gmx(), trr, false) == 1);
  const pairhist::analysis::Topology top = pairhist::io::read_gro(gro);
  TrrReader reader(trr);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.box[6] != 0.0f);  // genuinely triclinic
  CHECK(frame.box[7] != 0.0f);
  for (size_t k = 0; k < 9; ++k) CHECK(frame.box[k] == doctest::Approx(top.box[k]).epsilon(1e-5));
  CHECK(frame.box[1] == 0.0f);
  CHECK(frame.box[2] == 0.0f);
  CHECK(frame.box[5] == 0.0f);
}

TEST_CASE("TrrReader reads hand-written records exactly, in both precisions") {
  TempDir tmp;
  const std::vector<double> box = {2.5, 0, 0, 0.1, 2.25, 0, -0.3, 0.2, 2.0};
  const std::vector<double> x = {0.125, -1.5, 3.75, 1e-3, 2.0, -0.0625};
  const std::vector<double> v = {9, 9, 9, 9, 9, 9};
  for (bool dbl : {false, true}) {
    CAPTURE(dbl);
    std::string bytes;
    bytes += trr_record(2, 10, 0.5, &box, &x, &v, &v, dbl);
    bytes += trr_record(2, 11, 0.75, &box, nullptr, &v, nullptr, dbl);          // skipped
    bytes += trr_record(2, 12, 1.0, nullptr, &x, nullptr, nullptr, dbl);        // no box
    bytes += trr_record(2, 13, 1.25, nullptr, nullptr, nullptr, nullptr, dbl);  // empty
    const std::string path = tmp.file("hand.trr");
    write_all(path, bytes);
    TrrReader reader(path);
    CHECK(reader.natoms() == 2);
    TrajectoryFrame frame;
    REQUIRE(reader.next(frame));
    CHECK(reader.double_precision() == dbl);
    CHECK(frame.step == 10);
    CHECK(frame.time == 0.5);
    for (size_t k = 0; k < 9; ++k) CHECK(frame.box[k] == static_cast<float>(box[k]));
    REQUIRE(frame.xyz.size() == 6);
    for (size_t k = 0; k < 6; ++k) CHECK(frame.xyz[k] == static_cast<float>(x[k]));
    REQUIRE(reader.next(frame));
    CHECK(frame.step == 12);
    CHECK(frame.time == 1.0);
    CHECK(frame.box == std::array<float, 9>{});
    for (size_t k = 0; k < 6; ++k) CHECK(frame.xyz[k] == static_cast<float>(x[k]));
    CHECK_FALSE(reader.next(frame));
    CHECK(reader.frames_read() == 2);
    CHECK(reader.records_read() == 4);
  }
}

TEST_CASE("TRR truncated at every byte reports the last complete frame") {
  TempDir tmp;
  const std::vector<double> box = {3, 0, 0, 0, 3, 0, 0, 0, 3};
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  for (bool dbl : {false, true}) {
    CAPTURE(dbl);
    std::string bytes;
    for (int f = 0; f < 3; ++f) bytes += trr_record(3, f, f, &box, &x, &x, nullptr, dbl);
    const std::vector<size_t> starts = record_starts(bytes);
    REQUIRE(starts.size() == 3);
    const std::string path = tmp.file("cut.trr");
    int errors = 0;
    int tried = 0;
    for (size_t len = 0; len < bytes.size(); ++len) {
      // Every byte of the headers; inside the data blocks of double records every 5th is enough.
      const bool in_header = std::any_of(starts.begin(), starts.end(),
                                         [&](size_t st) { return len >= st && len < st + 100; });
      if (dbl && !in_header && len % 5 != 0) continue;
      ++tried;
      write_all(path, bytes.substr(0, len));
      const size_t complete = static_cast<size_t>(
          std::upper_bound(starts.begin(), starts.end(), len) - starts.begin() - 1);
      int64_t frames = -1;
      const std::string msg = read_to_end(path, &frames);
      if (len == 0) {
        CHECK(contains(msg, "empty"));
      } else if (len == starts[complete]) {
        CHECK_MESSAGE(msg.empty(), "cut at " << len << ": " << msg);
        CHECK(frames == static_cast<int64_t>(complete));
      } else {
        ++errors;
        CAPTURE(len);
        CAPTURE(msg);
        CHECK(contains(msg, path));
        CHECK(contains(msg, "frame " + std::to_string(complete) + ":"));
        CHECK(contains(msg, "truncated"));
        CHECK(contains(msg, complete == 0
                                ? std::string("(no complete frame)")
                                : "(last complete frame is " + std::to_string(complete - 1) + ")"));
        CHECK(msg.find('\n') == std::string::npos);
      }
    }
    CHECK(errors == tried - 3);
  }
}

TEST_CASE("truncated gmx TRR: mid-frame and mid-header, and the error is sticky") {
  require_gmx();
  TempDir tmp;
  const std::string trr = trjconv(gmx(), tmp, kSampleXtc, "s.trr", "-e 3");
  const std::string bytes = read_all(trr);
  const std::vector<size_t> starts = record_starts(bytes);
  REQUIRE(starts.size() == 11);
  const std::string path = tmp.file("cut.trr");
  for (size_t cut : {starts[7] + 40, (starts[7] + starts[8]) / 2}) {
    CAPTURE(cut);
    write_all(path, bytes.substr(0, cut));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == 7);
    CHECK(contains(msg, "frame 7:"));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, "(last complete frame is 6)"));
  }
  TrrReader reader(path);
  TrajectoryFrame frame;
  for (int k = 0; k < 7; ++k) REQUIRE(reader.next(frame));
  const std::string first = input_error_of([&] { reader.next(frame); });
  CHECK(contains(first, "frame 7:"));
  CHECK(input_error_of([&] { reader.next(frame); }) == first);
}

TEST_CASE("TrrReader rejects files that are not valid TRR") {
  TempDir tmp;
  const std::vector<double> box = {3, 0, 0, 0, 3, 0, 0, 0, 3};
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  std::string good;
  for (int f = 0; f < 3; ++f) good += trr_record(2, f, f, &box, &x, nullptr, nullptr, false);
  const std::vector<size_t> starts = record_starts(good);
  const std::string path = tmp.file("bad.trr");

  SUBCASE("missing file") {
    const std::string missing = tmp.file("does-not-exist.trr");
    const std::string msg = input_error_of([&] { TrrReader reader(missing); });
    CHECK(contains(msg, missing));
    CHECK(contains(msg, "cannot open"));
  }
  SUBCASE("wrong magic in the first frame") {
    std::string bytes = good;
    put_be32(bytes, 0, 1995);
    write_all(path, bytes);
    const std::string msg = input_error_of([&] { TrrReader reader(path); });
    CHECK(contains(msg, path));
    CHECK(contains(msg, "not a TRR"));
  }
  SUBCASE("an XTC file") {
    CHECK(contains(input_error_of([&] { TrrReader reader(kSampleXtc); }), "not a TRR"));
  }
  SUBCASE("empty file") {
    write_all(path, "");
    CHECK(contains(input_error_of([&] { TrrReader reader(path); }), "empty"));
  }
  SUBCASE("huge consistent sizes are checked against the file before allocating") {
    std::string bytes = trr_record(2, 0, 0, nullptr, &x, nullptr, nullptr, false);
    put_be32(bytes, 52, 1200000000u);  // x of 100 million atoms
    put_be32(bytes, 64, 100000000u);
    write_all(path, bytes);
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, "frame 0: truncated"));
    CHECK(contains(msg, "(no complete frame)"));
  }
  SUBCASE("corrupt fields in frame 2") {
    auto expect = [&](size_t offset, uint32_t value, const std::string& what) {
      CAPTURE(what);
      std::string bytes = good;
      put_be32(bytes, starts[2] + offset, value);
      write_all(path, bytes);
      int64_t frames = 0;
      const std::string msg = read_to_end(path, &frames);
      CHECK(frames == 2);
      CHECK(contains(msg, "frame 2:"));
      CHECK(contains(msg, "(last complete frame is 1)"));
      CHECK(contains(msg, what));
    };
    expect(0, 1234, "magic");
    expect(4, 14, "version");
    expect(12, 0x474d5859, "version");  // "GMXY"
    expect(24, 4, "unsupported ir");
    expect(32, 36 * 2 + 4, "box block size");
    expect(52, 20, "x block size");
    expect(52, 48 * 2, "inconsistent");  // x as double while the box is float
    expect(56, 0x80000000u, "negative");
    expect(64, 3, "atom count");
    float inf = INFINITY;
    uint32_t inf_bits = 0;
    std::memcpy(&inf_bits, &inf, sizeof inf_bits);
    expect(84, inf_bits, "non-finite box");
    expect(84 + 36 + 4, inf_bits, "non-finite coordinate");
  }
}
