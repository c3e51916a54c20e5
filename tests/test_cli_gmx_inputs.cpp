// `pairhist rdf` with gmx rdf's input conventions (issue 39): -f optional (the frames of -s), -s
// optional where -f names its atoms (.gro, .pdb, a .g96 structure) or -n's groups select,
// multi-frame .gro and .g96 files as -f, and one-line errors where neither gives what is needed.
// tests/check_gmx_rdf.py compares the same conventions with gmx rdf itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace {

using pairhist::test::CommandResult;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;

const std::string kData = pairhist::test::data_dir();

int error_lines(const std::string& output) {
  int n = 0;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) n += line.rfind("pairhist: error: ", 0) == 0;
  return n;
}

/// Runs `pairhist rdf ARGS -o DIR/NAME.xvg -cn DIR/NAME-cn.xvg -xvg none`; both files' text.
std::string rdf_files(const pairhist::test::TempDir& dir, const std::string& name,
                      const std::string& args) {
  const CommandResult r = pairhist_cmd("rdf " + args + " -o " + dir.file(name + ".xvg") + " -cn " +
                                       dir.file(name + "-cn.xvg") + " -xvg none");
  INFO(r.output);
  REQUIRE(r.status == 0);
  return read_all(dir.file(name + ".xvg")) + read_all(dir.file(name + "-cn.xvg"));
}

}  // namespace

TEST_CASE("rdf: a .gro trajectory counts as its XTC twin") {
  pairhist::test::TempDir dir("rdf-gro");
  const std::string selections = " -s " + fixture("gmx_water30.gro") +
                                 " -ref 'name OW' -sel 'name OW' 'name HW1' -rmax 1.4 -norm none";
  // -norm none: the counts alone (g(r) also divides by the volume, whose box GRO rounds to 5
  // decimals).
  const std::string xtc = rdf_files(dir, "xtc", "-f " + fixture("gmx_water30.xtc") + selections);
  CHECK(rdf_files(dir, "gro", "-f " + fixture("gmx_water30.gro") + selections) == xtc);
}

TEST_CASE("rdf and run: a .g96 trajectory counts as the XTC it came from") {
  pairhist::test::TempDir dir("rdf-g96");
  // G96 prints the XTC's floats and box with 9 decimals: every row the same, g(r) included.
  const std::string selections = " -s " + fixture("gmx_water30.gro") +
                                 " -ref 'name OW' -sel 'name OW' 'name HW1' -rmax 1.4 -bin 0.01";
  const std::string xtc = rdf_files(dir, "xtc", "-f " + fixture("gmx_water30.xtc") + selections);
  CHECK(rdf_files(dir, "g96", "-f " + fixture("gmx_water30.g96") + selections) == xtc);
  // `pairhist run traj.g96`: the same histograms as on the XTC.
  auto run_csv = [&](const std::string& name, const std::string& trajectory) {
    const CommandResult r =
        pairhist_cmd("run " + trajectory + " --top " + fixture("gmx_water30.gro") +
                     " --species O=OW --species H=HW1,HW2 --rmax 1.4 "
                     "--nbins 140 --ncpu 1 -q -o " +
                     dir.file(name));
    INFO(r.output);
    REQUIRE(r.status == 0);
    // Without the header's time span: the XTC stores 0.6 ps as a float, G96 prints 0.600000.
    std::string csv = read_all(dir.file(name) + "/rdf.csv");
    const size_t time = csv.find("# time: ");
    REQUIRE(time != std::string::npos);
    return csv.erase(time, csv.find('\n', time) - time);
  };
  CHECK(run_csv("run-g96", fixture("gmx_water30.g96")) ==
        run_csv("run-xtc", fixture("gmx_water30.xtc")));
}

TEST_CASE("rdf: a .g96 structure as -s (or -f) is its one frame and names its atoms") {
  pairhist::test::TempDir dir("rdf-g96-conf");
  const std::string conf = fixture("gmx_water30_conf.g96");  // the XTC's frame 0, with names
  const std::string o_o = " -ref 'name OW' -sel 'name OW' 'name HW1' -rmax 1.4";
  const std::string s = rdf_files(dir, "s", "-s " + conf + o_o);
  CHECK(rdf_files(dir, "f", "-f " + conf + o_o) == s);
  CHECK(rdf_files(dir, "xtc0",
                  "-f " + fixture("gmx_water30.xtc") + " -s " + fixture("gmx_water30.gro") +
                      " -e 0" + o_o) == s);
  // The .gro of that frame (its coordinates rounded to 0.001 nm as the XTC's are).
  const std::string gro = read_all(fixture("gmx_water30.gro"));
  size_t end = 0;
  for (int line = 0; line < 33; ++line) end = gro.find('\n', end) + 1;
  pairhist::test::write_all(dir.file("frame0.gro"), gro.substr(0, end));
  CHECK(rdf_files(dir, "gro", "-s " + dir.file("frame0.gro") + o_o) == s);
}

