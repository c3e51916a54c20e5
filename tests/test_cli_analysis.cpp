// `pairhist run` analysis flags end to end on the water sample: shared atoms, --exclude residue,
// --index with `group`, --norm. Checked with exact identities between runs, not tolerances.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <string>
#include <vector>

#include "tests/cli_runner.hpp"

using pairhist::test::CliResult;
using pairhist::test::CliScratch;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kRun = "run " + kData + "/spce_water.xtc --top " + kData +
                         "/spce_water.gro --rmax 0.3 --nbins 30 --last 4 ";  // 5 frames
constexpr uint64_t kFrames = 5;

std::vector<uint64_t> counts(const std::string& h5, const std::string& pair) {
  std::vector<uint64_t> v(30, 0);
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, ("/4/histograms/" + pair).c_str(), H5P_DEFAULT);
  REQUIRE(d >= 0);
  REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t c : v) s += c;
  return s;
}

CliResult run_ok(const CliScratch& s, const std::string& args) {
  const CliResult r = s.run(kRun + args);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return r;
}

}  // namespace

TEST_CASE("analysis flags on the water sample") {
  const CliScratch s("cli-analysis");
  const std::string species = "--species O=OW --species H=HW1,HW2 ";
  run_ok(s, species + "-o " + s.file("plain"));
  const CliResult excl = run_ok(s, species + "--exclude residue --norm none -o " + s.file("excl"));
  const std::string plain_h5 = s.file("plain/pairhist.h5"), excl_h5 = s.file("excl/pairhist.h5");

  SUBCASE("--exclude residue removes exactly the intramolecular pairs") {
    // SPC/E is rigid: both O-H bonds (0.1 nm) and the H-H distance (0.163 nm) lie below r_max.
    CHECK(sum(counts(plain_h5, "O,H")) - sum(counts(excl_h5, "O,H")) == 2 * 884 * kFrames);
    CHECK(sum(counts(plain_h5, "H,H")) - sum(counts(excl_h5, "H,H")) == 884 * kFrames);
    CHECK(counts(plain_h5, "O,O") == counts(excl_h5, "O,O"));
    // No O-H pair of different molecules comes within 0.12 nm.
    const auto oh = counts(excl_h5, "O,H");
    CHECK(sum(std::vector<uint64_t>(oh.begin(), oh.begin() + 12)) == 0);
    CHECK(excl.out.find("norm none, exclude residue (13260 excluded pairs)") != std::string::npos);
    const std::string csv = CliScratch::slurp(s.file("excl/rdf.csv"));
    CHECK(csv.find(",number_O-H,") != std::string::npos);
    CHECK(csv.find("# excluded pairs: residue; O-H 1768 per frame; H-H 884 per frame") !=
          std::string::npos);
  }

  SUBCASE("a species sharing atoms: ordered pairs without self pairs") {
    // W = every atom, O = the oxygens: (i in W, j in O, i != j) is every O-O pair twice and
    // every H-O pair once, bin for bin.
    const CliResult r =
        run_ok(s, "--species W=all --species O=OW --verbose -o " + s.file("shared"));
    // The same pairs examined one by one (auto counts this short r_max with cell lists).
    const CliResult all = run_ok(
        s, "--species W=all --species O=OW --algorithm all-pairs --verbose -o " +
               s.file("shared-all"));
    CHECK(counts(s.file("shared-all/pairhist.h5"), "W,O") ==
          counts(s.file("shared/pairhist.h5"), "W,O"));
    CHECK(r.out.find("W-O cell-list") != std::string::npos);
    const auto wo = counts(s.file("shared/pairhist.h5"), "W,O");
    const auto oo = counts(plain_h5, "O,O"), oh = counts(plain_h5, "O,H");
    for (size_t k = 0; k < wo.size(); ++k) CHECK(wo[k] == 2 * oo[k] + oh[k]);
    CHECK(counts(s.file("shared/pairhist.h5"), "O,O") == oo);
    // Examined: W-W 2652*2651/2, W-O 2652*884 - 884, O-O 884*883/2, per frame.
    const uint64_t per_frame = 2652ull * 2651 / 2 + 2652ull * 884 - 884 + 884ull * 883 / 2;
    CHECK(all.out.find("pairs         : " + std::to_string(per_frame * kFrames) + " examined") !=
          std::string::npos);
  }

  SUBCASE("group NAME from an index file made by gmx make_ndx") {
    run_ok(s, "--index " + kData + "/fixtures/spce_water.ndx --species 'O=group OW' -o " +
                  s.file("group"));
    CHECK(counts(s.file("group/pairhist.h5"), "O,O") == counts(plain_h5, "O,O"));
  }
}
