// `pairhist run` on H5MD and CADISHI inputs, `--config` (pairhist's keys and CADISHI's
// histograms.yaml), and `pairhist convert` round trips, end to end through the binary.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_util.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::test::contains;
using pairhist::test::fixture;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kXtc = kData + "/spce_water.xtc";
const std::string kGro = kData + "/spce_water.gro";

using Result = pairhist::test::CommandResult;
using pairhist::test::pairhist_cmd;

/// Every histogram of an output file: "<block>/<A,B>" -> counts.
std::map<std::string, std::vector<uint64_t>> all_counts(const std::string& file) {
  std::map<std::string, std::vector<uint64_t>> out;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE_MESSAGE(f >= 0, "cannot open " << file);
  for (const auto& block : pairhist::io::h5_member_names(f)) {
    if (block == "pairhist") continue;
    const hid_t g = H5Gopen2(f, (block + "/histograms").c_str(), H5P_DEFAULT);
    REQUIRE(g >= 0);
    for (const auto& pair : pairhist::io::h5_member_names(g)) {
      if (pair == "radii") continue;
      const hid_t d = H5Dopen2(g, pair.c_str(), H5P_DEFAULT);
      const hid_t space = H5Dget_space(d);
      std::vector<uint64_t> v(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
      REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
      H5Sclose(space);
      H5Dclose(d);
      out[block + "/" + pair] = v;
    }
    H5Gclose(g);
  }
  H5Fclose(f);
  return out;
}

uint64_t total(const std::map<std::string, std::vector<uint64_t>>& counts) {
  uint64_t t = 0;
  for (const auto& [k, v] : counts)
    for (uint64_t c : v) t += c;
  return t;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  REQUIRE(out.good());
}

bool one_line(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n') == 1;
}

std::vector<std::vector<float>> read_xtc(const std::string& path) {
  pairhist::io::XtcReader r(path);
  pairhist::io::TrajectoryFrame f;
  std::vector<std::vector<float>> frames;
  while (r.next(f)) frames.push_back(f.xyz);
  return frames;
}

}  // namespace

TEST_CASE("CADISHI histograms.yaml + CADISHI HDF5 input = the same run given as flags") {
  pairhist::test::TempDir tmp("cli-cadishi");
  const std::string input = fixture("cadishi_triclinic.h5");
  const std::string yaml = tmp.file("histograms.yaml");
  // CADISHI's own template, values adapted: r_max 8 A, dr 0.05 -> 160 bins, sum 2, frames 1..3.
  write_text(yaml,
             "general:\n  redirect_output: true\n  verbose: true\n  numa_aware: false\n"
             "histogram:\n  r_max: 8\n  dr: 0.05\n  sum: 2\n"
             "cpu:\n  module: pydh\n  precision: single\n  workers: -1\n  threads: 1\n"
             "  check_input: true\n"
             "gpu:\n  module: cudh\n  precision: single\n  workers: 0\n  check_input: true\n"
             "input:\n  file: " +
                 input +
                 "\n  first: null\n  last: null\n  step: 1\n"
                 "  periodic_box: null\n"
                 "output:\n  directory: " +
                 tmp.file("from-yaml") +
                 "\n  file: histograms.h5\n"
                 "  compression: lzf\n  write_h5: true\n  write_npx: false\n  write_npy: false\n"
                 "  write_xyz: false\n  flush_interval: 100\n");
  const Result a = pairhist_cmd("run --config " + yaml + " --ncpu 1 -q");
  REQUIRE_MESSAGE(a.status == 0, a.output);
  CHECK(contains(a.output, "warning: " + yaml + ": ignoring CADISHI settings"));
  CHECK(contains(a.output, "cpu.workers"));
  CHECK(one_line(a.output));

  const Result b = pairhist_cmd("run " + input + " --rmax 8 --units angstrom --nbins 160 " +
                                "--interval 2 --ncpu 1 -q -o " + tmp.file("from-flags"));
  REQUIRE_MESSAGE(b.status == 0, b.output);
  const auto ca = all_counts(tmp.file("from-yaml") + "/pairhist.h5");
  const auto cb = all_counts(tmp.file("from-flags") + "/pairhist.h5");
  CHECK(ca == cb);
  // Blocks of 2 frames, the last partial; species C, N, O -> 6 pairs each.
  CHECK(ca.size() == 12);
  CHECK(ca.count("1/C,C") == 1);
  CHECK(ca.count("2/N,O") == 1);
  CHECK(ca.at("1/C,C").size() == 160);
  CHECK(total(ca) > 0);

  // Explicit species (atom names = species names) give the same counts.
  const Result c = pairhist_cmd("run " + input + " --species C=C --species N=N --species O=O " +
                                "--rmax 8 --units angstrom --nbins 160 --interval 2 --ncpu 1 -q " +
                                "-o " + tmp.file("species"));
  REQUIRE_MESSAGE(c.status == 0, c.output);
  CHECK(all_counts(tmp.file("species") + "/pairhist.h5") == ca);

  // Flags win over the file; CADISHI's first/last are 1-based.
  write_text(tmp.file("subset.yaml"),
             "histogram:\n  r_max: 8\n  dr: 0.05\n  sum: 10\n"
             "input:\n  file: " +
                 input +
                 "\n  first: 2\n  last: 3\n"
                 "output:\n  directory: " +
                 tmp.file("subset") + "\n");
  const Result d = pairhist_cmd("run --config " + tmp.file("subset.yaml") + " --nbins 80 --ncpu 1");
  REQUIRE_MESSAGE(d.status == 0, d.output);
  CHECK(contains(d.output, "frames        : 2"));
  CHECK(contains(d.output, "80 bins up to 8 angstrom"));
}