TEST_CASE("rdf: the frames of -s without -f, the names of -f or -n without -s") {
  pairhist::test::TempDir dir("rdf-inputs");
  const std::string gro = kData + "/spce_water.gro", xtc = kData + "/spce_water.xtc";
  const std::string ndx = fixture("spce_water.ndx");
  const std::string o_o = " -ref 'name OW' -sel 'name OW' -rmax 1.0";
  // gmx rdf -s conf.gro: its one frame.
  const std::string both = rdf_files(dir, "both", "-f " + gro + " -s " + gro + o_o);
  CHECK(rdf_files(dir, "s", "-s " + gro + o_o) == both);
  CHECK(rdf_files(dir, "f", "-f " + gro + o_o) == both);
  // -f conf.gro -n index.ndx: the groups select from the .gro's atoms.
  const std::string groups = " -ref OW -sel OW -rmax 1.0";
  CHECK(rdf_files(dir, "fn", "-f " + gro + " -n " + ndx + groups) == both);
  // -f traj.xtc -n index.ndx: the atoms of the XTC, unnamed, selected by the groups.
  const std::string with_s =
      rdf_files(dir, "xs", "-f " + xtc + " -s " + gro + " -n " + ndx + groups);
  CHECK(rdf_files(dir, "xn", "-f " + xtc + " -n " + ndx + groups) == with_s);
  // A .gro trajectory of several frames as -f, its names without -s.
  const std::string multi = rdf_files(dir, "multi", "-f " + fixture("gmx_water30.gro") + o_o);
  CHECK(multi ==
        rdf_files(dir, "multi-s",
                  "-f " + fixture("gmx_water30.gro") + " -s " + fixture("gmx_water30.gro") + o_o));
}

TEST_CASE("rdf: input combinations that give no frames or no names: one line, exit 2") {
  pairhist::test::TempDir dir("rdf-refused");
  const std::string xtc = kData + "/spce_water.xtc", ndx = fixture("spce_water.ndx");
  const std::string out = " -o " + dir.file("r.xvg");
  for (const auto& [args, message] : {
           std::pair<std::string, std::string>{"-ref OW -sel OW",
                                               "-f TRAJECTORY or -s STRUCTURE is required"},
           {"-f " + xtc + " -ref 'name OW' -sel 'name OW'",
            "-s STRUCTURE is required: -f " + xtc + " names no atoms"},
           {"-f " + xtc + " -n " + ndx + " -ref 'name OW' -sel OW",
            "'name OW' is no group of " + ndx + ": -f " + xtc + " names no atoms"},
           {"-f " + xtc + " -n " + ndx + " -ref OW -sel OW -seltype res_com",
            "-seltype res_com needs -s"},
           {"-f " + fixture("gmx_water30.gro") + " -ref OW -sel OW -dt 0.3",
            "-dt needs an XTC trajectory"},
           // gmx trjconv's .g96 trajectories name no atoms (POSITIONRED), as an XTC.
           {"-f " + fixture("gmx_water30.g96") + " -ref 'name OW' -sel 'name OW'",
            "-s STRUCTURE is required: -f " + fixture("gmx_water30.g96") + " names no atoms"},

       }) {
    CAPTURE(args);
    const CommandResult r = pairhist_cmd("rdf " + args + out);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(error_lines(r.output) == 1);
    CHECK(contains(r.output, message));
  }
  // A .g96 without names as the structure: the reader's one line, exit status 1 (bad input).
  const CommandResult r =
      pairhist_cmd("rdf -s " + fixture("gmx_water30.g96") + " -ref 'name OW' -sel 'name OW'" + out);
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(error_lines(r.output) == 1);
  CHECK(contains(r.output,
                 fixture("gmx_water30.g96") + ": frame 0: line 7: POSITIONRED names no atoms"));
  CHECK(!std::filesystem::exists(dir.file("r.xvg")));
}
