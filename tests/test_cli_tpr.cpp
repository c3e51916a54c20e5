// `pairhist run --top FILE.tpr` end to end: the same counts as with the .gro, `group` selections
// on gmx make_ndx's default groups, damaged .tpr files refused before any output, and centres
// of residues and molecules (res_com, mol_com) as species.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::test::contains;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kXtc = kData + "/nacl_dodecahedron.xtc";
const std::string kGro = kData + "/nacl_dodecahedron.gro";
const std::string kTpr = pairhist::test::fixture("gmx_nacl.tpr");
const std::string kCommon = " --rmax 1.2 --nbins 120 --last 9 --ncpu 1";

using Result = pairhist::test::CommandResult;
using pairhist::test::pairhist_cmd;

/// rdf.csv without its '#' lines (they name the inputs).
std::string rdf_rows(const fs::path& out) {
  std::ifstream in(out / "rdf.csv");
  REQUIRE_MESSAGE(in.good(), "no " << (out / "rdf.csv"));
  std::string rows;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') rows += line + "\n";
  return rows;
}

}  // namespace

TEST_CASE("run --top x.tpr counts as run --top x.gro; group names, any case, and numbers") {
  pairhist::test::TempDir dir("cli-tpr");
  const std::string species = " --species O=OW --species Na=NA --species Cl=CL";
  const Result gro =
      pairhist_cmd("run " + kXtc + " --top " + kGro + species + kCommon + " -o " + dir.file("gro"));
  INFO(gro.output);
  REQUIRE(gro.status == 0);
  const Result tpr =
      pairhist_cmd("run " + kXtc + " --top " + kTpr + species + kCommon + " -o " + dir.file("tpr"));
  INFO(tpr.output);
  REQUIRE(tpr.status == 0);
  CHECK(!contains(tpr.output, "Reading file"));  // libgromacs's chatter stays out
  const std::string rows = rdf_rows(dir.file("gro"));
  CHECK(rows.size() > 1000);
  CHECK(rdf_rows(dir.file("tpr")) == rows);

  // The same species through gmx make_ndx's groups: `group Ion` is Na and Cl together, so
  // compare the water with ions: "Water" (group 1) holds OW, HW1, HW2; take OW by name.
  const std::string by_groups =
      " --species 'O=group sol and name OW' --species 'Na=group ION and name NA'"
      " --species 'Cl=group 4 and name CL'";
  const Result groups = pairhist_cmd("run " + kXtc + " --top " + kTpr + by_groups + kCommon +
                                     " -o " + dir.file("groups"));
  INFO(groups.output);
  REQUIRE(groups.status == 0);
  CHECK(rdf_rows(dir.file("groups")) == rows);

  // An unknown group names where the groups came from.
  const Result unknown =
      pairhist_cmd("run " + kXtc + " --top " + kTpr + " --species 'P=group Protein'" + kCommon +
                   " -o " + dir.file("unknown"));
  CHECK(unknown.status != 0);
  CHECK(contains(unknown.output, "default groups"));
  CHECK(!fs::exists(dir.file("unknown") + "/rdf.csv"));
}

TEST_CASE("run --top on a truncated or garbled .tpr: one line, exit 1, no output") {
  pairhist::test::TempDir dir("cli-tpr-bad");
  const std::string bytes = pairhist::test::read_all(kTpr);
  std::string garbled = bytes.substr(0, 40) + std::string(64, '\xff') + bytes.substr(104);
  for (const auto& [name, content] :
       {std::pair<std::string, std::string>{"cut.tpr", bytes.substr(0, bytes.size() / 2)},
        {"garbled.tpr", garbled}}) {
    CAPTURE(name);
    const std::string path = dir.file(name);
    pairhist::test::write_all(path, content);
    const std::string out = dir.file(name + ".out");
    const Result r =
        pairhist_cmd("run " + kXtc + " --top " + path + " --species O=OW" + kCommon + " -o " + out);
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK(contains(r.output, path + ": "));
    int lines = 0;
    for (char c : r.output) lines += c == '\n';
    CHECK(lines == 1);
    CHECK(!fs::exists(out));
  }
}

TEST_CASE("run --top on an empty .tpr: said in pairhist's words, not GROMACS's") {
  pairhist::test::TempDir dir("cli-tpr-empty");
  pairhist::test::write_all(dir.file("empty.tpr"), "");
  const Result r = pairhist_cmd("run " + kXtc + " --top " + dir.file("empty.tpr") +
                                " --species O=OW" + kCommon + " -o " + dir.file("out"));
  INFO(r.output);
  CHECK(r.status == 1);
  // before: "not a readable .tpr file: wrong string length 0 for string buf (source ...)"
  CHECK(contains(r.output, dir.file("empty.tpr") + ": an empty file, not a .tpr file"));
  CHECK(!fs::exists(dir.file("out")));
}

TEST_CASE("run --species with centres: res_com and mol_com of waters, an ion's centre is the ion") {
  pairhist::test::TempDir dir("cli-centres");
  const auto run = [&](const std::string& species, const std::string& out,
                       const std::string& top = kTpr) {
    return pairhist_cmd("run " + kXtc + " --top " + top + species + " --pairs Na-W" + kCommon +
                        " -o " + dir.file(out));
  };
  const Result mol = run(" --species 'Na=name NA' --species 'W=mol_com of resname SOL'", "mol");
  INFO(mol.output);
  REQUIRE(mol.status == 0);
  CHECK(contains(mol.output, "Na=14 atoms, W=724 mol_com centres"));
  const Result res =
      run(" --species 'Na=res_com of name NA' --species 'W=res_com of resname SOL'", "res");
  REQUIRE(res.status == 0);
  // A water is one residue and one molecule; a sodium ion's centre is the ion itself.
  CHECK(rdf_rows(dir.file("res")) == rdf_rows(dir.file("mol")));
  const Result cog = run(" --species 'Na=name NA' --species 'W=res_cog of resname SOL'", "cog");
  REQUIRE(cog.status == 0);
  CHECK(rdf_rows(dir.file("cog")) != rdf_rows(dir.file("mol")));

  // Refused, exit 2, one line: molecules from a .gro, exclusions of centres.
  const Result gro = run(" --species 'Na=NA' --species 'W=mol_com of resname SOL'", "gro", kGro);
  CHECK(gro.status == 2);
  CHECK(contains(gro.output, "mol_com positions need molecules, which only a .tpr"));
  const Result excl = pairhist_cmd("run " + kXtc + " --top " + kTpr +
                                   " --species 'Na=NA' --species 'W=mol_com of resname SOL'"
                                   " --exclude topology" +
                                   kCommon + " -o " + dir.file("excl"));
  CHECK(excl.status == 2);
  CHECK(contains(excl.output, "species W has mol_com positions"));
}