TEST_CASE("--config with pairhist's own keys equals the flags; bad configs are one-line errors") {
  pairhist::test::TempDir tmp("cli-config");
  const std::string yaml = tmp.file("run.yaml");
  write_text(yaml, "trajectory: " + kXtc + "\ntop: " + kGro +
                       "\nspecies:\n  O: OW\n  H: HW1,HW2\nrmax: 0.9\nnbins: 90\nlast: 4\n"
                       "output: " +
                       tmp.file("a") + "\nquiet: true\nncpu: 1\n");
  const Result a = pairhist_cmd("run --config " + yaml);
  REQUIRE_MESSAGE(a.status == 0, a.output);
  CHECK(a.output.empty());
  const Result b = pairhist_cmd("run " + kXtc + " --top " + kGro +
                                " --species O=OW --species H=HW1,HW2 --rmax 0.9 --nbins 90 " +
                                "--last 4 --ncpu 1 -q -o " + tmp.file("b"));
  REQUIRE_MESSAGE(b.status == 0, b.output);
  const auto ca = all_counts(tmp.file("a") + "/pairhist.h5");
  CHECK(ca == all_counts(tmp.file("b") + "/pairhist.h5"));
  CHECK(ca.count("4/O,O") == 1);

  struct Bad {
    std::string text, expect;
  };
  const std::vector<Bad> bad = {
      {"rmax: 1\nbogus: 3\n", "unknown key 'bogus'"},
      {"rmax: [1, 2\n", "YAML syntax error"},
      {"histogram:\n  r_max: 10\n  dr: 0.3\n", "histogram.dr: dr 0.3 does not divide r_max 10"},
      {"histogram:\n  r_max: 10\n  bins: 3\n", "unknown key 'histogram.bins'"},
      {"histogram:\n  r_max: 10\nplot:\n  x: 1\n", "unknown section 'plot'"},
      {"histogram:\n  r_max: -1\n", "histogram.r_max: must be positive"},
      {"histogram:\n  r_max: 10\ninput:\n  periodic_box: []\n", "input.periodic_box"},
      {"histogram:\n  r_max: ten\n", "histogram.r_max: expected a number"},
      {"step: many\n", "step"},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    CAPTURE(bad[i].text);
    const std::string file = tmp.file("bad" + std::to_string(i) + ".yaml");
    write_text(file, bad[i].text);
    const Result r = pairhist_cmd("run " + kXtc + " --top " + kGro +
                                  " --species O=OW --rmax 1 --nbins 10 --config " + file + " -o " +
                                  tmp.file("never"));
    CHECK(r.status == 2);
    CHECK(contains(r.output, file + ": "));
    CHECK(contains(r.output, bad[i].expect));
    CHECK(one_line(r.output));
    CHECK_FALSE(fs::exists(tmp.file("never")));
  }
  const Result missing = pairhist_cmd("run --config " + tmp.file("nope.yaml"));
  CHECK(missing.status == 2);
  CHECK(contains(missing.output, "nope.yaml: cannot read the config file"));
  const Result no_top = pairhist_cmd("run " + kXtc + " --species O=OW --rmax 1 --nbins 10");
  CHECK(no_top.status == 2);
  CHECK(contains(no_top.output, "carries no atom names: give --top"));
}

