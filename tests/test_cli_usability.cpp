// `pairhist run` for people (issue 25): --pairs, the defaults of --rmax and --bin, usage errors
// (all at once, exit 2; `pairhist rdf`'s too), -o refusals, and the layout of rdf.csv and cn.xvg.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/test_support.hpp"

using pairhist::test::CliResult;
using pairhist::test::CliScratch;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kWater =
    "run " + kData + "/spce_water.xtc --top " + kData + "/spce_water.gro --last 4 ";

/// The counts of `pair` ("O,H") in the last block of a run of 5 frames, or empty if absent.
std::vector<uint64_t> counts(const std::string& h5, const std::string& pair, size_t bins) {
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const std::string path = "/4/histograms/" + pair;
  std::vector<uint64_t> v;
  if (H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0) {
    v.assign(bins, 0);
    const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
    H5Dclose(d);
  }
  H5Fclose(f);
  return v;
}

int error_lines(const std::string& err) {
  int n = 0;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) n += line.rfind("pairhist: error: ", 0) == 0;
  return n;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

TEST_CASE("--pairs counts only the named pairs, bit-identical to a run of every pair") {
  CliScratch s("pairs");
  const std::string common =
      kWater + "--species O=OW --species H=HW1,HW2 --rmax 0.6 --nbins 60 --exclude residue ";
  const CliResult all = s.run(common + "-o " + s.file("all"));
  const CliResult some = s.run(common + "--pairs H-O -o " + s.file("some"));
  INFO(all.err << some.err);
  REQUIRE(all.status == 0);
  REQUIRE(some.status == 0);
  const auto full = counts(s.file("all/pairhist.h5"), "O,H", 60);
  REQUIRE(!full.empty());
  CHECK(counts(s.file("some/pairhist.h5"), "O,H", 60) == full);
  CHECK(counts(s.file("some/pairhist.h5"), "O,O", 60).empty());
  CHECK(counts(s.file("some/pairhist.h5"), "H,H", 60).empty());
  // The outputs hold the named pair alone, its excluded pairs (O-H of one water) included.
  const std::string csv = CliScratch::slurp(s.file("some/rdf.csv"));
  CHECK(first_line(csv) == "r_nm,count_O-H,g_O-H,n_O-H");
  CHECK(csv.find("# excluded pairs: residue; O-H 1768 per frame\n") != std::string::npos);
  CHECK(some.out.find("g(r) of O-H from") != std::string::npos);
  const CliResult bad = s.run(common + "--pairs O-X -o " + s.file("bad"));
  CHECK(bad.status == 2);
  CHECK(bad.err.find("'O-X' is not a pair A-B of species names (species: O, H)") !=
        std::string::npos);
}

