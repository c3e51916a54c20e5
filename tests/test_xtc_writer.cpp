// XtcWriter: round trips through XtcReader, GROMACS (`gmx check`, `gmx dump`) as the reference
// reader, compression against a GROMACS-written file, atomic output and error handling; plus the
// files of `pairhist synth`. Needs gmx: PAIRHIST_GMX names the executable (default "gmx").
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
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "drivers/workloads/bench_cases.hpp"
#include "drivers/workloads/synth_case.hpp"
#include "io/topology/gro_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::OutputError;
using pairhist::UsageError;
using pairhist::io::TrajectoryFrame;
using pairhist::io::XtcReader;
using pairhist::io::XtcWriter;

namespace {

using pairhist::test::capture;
using pairhist::test::gmx;
using pairhist::test::shell_quote;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("xtcw") {}
};

/// GROMACS is the reference reader; CI installs it, so its absence is a failure.
void require_gmx() {
  std::string out;
  static const bool found = capture(shell_quote(gmx()) + " -quiet -version", out) == 0;
  REQUIRE_MESSAGE(found, "GROMACS executable '" << gmx()
                                                << "' not runnable: install GROMACS or set "
                                                   "PAIRHIST_GMX");
}

std::vector<float> uniform(size_t natoms, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<float> xyz(3 * natoms);
  for (auto& v : xyz) v = static_cast<float>(u(rng));
  return xyz;
}

/// Water-like: O at random, two H about 0.1 nm away, molecules in file order, as MD writes them.
std::vector<float> waterlike(size_t natoms, double extent, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, extent), h(-0.06, 0.06);
  std::vector<float> xyz(3 * natoms);
  double o[3] = {0, 0, 0};
  for (size_t i = 0; i < natoms; ++i) {
    for (size_t d = 0; d < 3; ++d) {
      if (i % 3 == 0) o[d] = u(rng);
      xyz[3 * i + d] = static_cast<float>(i % 3 == 0 ? o[d] : o[d] + h(rng));
    }
  }
  return xyz;
}

/// Largest error a correct writer+reader may show: half a step from rounding to the grid, plus
/// float rounding of the decoded value. A wrong integer is off by a whole step.
double tolerance(double x, double precision) {
  return 0.5 / precision * (1 + 1e-6) + 2.5e-7 * (std::fabs(x) + 1 / precision);
}

TrajectoryFrame make_frame(std::vector<float> xyz, int64_t step, double time,
                           std::array<float, 9> box = {}) {
  TrajectoryFrame f;
  f.xyz = std::move(xyz);
  f.step = step;
  f.time = time;
  f.box = box;
  return f;
}

void write_xtc(const std::string& path, int natoms, float precision,
               const std::vector<TrajectoryFrame>& frames) {
  XtcWriter w(path, natoms, precision);
  for (const auto& f : frames) w.write(f);
  CHECK(w.frames_written() == static_cast<int64_t>(frames.size()));
  w.close();
  CHECK(fs::file_size(path) == w.bytes_written());
}

/// Reads `path` back and checks every frame against `frames`. Returns the number of bad values.
size_t check_round_trip(const std::string& path, int natoms, float precision,
                        const std::vector<TrajectoryFrame>& frames) {
  XtcReader reader(path);
  REQUIRE(reader.natoms() == natoms);
  TrajectoryFrame got;
  size_t bad = 0;
  for (size_t f = 0; f < frames.size(); ++f) {
    REQUIRE_MESSAGE(reader.next(got), "frame " << f << " missing");
    CHECK(got.step == frames[f].step);
    CHECK(got.time == frames[f].time);
    CHECK(got.box == frames[f].box);
    CHECK(got.precision == (natoms <= 9 ? 0.0f : precision));
    REQUIRE(got.xyz.size() == frames[f].xyz.size());
    for (size_t k = 0; k < got.xyz.size(); ++k) {
      const double want = frames[f].xyz[k];
      // Plain-float frames (natoms <= 9) must be exact.
      const double tol = natoms <= 9 ? 0 : tolerance(want, precision);
      if (!(std::fabs(got.xyz[k] - want) <= tol) && bad++ < 5) {
        MESSAGE(path << " frame " << f << " atom " << k / 3 << " dim " << k % 3 << ": wrote "
                     << want << ", read " << got.xyz[k]);
      }
    }
  }
  CHECK_FALSE(reader.next(got));
  return bad;
}