TEST_CASE("convert: XTC -> CADISHI HDF5 -> XTC keeps coordinates, and runs agree") {
  pairhist::test::TempDir tmp("cli-convert");
  const std::string h5 = tmp.file("water.h5"), back = tmp.file("back.xtc");
  const Result c1 = pairhist_cmd("convert " + kXtc + " " + h5 + " --top " + kGro +
                                 " --species O=OW --species H=HW1,HW2 --last 5");
  REQUIRE_MESSAGE(c1.status == 0, c1.output);
  CHECK(contains(c1.output, "6 frames, 2652 atoms, species O=884 H=1768"));

  // Counts on the XTC and on the CADISHI file (no --top: species from the file) agree exactly.
  const Result r1 = pairhist_cmd("run " + kXtc + " --top " + kGro +
                                 " --species H=HW1,HW2 --species O=OW --rmax 1.0 --nbins 100 " +
                                 "--last 5 --ncpu 1 -q -o " + tmp.file("xtc-run"));
  REQUIRE_MESSAGE(r1.status == 0, r1.output);
  const Result r2 = pairhist_cmd("run " + h5 + " --rmax 10 --units angstrom --nbins 100 " +
                                 "--ncpu 1 -q -o " + tmp.file("h5-run"));
  REQUIRE_MESSAGE(r2.status == 0, r2.output);
  const auto xtc_counts = all_counts(tmp.file("xtc-run") + "/pairhist.h5");
  auto h5_counts = all_counts(tmp.file("h5-run") + "/pairhist.h5");
  REQUIRE(xtc_counts.size() == 3);
  // Block names: the last frame index (5 for the XTC run; the same frame is index 5 in the h5).
  CHECK(h5_counts == xtc_counts);

  // And back to XTC: H atoms (CADISHI sorts species) then O atoms, each in the original order.
  const Result c2 = pairhist_cmd("convert " + h5 + " " + back);
  REQUIRE_MESSAGE(c2.status == 0, c2.output);
  CHECK(fs::exists(tmp.file("back.gro")));
  const auto original = read_xtc(kXtc), round = read_xtc(back);
  REQUIRE(round.size() == 6);
  double worst = 0;
  for (size_t f = 0; f < round.size(); ++f) {
    std::vector<float> expect;
    for (int pass = 0; pass < 2; ++pass)  // pass 0: H (atoms 1, 2 of each water), 1: O
      for (size_t a = 0; a < original[f].size() / 3; ++a)
        if ((a % 3 == 0) == (pass == 1))
          for (size_t d = 0; d < 3; ++d) expect.push_back(original[f][3 * a + d]);
    REQUIRE(expect.size() == round[f].size());
    for (size_t i = 0; i < expect.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::fabs(expect[i] - round[f][i])));
  }
  CHECK(worst == 0);  // the same XTC integers: no loss at all
  const Result r3 = pairhist_cmd("run " + back + " --top " + tmp.file("back.gro") +
                                 " --species H=H --species O=O --rmax 1.0 --nbins 100 --ncpu 1 -q" +
                                 " -o " + tmp.file("back-run"));
  REQUIRE_MESSAGE(r3.status == 0, r3.output);
  CHECK(all_counts(tmp.file("back-run") + "/pairhist.h5") == xtc_counts);

  // H5MD -> XTC without a topology: all atoms, in order.
  const std::string h5md_xtc = tmp.file("h5md.xtc");
  const Result c3 = pairhist_cmd("convert " + fixture("mda_h5md_triclinic.h5md") + " " + h5md_xtc);
  REQUIRE_MESSAGE(c3.status == 0, c3.output);
  const auto ref = pairhist::test::read_reference(fixture("mda_h5md_triclinic.ref.txt"));
  const auto got = read_xtc(h5md_xtc);
  REQUIRE(got.size() == ref.size());
  for (size_t f = 0; f < got.size(); ++f)
    for (size_t i = 0; i < got[f].size(); ++i)
      CHECK(std::fabs(got[f][i] - ref[f].xyz[i] * 0.1) <= 0.5e-3 + 1e-6);

  // Errors: CADISHI output needs species; unknown output type; nothing left behind.
  const Result e1 = pairhist_cmd("convert " + kXtc + " " + tmp.file("x.h5"));
  CHECK(e1.status == 2);
  CHECK(contains(e1.output, "give --top and --species"));
  const Result e2 = pairhist_cmd("convert " + kXtc + " " + tmp.file("x.pdb"));
  CHECK(e2.status == 2);
  CHECK(contains(e2.output, "unknown format"));
  const Result e3 = pairhist_cmd("convert " + kXtc + " " + tmp.file("y.h5") + " --top " + kGro +
                                 " --species O=OW --first 500");
  CHECK(e3.status == 1);
  CHECK(contains(e3.output, "no frame selected"));
  CHECK_FALSE(fs::exists(tmp.file("x.h5")));
  CHECK_FALSE(fs::exists(tmp.file("y.h5")));
}