TEST_CASE("without --rmax and --nbins: r_max from every frame's box, bins of 0.002 nm") {
  CliScratch s("defaults");
  // The sample's smallest box (frame 45 of the NPT run) allows 1.4815 nm: 740 bins of 0.002.
  const CliResult r = s.run("run " + kData + "/spce_water.xtc --top " + kData +
                            "/spce_water.gro --species O=OW -o " + s.file("out"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("740 bins up to 1.48 nm (0.002 nm wide)") != std::string::npos);
  const CliResult w = s.run(kWater + "--species O=OW --rmax 0.305 --bin 0.01 -o " + s.file("w"));
  REQUIRE(w.status == 0);
  // An --rmax that is not a multiple of --bin is kept: the last bin is partial (issue 39).
  CHECK(w.out.find("31 bins up to 0.31 nm (0.01 nm wide)") != std::string::npos);
  CHECK(w.out.find("last bin      : partial: --rmax 0.305 nm") != std::string::npos);
  // The summary's scheduler detail only with --verbose.
  CHECK(r.out.find("makespan") == std::string::npos);
  CHECK(r.out.find("bapps") == std::string::npos);
}

TEST_CASE("usage errors: every one at once, one line each, exit status 2, nothing written") {
  CliScratch s("usage");
  const CliResult many = s.run("run " + kData + "/spce_water.xtc --species O --rmax -1 " +
                               "--nbins 10 --bin 0.1 --units furlong -o " + s.file("x.xvg"));
  CHECK(many.status == 2);
  CHECK(error_lines(many.err) == 6);  // no topology, species, rmax, bins, units, -o
  CHECK(many.err.find("looks like a file name: -o names the output directory") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(s.file("x.xvg")));
  for (const std::string& args :
       {std::string("run --bogus"), "run " + kData + "/spce_water.xtc --rmax abc",
        "run " + kData + "/spce_water.xtc -s " + kData + "/spce_water.gro -ref OW -sel OW"}) {
    CAPTURE(args);
    const CliResult r = s.run(args);
    CHECK(r.status == 2);
    CHECK(error_lines(r.err) == 1);
  }
  CHECK(s.run("run " + kData + "/spce_water.xtc -sel OW").err.find("use `pairhist rdf`") !=
        std::string::npos);
  // A misspelt keyword selects nothing silently (before issue 25: the OW atoms).
  const CliResult nam = s.run(kWater + "--species 'O=nam OW' -o " + s.file("nam"));
  CHECK(nam.status == 2);
  CHECK(nam.err.find("species O: selection 'nam OW': unknown keyword 'nam': did you mean "
                     "'name'?") != std::string::npos);
  // Every species' selection error at once, one line each (before: the first only).
  const CliResult both = s.run(kWater + "--species 'O=nam OW' --species 'H=foo HW1' --species " +
                               "'W=SOL' -o " + s.file("both"));
  CHECK(both.status == 2);
  CHECK(error_lines(both.err) == 2);
  CHECK(both.err.find("species H: selection 'foo HW1': unknown keyword 'foo'") !=
        std::string::npos);
  // Position types (centres of residues, molecules) likewise.
  const CliResult pos = s.run(kWater + "--species 'W=res_cm of resname SOL' -o " + s.file("pos"));
  CHECK(pos.status == 2);
  CHECK(pos.err.find("unknown position type 'res_cm': did you mean 'res_com'?") !=
        std::string::npos);
  const pairhist::test::CommandResult seltype = pairhist::test::pairhist_cmd(
      "rdf -f " + kData + "/spce_water.xtc -s " + kData +
      "/spce_water.gro -ref OW -sel OW -seltype com -selrpos res -o " + s.file("r.xvg"));
  INFO(seltype.output);
  CHECK(seltype.status == 2);
  CHECK(error_lines(seltype.output) == 2);
  CHECK(seltype.output.find("-seltype must be atom, res_com, res_cog") != std::string::npos);
  // -surf and -cut: what gmx refuses, and a -cut on no edge of the bins pairhist can make.
  const std::string rdf = "rdf -f " + kData + "/spce_water.xtc -s " + kData +
                          "/spce_water.gro -ref OW -sel OW -rmax 0.5 -o " + s.file("s.xvg") + " ";
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{"-surf bogus", "-surf must be no, mol or res"},
        {"-surf res -norm rdf", "-surf cannot be combined with -norm rdf"},
        {"-surf res -seltype res_com", "-surf needs a -ref of atoms"},
        {"-surf mol -cut 0.12345678", "-cut 0.12345678 falls on no edge"},
        {"-cut x", "-cut expects a number"},
        // Output files that cannot be written: said before counting (before: exit 1 after it).
        {"-cn " + s.file("dir") + "/", "-cn " + s.file("dir") + "/ is a directory"},
        {"-cn " + s.file("none") + "/cn.xvg", "no directory " + s.file("none")}}) {
    CAPTURE(args);
    const pairhist::test::CommandResult r = pairhist::test::pairhist_cmd(rdf + args);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(error_lines(r.output) == 1);
    CHECK(r.output.find(message) != std::string::npos);
  }
  CHECK(!std::filesystem::exists(s.file("s.xvg")));
}

TEST_CASE("rdf.csv starts with its column names; cn.xvg gives n(r) at the bins' upper edges") {
  CliScratch s("layout");
  const CliResult r = s.run(kWater + "--species O=OW --rmax 0.3 --nbins 30 -o " + s.file("out"));
  REQUIRE(r.status == 0);
  CHECK(first_line(CliScratch::slurp(s.file("out/rdf.csv"))) == "r_nm,count_O-O,g_O-O,n_O-O");
  const std::string cn = CliScratch::slurp(s.file("out/cn.xvg"));
  std::istringstream in(cn);
  std::string line;
  while (std::getline(in, line) && (line[0] == '#' || line[0] == '@')) {
  }
  CHECK(line.rfind("0.01 ", 0) == 0);  // the first bin, [0, 0.01), counted up to 0.01
}