size_t round_trip(const TempDir& tmp, const std::string& name, int natoms, float precision,
                  const std::vector<TrajectoryFrame>& frames) {
  const std::string path = tmp.file(name);
  write_xtc(path, natoms, precision, frames);
  return check_round_trip(path, natoms, precision, frames);
}

struct DumpFrame {
  int natoms = -1;
  long long step = 0;
  double time = 0, precision = 0;
  std::array<double, 9> box{};
  std::vector<double> xyz;
};

std::vector<DumpFrame> gmx_dump(const std::string& xtc) {
  std::string out;
  const std::string cmd = shell_quote(gmx()) + " -quiet dump -f " + shell_quote(xtc);
  REQUIRE_MESSAGE(capture(cmd, out) == 0, "failed: " << cmd << "\n" << out);
  std::vector<DumpFrame> frames;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(pos, end - pos);
    pos = end + 1;
    int idx = 0;
    double a = 0, b = 0, c = 0;
    DumpFrame probe;
    if (std::sscanf(line.c_str(), " natoms=%d step=%lld time=%lf prec=%lf", &probe.natoms,
                    &probe.step, &probe.time, &probe.precision) == 4) {
      frames.push_back(probe);
    } else if (frames.empty()) {
      continue;
    } else if (std::sscanf(line.c_str(), " box[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4 &&
               idx >= 0 && idx < 3) {
      frames.back().box[3 * static_cast<size_t>(idx)] = a;
      frames.back().box[3 * static_cast<size_t>(idx) + 1] = b;
      frames.back().box[3 * static_cast<size_t>(idx) + 2] = c;
    } else if (std::sscanf(line.c_str(), " x[%d]={%lf,%lf,%lf}", &idx, &a, &b, &c) == 4) {
      REQUIRE(static_cast<size_t>(idx) * 3 == frames.back().xyz.size());
      frames.back().xyz.insert(frames.back().xyz.end(), {a, b, c});
    }
  }
  return frames;
}

