// `pairhist synth --case W1|W1-T`: the bundled liquid samples replicated along their lattice
// vectors, read back with our readers against the sample itself, and histogrammed by `run`.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "tests/h5_counts.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::io::TrajectoryFrame;
using pairhist::test::capture;
using pairhist::test::contains;
using pairhist::test::TempDir;

const std::string kBin = pairhist::test::pairhist_binary();

std::vector<TrajectoryFrame> read_frames(const std::string& path, int limit = 1 << 30) {
  pairhist::io::XtcReader reader(path);
  std::vector<TrajectoryFrame> frames;
  TrajectoryFrame f;
  while (static_cast<int>(frames.size()) < limit && reader.next(f)) frames.push_back(f);
  return frames;
}

std::string synth(const TempDir& d, const std::string& args) {
  std::string out;
  const int rc = capture(kBin + " synth " + args + " -q -o " + d.file("w1"), out);
  INFO(out);
  REQUIRE(rc == 0);
  return out;
}

/// Every output frame t is sample frame t replicated: box n times the sample's, image (i, j, k)
/// of atom a at x_a + i a + j b + k c, to within the XTC step (both files are rounded to 1/1000
/// nm).
void check_replication(const std::string& sample_xtc, const std::string& out_xtc, int n,
                       int frames) {
  const auto sample = read_frames(sample_xtc, frames);
  const auto out = read_frames(out_xtc);
  REQUIRE(out.size() == static_cast<size_t>(frames));
  const size_t natoms = sample[0].xyz.size() / 3;
  const double tol = 0.5e-3 + 2e-5;  // half a step, plus float rounding at a few nm
  for (int t = 0; t < frames; ++t) {
    const auto& s = sample[static_cast<size_t>(t)];
    const auto& o = out[static_cast<size_t>(t)];
    CHECK(o.step == s.step);
    CHECK(o.time == doctest::Approx(s.time));
    REQUIRE(o.xyz.size() == natoms * 3 * n * n * n);
    for (size_t k = 0; k < 9; ++k) CHECK(o.box[k] == doctest::Approx(n * s.box[k]).epsilon(1e-6));
    double worst = 0;
    size_t at = 0;
    for (int kc = 0; kc < n; ++kc)
      for (int jb = 0; jb < n; ++jb)
        for (int ia = 0; ia < n; ++ia)
          for (size_t a = 0; a < natoms; ++a, ++at)
            for (size_t d = 0; d < 3; ++d) {
              const double want = double(s.xyz[3 * a + d]) + ia * double(s.box[d]) +
                                  jb * double(s.box[3 + d]) + kc * double(s.box[6 + d]);
              worst = std::max(worst, std::abs(double(o.xyz[3 * at + d]) - want));
            }
    INFO("frame " << t);
    CHECK(worst <= tol);
  }
}

}  // namespace

TEST_CASE("synth W1 --replicas 2: eight lattice images of every sample frame, run command") {
  const TempDir d("w1");
  const std::string out = synth(d, "--case W1 --replicas 2 --frames 3");
  CHECK(contains(out, "--species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240"));
  const std::string data = pairhist::test::data_dir();
  check_replication(data + "/spce_water.xtc", d.file("w1/W1.xtc"), 2, 3);

  const auto sample = pairhist::io::read_gro(data + "/spce_water.gro");
  const auto top = pairhist::io::read_gro(d.file("w1/W1.gro"));
  REQUIRE(top.natoms() == 8 * 2652);
  for (size_t a = 0; a < static_cast<size_t>(top.natoms()); ++a) {
    CHECK(top.atom_names[a] == sample.atom_names[a % 2652]);
    CHECK(top.residue_names[a] == "SOL");
    // Molecules stay whole and are numbered on: 884 per replica.
    CHECK(top.residue_numbers[a] == static_cast<int>(a / 3 + 1));
    if (top.residue_numbers[a] != static_cast<int>(a / 3 + 1)) break;
  }
  // The GRO holds frame 0 (the XTC's), at the GRO's 3 decimals.
  const auto frame0 = read_frames(d.file("w1/W1.xtc"), 1);
  double worst = 0;
  for (size_t k = 0; k < top.xyz.size(); ++k)
    worst = std::max(worst, std::abs(double(top.xyz[k]) - frame0[0].xyz[k]));
  CHECK(worst <= 5.1e-4);
  CHECK(top.box[0] == doctest::Approx(frame0[0].box[0]).epsilon(1e-5));

  SUBCASE("more frames than the sample's cycle through them, time going on") {
    const std::string more = synth(d, "--case W1 --replicas 1 --frames 103");
    const auto frames = read_frames(d.file("w1/W1.xtc"));
    REQUIRE(frames.size() == 103);
    CHECK(frames[101].xyz == frames[0].xyz);
    CHECK(frames[102].xyz == frames[1].xyz);
    CHECK(frames[101].time > frames[100].time);
    CHECK(frames[102].step - frames[101].step == frames[1].step - frames[0].step);
  }
}

TEST_CASE("synth W1 --replicas 4: 169,728 atoms, GRO numbers wrapped at 100,000") {
  const TempDir d("w1-4");
  synth(d, "--case W1 --replicas 4 --frames 1");
  const auto frames = read_frames(d.file("w1/W1.xtc"));
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].xyz.size() == 169728u * 3);
  const auto top = pairhist::io::read_gro(d.file("w1/W1.gro"));
  CHECK(top.natoms() == 169728);
  CHECK(top.atom_names.back() == "HW2");
  // Lines are title, count, atoms: atom k (1-based) is line k + 2.
  std::ifstream in(d.file("w1/W1.gro"));
  std::string line;
  std::vector<std::string> lines;
  for (int k = 1; std::getline(in, line) && k <= 100003; ++k)
    if (k >= 100001) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].substr(15, 5) == "99999");
  CHECK(lines[1].substr(15, 5) == "    0");  // atom 100000
  CHECK(lines[2].substr(15, 5) == "    1");
  // Atom 100000 is atom 1875 (0-based) of replica 37, in its residue 626: 37 * 884 + 626.
  CHECK(lines[1].substr(0, 5) == "33334");
}

TEST_CASE("synth W1-T: the NaCl dodecahedron replicated along its triclinic lattice") {
  const TempDir d("w1t");
  const std::string out = synth(d, "--case W1-T --replicas 2 --frames 2");
  CHECK(contains(out, "W1-T.xtc"));
  const std::string data = pairhist::test::data_dir();
  check_replication(data + "/nacl_dodecahedron.xtc", d.file("w1/W1-T.xtc"), 2, 2);
  const auto top = pairhist::io::read_gro(d.file("w1/W1-T.gro"));
  REQUIRE(top.natoms() == 8 * 2200);
  int na = 0, cl = 0;
  for (const auto& name : top.atom_names) {
    na += name == "NA";
    cl += name == "CL";
  }
  CHECK(na == 8 * 14);
  CHECK(cl == 8 * 14);
  CHECK(top.box[7] != 0);  // still triclinic, in GROMACS's form
  CHECK(top.box[8] == doctest::Approx(2 * 2.26274).epsilon(1e-5));
}

TEST_CASE("pairhist run on W1: O-O pairs within r_max are n^3 times the sample's, per frame") {
  const TempDir d("w1-run");
  synth(d, "--case W1 --replicas 2 --frames 3");
  const std::string data = pairhist::test::data_dir();
  const std::string common =
      " --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 -q --interval 1 "
      "--ncpu 2 -o ";
  std::string log;
  INFO(log);
  REQUIRE(capture(kBin + " run " + data + "/spce_water.xtc --top " + data +
                      "/spce_water.gro --last 2" + common + d.file("sample"),
                  log) == 0);
  REQUIRE(capture(kBin + " run " + d.file("w1/W1.xtc") + " --top " + d.file("w1/W1.gro") + common +
                      d.file("w1run"),
                  log) == 0);
  for (int t = 0; t < 3; ++t) {
    const std::string set = "/" + std::to_string(t) + "/histograms/O,O";
    uint64_t sample = 0, replicated = 0;
    for (uint64_t c : pairhist::test::h5_counts(d.file("sample/pairhist.h5"), set)) sample += c;
    for (uint64_t c : pairhist::test::h5_counts(d.file("w1run/pairhist.h5"), set)) replicated += c;
    INFO("frame " << t << ": sample " << sample << ", replicated " << replicated);
    // Equal up to pairs that the re-rounded coordinates move across r_max.
    CHECK(double(replicated) == doctest::Approx(8.0 * double(sample)).epsilon(0.001));
  }
}

TEST_CASE("bench W1 at one replica counts exactly what run counts on the sample") {
  const TempDir d("w1-bench");
  const std::string data = pairhist::test::data_dir();
  std::string log;
  INFO(log);
  REQUIRE(capture(kBin + " run " + data + "/spce_water.xtc --top " + data +
                      "/spce_water.gro --last 1 --species O=OW --species H=HW1,HW2 --rmax 1.2 "
                      "--nbins 240 -q --ncpu 2 -o " +
                      d.file("run"),
                  log) == 0);
  uint64_t counted = 0;
  for (const char* pair : {"O,O", "O,H", "H,H"})
    for (uint64_t c :
         pairhist::test::h5_counts(d.file("run/pairhist.h5"), std::string("/1/histograms/") + pair))
      counted += c;
  REQUIRE(capture(kBin + " bench --case W1 --n 1 --frames 2 --repeats 1 --warmup 0 --threads 2 " +
                      "--json 2>/dev/null",
                  log) == 0);
  const auto json = nlohmann::json::parse(log);
  CHECK(json["n"] == 2652);
  CHECK(json["species"] == nlohmann::json::array({884, 1768}));
  CHECK(json["replicas"] == 1);
  CHECK(json["counted_pairs"].get<uint64_t>() == counted);
}

TEST_CASE("synth W1: one-line errors for bad options and missing samples") {
  const TempDir d("w1-err");
  const struct {
    std::string args, says;
  } cases[] = {
      {"--case W1 --n 100000 --replicas 2", "not both"},
      {"--case W1 --replicas 2000", "more than one frame can hold"},
      {"--case W1 --sample " + d.file("missing.xtc"), "missing"},
      {"--case K1 --replicas 2", "W1 and W1-T only"},
      {"--case W2", "unknown case"},
  };
  for (const auto& c : cases) {
    std::string out;
    INFO(c.args);
    CHECK(capture(kBin + " synth " + c.args + " -q -o " + d.file("o"), out) != 0);
    CHECK(contains(out, c.says));
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  }
  std::string out;
  CHECK(capture("PAIRHIST_DATA_DIR=" + d.file("nowhere") + " " + kBin +
                    " synth --case W1 --replicas 1 -q -o " + d.file("o"),
                out) != 0);
  CHECK(contains(out, "PAIRHIST_DATA_DIR"));
}