/// `gmx check` must accept the file and count every frame; `gmx dump` must print what was
/// written (to its 6 significant digits, on top of the half step of the grid).
void check_with_gmx(const std::string& xtc, int natoms, float precision,
                    const std::vector<TrajectoryFrame>& frames) {
  std::string out;
  const std::string cmd = shell_quote(gmx()) + " -quiet check -f " + shell_quote(xtc);
  REQUIRE_MESSAGE(capture(cmd, out) == 0, "failed: " << cmd << "\n" << out);
  CHECK_MESSAGE(out.find("rror") == std::string::npos, out);
  // gmx check's summary table: "Coords  <frames>  <timestep>".
  const auto at = out.find("\nCoords");
  REQUIRE_MESSAGE(at != std::string::npos, out);
  CHECK_MESSAGE(std::atol(out.c_str() + at + 7) == static_cast<long>(frames.size()), out);

  const auto dump = gmx_dump(xtc);
  REQUIRE(dump.size() == frames.size());
  size_t bad = 0;
  for (size_t f = 0; f < frames.size(); ++f) {
    const DumpFrame& d = dump[f];
    CHECK(d.natoms == natoms);
    CHECK(d.step == frames[f].step);
    CHECK(std::fabs(d.time - frames[f].time) <= 5e-6 * std::fabs(frames[f].time));
    if (natoms > 9) CHECK(d.precision == doctest::Approx(precision));
    for (size_t k = 0; k < 9; ++k)
      CHECK(std::fabs(d.box[k] - frames[f].box[k]) <= 5e-6 * std::fabs(frames[f].box[k]));
    REQUIRE(d.xyz.size() == frames[f].xyz.size());
    for (size_t k = 0; k < d.xyz.size(); ++k) {
      const double want = frames[f].xyz[k];
      const double grid = natoms <= 9 ? 0 : tolerance(want, precision);
      if (!(std::fabs(d.xyz[k] - want) <= grid + 5.0001e-6 * std::fabs(d.xyz[k])) && bad++ < 5) {
        MESSAGE(xtc << " frame " << f << " atom " << k / 3 << ": wrote " << want << ", gmx "
                    << d.xyz[k]);
      }
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("the round-trip tolerance is strict enough to see a one-step error") {
  CHECK(std::fabs(0.2465 - 0.2460) <= tolerance(0.2465, 1000));  // half a step: allowed
  CHECK_FALSE(std::fabs(0.2470 - 0.2460) <= tolerance(0.2470, 1000));
  CHECK_FALSE(std::fabs(999.001 - 999.0) <= tolerance(999.0, 1000));
  CHECK_FALSE(std::fabs(1.000001 - 1.0) <= tolerance(1.0, 1e6));
}

TEST_CASE("XtcWriter round trips 0..20 atoms, plain floats up to 9, compressed from 10") {
  TempDir tmp;
  for (int natoms = 0; natoms <= 20; ++natoms) {
    CAPTURE(natoms);
    std::vector<TrajectoryFrame> frames;
    for (int f = 0; f < 3; ++f) {
      frames.push_back(make_frame(
          uniform(static_cast<size_t>(natoms), -2.5, 5.5, static_cast<unsigned>(100 * natoms + f)),
          1000 * f - 7, 0.125 * f - 1, {3.5f, 0, 0, 0.25f, 4, 0, -0.5f, 0.75f, 5.125f}));
    }
    CHECK(round_trip(tmp, "n" + std::to_string(natoms) + ".xtc", natoms, 1000, frames) == 0);
  }
}

TEST_CASE("XtcWriter round trips large and small spreads, negative values and high precision") {
  TempDir tmp;
  struct Data {
    const char* name;
    std::vector<float> xyz;
    float precision;
  };
  const size_t n = 3000;
  std::vector<float> same(3 * n, -1.2345f);
  std::vector<float> line(3 * n);  // neighbours 0.001..0.02 nm apart: long runs of small deltas
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < 3; ++d)
      line[3 * i + d] = static_cast<float>(0.001 * i * (d + 1) * (1 + (i / 100) % 7));
  std::vector<float> mixed = waterlike(n, 4, 5);  // dense then sparse: the delta range adapts
  const auto sparse = uniform(n / 2, -300, 300, 6);
  std::copy(sparse.begin(), sparse.end(), mixed.begin() + 3 * static_cast<long>(n / 4));
  const std::vector<Data> data = {
      {"water", waterlike(n, 3, 1), 1000},
      {"uniform", uniform(n, 0, 15, 2), 1000},
      {"tiny spread", uniform(n, 1.0, 1.004, 3), 1000},
      {"negative", uniform(n, -9, -1, 4), 1000},
      {"identical atoms", same, 1000},
      {"line", line, 1000},
      {"mixed", mixed, 1000},
      // Product of ranges above 2^64: the triplet is packed in base-256 arithmetic.
      {"wide product", uniform(n, -4000, 4000, 7), 1000},
      // Ranges above 2^24: one bit field per dimension.
      {"very wide", uniform(n, -60000, 60000, 8), 1000},
      {"high precision", uniform(n, 0, 1, 9), 1e6f},
      {"high precision water", waterlike(n, 2, 10), 1e5f},
      {"coarse", uniform(n, -50, 50, 11), 10},
  };
  for (const auto& d : data) {
    CAPTURE(d.name);
    std::vector<TrajectoryFrame> frames;
    for (int f = 0; f < 3; ++f) {
      std::vector<float> xyz = d.xyz;
      for (auto& v : xyz) v += static_cast<float>(0.01 * f);
      frames.push_back(make_frame(xyz, f, 2.0 * f, {}));
    }
    CHECK(round_trip(tmp, "spread.xtc", static_cast<int>(n), d.precision, frames) == 0);
  }
}

TEST_CASE("a frame's size varies with its data and frames of different spreads mix") {
  TempDir tmp;
  std::vector<TrajectoryFrame> frames;
  frames.push_back(make_frame(waterlike(999, 3, 20), 0, 0));
  frames.push_back(make_frame(uniform(999, -1000, 1000, 21), 1, 1));
  frames.push_back(make_frame(uniform(999, 0, 0.01, 22), 2, 2));
  frames.push_back(make_frame(waterlike(999, 3, 23), 3, 3));
  CHECK(round_trip(tmp, "mix.xtc", 999, 1000, frames) == 0);
}

TEST_CASE("GROMACS reads XtcWriter files: gmx check and gmx dump agree with what was written") {
  require_gmx();
  TempDir tmp;
  struct Data {
    const char* name;
    int natoms;
    float precision;
    double lo, hi;
    bool water;
  };
  const std::vector<Data> data = {
      {"five atoms, plain floats", 5, 1000, -3, 3, false},
      {"ten atoms", 10, 1000, -3, 3, false},
      {"water", 3000, 1000, 0, 3, true},
      {"uniform", 2000, 1000, -20, 20, false},
      {"wide product", 1000, 1000, -4000, 4000, false},
      {"very wide", 1000, 1000, -60000, 60000, false},
      {"high precision", 1000, 1e6f, 0, 1, false},
  };
  for (const auto& d : data) {
    CAPTURE(d.name);
    std::vector<TrajectoryFrame> frames;
    for (int f = 0; f < 3; ++f) {
      const auto n = static_cast<size_t>(d.natoms);
      const unsigned seed = static_cast<unsigned>(31 * f + d.natoms);
      frames.push_back(make_frame(d.water ? waterlike(n, d.hi, seed) : uniform(n, d.lo, d.hi, seed),
                                  10 * f, 0.5 * f, {3, 0, 0, 0, 3.5f, 0, 0.5f, 0.25f, 2.75f}));
    }
    const std::string path = tmp.file("gmx.xtc");
    write_xtc(path, d.natoms, d.precision, frames);
    check_with_gmx(path, d.natoms, d.precision, frames);
  }
}

TEST_CASE("rewriting a GROMACS trajectory gives a file of GROMACS's size") {
  TempDir tmp;
  const std::string sample = pairhist::test::data_dir() + "/spce_water.xtc";
  XtcReader reader(sample);
  TrajectoryFrame frame;
  std::vector<TrajectoryFrame> frames;
  while (reader.next(frame)) frames.push_back(frame);
  REQUIRE(frames.size() > 1);
  const float precision = frames.front().precision;
  REQUIRE(precision > 0);
  const std::string copy = tmp.file("copy.xtc");
  write_xtc(copy, reader.natoms(), precision, frames);
  const double ours = static_cast<double>(fs::file_size(copy));
  const double theirs = static_cast<double>(fs::file_size(sample));
  MESSAGE("spce_water.xtc: GROMACS " << theirs << " bytes, XtcWriter " << ours << " bytes, "
                                     << ours / (frames.size() * reader.natoms())
                                     << " bytes per atom");
  CHECK(ours <= 1.1 * theirs);
  CHECK(ours >= 0.9 * theirs);
  // Same integers and the same adaptation rules: the encoder should reproduce GROMACS's bytes.
  std::ifstream a(sample, std::ios::binary), b(copy, std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), {});
  const std::string sb((std::istreambuf_iterator<char>(b)), {});
  CHECK_MESSAGE(sa == sb, "rewritten file differs from the GROMACS original");
  CHECK(check_round_trip(copy, reader.natoms(), precision, frames) == 0);
}

TEST_CASE("the file appears only on close(); an unclosed writer leaves nothing") {
  TempDir tmp;
  const std::string path = tmp.file("atomic.xtc");
  const auto xyz = uniform(50, 0, 2, 40);
  {
    XtcWriter w(path, 50, 1000);
    w.write(make_frame(xyz, 0, 0));
    CHECK_FALSE(fs::exists(path));
    CHECK(tmp.entries() == 1);  // the hidden temporary
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(tmp.entries() == 0);

  {
    std::ofstream old(path);
    old << "previous contents";
  }
  {
    XtcWriter w(path, 50, 1000);
    w.write(make_frame(xyz, 0, 0));
    CHECK(fs::file_size(path) == 17);  // the old file stays until the new one is complete
    w.close();
    w.close();  // idempotent
    CHECK_THROWS_AS(w.write(make_frame(xyz, 1, 1)), OutputError);
  }
  CHECK(tmp.entries() == 1);
  CHECK(check_round_trip(path, 50, 1000, {make_frame(xyz, 0, 0)}) == 0);
}

TEST_CASE("bad frames throw OutputError, are not written, and the writer goes on") {
  TempDir tmp;
  const std::string path = tmp.file("errors.xtc");
  XtcWriter w(path, 20, 1000);
  const auto good = make_frame(uniform(20, 0, 3, 50), 0, 0);
  w.write(good);
  auto nan = good;
  nan.xyz[17] = std::nanf("");
  CHECK_THROWS_AS(w.write(nan), OutputError);
  auto huge = good;
  huge.xyz[5] = 3e6f;  // 3e9 steps: beyond 32 bits
  CHECK_THROWS_AS(w.write(huge), OutputError);
  auto span = good;
  span.xyz[0] = -2e6f;
  span.xyz[3] = 2e6f;  // each fits, the range does not
  CHECK_THROWS_AS(w.write(span), OutputError);
  auto short_frame = good;
  short_frame.xyz.pop_back();
  CHECK_THROWS_AS(w.write(short_frame), OutputError);
  auto big_step = good;
  big_step.step = int64_t{1} << 40;
  CHECK_THROWS_AS(w.write(big_step), OutputError);
  auto bad_box = good;
  bad_box.box[4] = INFINITY;
  CHECK_THROWS_AS(w.write(bad_box), OutputError);
  try {
    w.write(nan);
  } catch (const OutputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find("frame 1") != std::string::npos);
    CHECK(msg.find("atom 5") != std::string::npos);
  }
  auto second = good;
  second.step = 1;
  w.write(second);
  w.close();
  CHECK(check_round_trip(path, 20, 1000, {good, second}) == 0);

  CHECK_THROWS_AS(XtcWriter(tmp.file("p.xtc"), 10, 0), UsageError);
  CHECK_THROWS_AS(XtcWriter(tmp.file("p.xtc"), 10, NAN), UsageError);
  CHECK_THROWS_AS(XtcWriter(tmp.file("p.xtc"), -1), UsageError);
  CHECK_THROWS_AS(XtcWriter(tmp.file("no-such-dir/p.xtc"), 10), OutputError);
}

TEST_CASE("synth writes a case that reads back as the case's coordinates") {
  TempDir tmp;
  SUBCASE("K2: one species, periodic unit cube, nm") {
    pairhist::SynthOptions o;
    o.case_name = "K2";
    o.n = 40;
    o.frames = 3;
    o.output = tmp.file("out");
    const auto r = pairhist::synth_case(o);
    CHECK(r.xtc_path == tmp.file("out/K2.xtc"));
    CHECK(r.gro_path == tmp.file("out/K2.gro"));
    CHECK(r.natoms == 40);
    CHECK(r.frames == 3);
    CHECK(r.precision >= 1e5);  // a step well below a bin of sqrt(3)/2/10000 nm
    CHECK(r.species == std::vector<std::string>{"S0"});

    const auto c = pairhist::standard_case("K2", 40);
    XtcReader reader(r.xtc_path);
    REQUIRE(reader.natoms() == 40);
    TrajectoryFrame f;
    size_t bad = 0;
    for (int t = 0; t < 3; ++t) {
      REQUIRE(reader.next(f));
      CHECK(f.step == t);
      CHECK(f.time == t);
      CHECK(f.box == std::array<float, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1});
      const auto want = pairhist::case_coordinates(c, t)[0];
      REQUIRE(f.xyz.size() == want.size());
      for (size_t k = 0; k < want.size(); ++k)
        bad += std::fabs(f.xyz[k] - want[k]) > tolerance(want[k], r.precision);
    }
    CHECK_FALSE(reader.next(f));
    CHECK(bad == 0);

    const auto top = pairhist::io::read_gro(r.gro_path);
    CHECK(top.natoms() == 40);
    CHECK(top.atom_names == std::vector<std::string>(40, "S0"));
    CHECK(top.box == std::array<float, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1});

    const std::vector<std::string> expect = {"run",       r.xtc_path, "--top", r.gro_path,
                                             "--species", "S0=S0",    "--rmax"};
    REQUIRE(r.run_args.size() > expect.size());
    CHECK(std::equal(expect.begin(), expect.end(), r.run_args.begin()));
    // `run` stops at the minimum-image limit of the unit cube; the note says so.
    CHECK(c.r_max > 0.5);
    CHECK(std::stod(r.run_args[7]) == 0.5);
    CHECK(r.note.find("minimum-image") != std::string::npos);
    CHECK(r.run_command.find("--nbins 10000") != std::string::npos);
    CHECK(r.run_command.find("--units") == std::string::npos);
  }
  SUBCASE("K3: the triclinic box reaches the GRO and every frame") {
    pairhist::SynthOptions o;
    o.case_name = "K3";
    o.n = 12;
    o.frames = 2;
    o.output = tmp.file("k3");
    const auto r = pairhist::synth_case(o);
    const std::array<float, 9> box{1, 0, 0, 0, 1, 0, 0.5f, 0.5f, 0.70710678f};
    XtcReader reader(r.xtc_path);
    TrajectoryFrame f;
    while (reader.next(f)) CHECK(f.box == box);
    CHECK(reader.frames_read() == 2);
    const auto top = pairhist::io::read_gro(r.gro_path);
    for (size_t k = 0; k < 9; ++k) CHECK(top.box[k] == doctest::Approx(box[k]).epsilon(1e-5));
  }
  SUBCASE("F1: nine species, Angstrom case written in nm, no box") {
    pairhist::SynthOptions o;
    o.case_name = "F1";
    o.n = 3000;
    o.frames = 2;
    o.output = tmp.file("f1");
    const auto r = pairhist::synth_case(o);
    const auto c = pairhist::standard_case("F1", 3000);
    REQUIRE(r.species.size() == 9);
    const auto top = pairhist::io::read_gro(r.gro_path);
    REQUIRE(top.natoms() == r.natoms);
    size_t atom = 0;
    for (size_t s = 0; s < 9; ++s) {
      for (int64_t k = 0; k < c.species_sizes[s]; ++k, ++atom) {
        REQUIRE(top.atom_names[atom] == "S" + std::to_string(s));
        CHECK(top.residue_names[atom] == "S" + std::to_string(s));
      }
    }
    CHECK(top.box == std::array<float, 9>{});
    XtcReader reader(r.xtc_path);
    TrajectoryFrame f;
    size_t bad = 0;
    for (int t = 0; t < 2; ++t) {
      REQUIRE(reader.next(f));
      CHECK(f.box == std::array<float, 9>{});
      const auto species = pairhist::case_coordinates(c, t);
      size_t at = 0;
      for (const auto& xyz : species)
        for (float v : xyz) {
          const double want = static_cast<float>(v * 0.1);
          bad += std::fabs(f.xyz[at++] - want) > tolerance(want, r.precision);
        }
      CHECK(at == f.xyz.size());
    }
    CHECK(bad == 0);
    CHECK(r.run_command.find("--species S8=S8 --rmax 300 --nbins 8000 --units angstrom") !=
          std::string::npos);
    CHECK(r.note.empty());
  }
  SUBCASE("unknown case and missing output are usage errors, and nothing is left behind") {
    pairhist::SynthOptions o;
    o.case_name = "K9";
    o.output = tmp.file("bad");
    CHECK_THROWS_AS(pairhist::synth_case(o), UsageError);
    o.case_name = "K1";
    o.output.clear();
    CHECK_THROWS_AS(pairhist::synth_case(o), UsageError);
    CHECK(tmp.entries() == 0);
  }
}
