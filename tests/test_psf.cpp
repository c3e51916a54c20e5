// The PSF reader (io/topology/psf_reader.hpp) on real CHARMM, NAMD/VMD and CHARMM-GUI files
// (data/fixtures/charmm/, from MDAnalysis's test data) against the counts MDAnalysis reads from
// them (its testsuite's topology/test_psf.py, and MDAnalysis 2.4.2 for totals), its exclusions
// against a shortest-path search over the file's bonds read here, and damaged files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/atom_masses.hpp"
#include "analysis/selection.hpp"
#include "io/topology/psf_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::analysis::BondList;
using pairhist::analysis::Topology;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;

std::string charmm(const std::string& name) {
  return fixture("charmm/" + name);
}

struct Expected {
  const char* file;
  int atoms, residues, segments, bonds, molecules;
  double charge, mass;
};

// MDAnalysis: atoms, residues, segments (test_psf.py where it lists them), bonds, fragments,
// total charge and mass. 1a2c_ins_code.psf (CHARMM-GUI, EXT XPLOR), which MDAnalysis 2.4.2 cannot
// read, has its header's counts and its charge and mass columns summed by awk. Its residues
// carry insertion codes (1H, 1G, ...), kept in their identity: 36 residues as written.
const Expected kFiles[] = {
    {"tip125_tric_C36.psf", 375, 125, 1, 375, 125, 0.0, 2251.9250},
    {"parmed_ala3.psf", 33, 3, 1, 32, 1, 0.0, 231.2520},
    {"nosegid.psf", 98, 6, 1, 97, 1, 1.0, 671.7880},
    {"namd_cgenff.psf", 130, 6, 1, 132, 1, 3.0, 919.0756},
    {"watdyn.psf", 15, 5, 1, 15, 5, 0.0, 90.0770},
    {"1a2c_ins_code.psf", 571, 36, 1, 574, 1, -3.0, 4129.5758},
};

int count_residues(const Topology& top, const std::string& path) {
  const std::vector<int> r = pairhist::analysis::residue_of_atoms(top, path, "test");
  return r.empty() ? 0 : r.back() + 1;
}

// The bond section read here with plain stream extraction, not the reader's code.
BondList bonds_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && !contains(line, "!NBOND")) {
  }
  REQUIRE_MESSAGE(in.good(), path << " has no !NBOND");
  const int n = std::stoi(line);
  BondList bonds;
  int a = 0, b = 0;
  while (static_cast<int>(bonds.size()) < n && in >> a >> b) bonds.emplace_back(a - 1, b - 1);
  REQUIRE(static_cast<int>(bonds.size()) == n);
  return bonds;
}

}  // namespace

TEST_CASE("PSF: real CHARMM, NAMD and CHARMM-GUI files read as MDAnalysis reads them") {
  for (const Expected& e : kFiles) {
    const std::string path = charmm(e.file);
    CAPTURE(path);
    BondList bonds;
    const Topology top = pairhist::io::read_psf(path, &bonds);
    CHECK(top.natoms() == e.atoms);
    CHECK(count_residues(top, path) == e.residues);
    CHECK(top.segment_names.distinct().size() == static_cast<size_t>(e.segments));
    CHECK(static_cast<int>(bonds.size()) == e.bonds);
    CHECK(bonds == bonds_of(path));
    REQUIRE(top.molecule_index.size() == static_cast<size_t>(e.atoms));
    CHECK(*std::max_element(top.molecule_index.begin(), top.molecule_index.end()) + 1 ==
          e.molecules);
    double charge = 0, mass = 0;
    for (int i = 0; i < top.natoms(); ++i) charge += top.charges[i], mass += top.masses[i];
    CHECK(std::fabs(charge - e.charge) < 1e-3);
    CHECK(std::fabs(mass - e.mass) < 1e-2);
    // Every atom of these files has a standard mass: its element weighs what it weighs.
    REQUIRE(top.elements.size() == static_cast<size_t>(e.atoms));
    for (int i = 0; i < top.natoms(); ++i) {
      CAPTURE(i);
      CHECK(std::fabs(pairhist::analysis::element_mass(top.elements[i]) - top.masses[i]) < 0.1);
    }
    // read_topology chooses the reader by the extension.
    CHECK(pairhist::io::read_topology(path, pairhist::io::TopologyContent::names).natoms() ==
          e.atoms);
  }
}

TEST_CASE("PSF: fields by format (standard, CHEQ, EXT XPLOR, NAMD types, no segid, inscodes)") {
  const Topology water = pairhist::io::read_psf(charmm("tip125_tric_C36.psf"));
  CHECK(water.segment_names[0] == "SOLV");
  CHECK(water.residue_names[0] == "TIP3");
  CHECK(water.atom_names[0] == "OH2");
  CHECK(water.types[0] == "58");  // CHARMM's type numbers, CHEQ columns after the mass
  CHECK(water.elements[0] == "O");
  CHECK(water.elements[1] == "H");
  CHECK(water.residue_numbers[374] == 125);
  CHECK(water.charges[0] == doctest::Approx(-0.834));

  const Topology gui = pairhist::io::read_psf(charmm("1a2c_ins_code.psf"));
  CHECK(gui.segment_names[0] == "PROA");
  CHECK(gui.residue_numbers[0] == 1);  // "1H"
  CHECK(gui.types[0] == "CT3");        // EXT XPLOR: type names
  CHECK(gui.atom_names[0] == "CAY");
  CHECK(gui.charges[1] == doctest::Approx(0.09));

  // A blank segid in EXT's columns: read by the columns (blank-separated fields would be off).
  pairhist::test::TempDir dir("psf-ext");
  std::string ext = pairhist::test::read_all(charmm("1a2c_ins_code.psf"));
  ext.replace(ext.find("         1 PROA"), 15, "         1     ");
  pairhist::test::write_all(dir.file("blank.psf"), ext);
  const Topology blank = pairhist::io::read_psf(dir.file("blank.psf"));
  CHECK(blank.segment_names[0] == "");
  CHECK(blank.segment_names[1] == "PROA");
  CHECK(blank.residue_names[0] == "THR");
  CHECK(blank.types[0] == "CT3");

  const Topology cgenff = pairhist::io::read_psf(charmm("namd_cgenff.psf"));
  CHECK(cgenff.segment_names[0] == "A002");
  CHECK(cgenff.types[0] == "CT2");

  const Topology nosegid = pairhist::io::read_psf(charmm("nosegid.psf"));
  CHECK(nosegid.segment_names[0] == "");  // a blank segid column
  CHECK(nosegid.residue_numbers[0] == 66);
  CHECK(nosegid.residue_names[0] == "GLY");
  CHECK(nosegid.atom_names[2] == "CA");
  CHECK(nosegid.elements[2] == "C");  // by its mass 12.01, not its name
}

TEST_CASE("PSF: insertion codes are kept in the residue identity and selectable as resid 14A") {
  const std::string path = charmm("1a2c_ins_code.psf");
  const Topology top = pairhist::io::read_psf(path);
  // The resid column read here by splitting the atom lines: number and code.
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && !contains(line, "!NATOM")) {
  }
  std::vector<std::string> resids;
  for (int i = 0; i < top.natoms() && std::getline(in, line); ++i) {
    std::istringstream f(line);
    std::string number, segid, resid;
    f >> number >> segid >> resid;
    resids.push_back(resid);
  }
  REQUIRE(top.insertion_codes.size() == resids.size());
  std::set<std::string> codes;
  for (size_t i = 0; i < resids.size(); ++i) {
    const size_t digits = resids[i].find_first_not_of("-0123456789");
    const std::string code = digits == std::string::npos ? "" : resids[i].substr(digits);
    CHECK(top.insertion_codes[i] == code);
    CHECK(top.residue_numbers[i] == std::stoi(resids[i].substr(0, digits)));
    codes.insert(code);
  }
  CHECK(codes.size() == 14);  // none, and A-H (residue 1) within A-M (residue 14)
  auto select = [&](const std::string& s) {
    return pairhist::analysis::select_atoms(top, s, path);
  };
  auto atoms_of = [&](const std::function<bool(const std::string&)>& keep) {
    std::vector<int> out;
    for (size_t i = 0; i < resids.size(); ++i)
      if (keep(resids[i])) out.push_back(static_cast<int>(i));
    return out;
  };
  CHECK(select("resid 14A") == atoms_of([](const std::string& r) { return r == "14A"; }));
  CHECK(select("resid 14A 1H") ==
        atoms_of([](const std::string& r) { return r == "14A" || r == "1H"; }));
  // A number alone: its residues whatever their codes (MDAnalysis's resid 14 too).
  CHECK(select("resid 14") == atoms_of([](const std::string& r) { return r.rfind("14", 0) == 0; }));
  CHECK(select("resid 14 and not resid 14A 14B").size() ==
        select("resid 14").size() - select("resid 14A 14B").size());
  // 14A and 14B are residues of their own for --exclude residue and centres of mass.
  const std::vector<int> residue = pairhist::analysis::residue_of_atoms(top, path, "test");
  const auto a = select("resid 14A"), b = select("resid 14B");
  CHECK(residue[static_cast<size_t>(a.front())] != residue[static_cast<size_t>(b.front())]);
  // A topology without codes says so.
  const Topology water = pairhist::io::read_psf(charmm("tip125_tric_C36.psf"));
  CHECK(water.insertion_codes.size() == static_cast<size_t>(water.natoms()));
  Topology bare;
  bare.atom_names.push_back("OW");
  bare.residue_names.push_back("SOL");
  bare.residue_numbers.push_back(1);
  try {
    pairhist::analysis::select_atoms(bare, "resid 1A", "x.gro");
    FAIL("resid 1A on a topology without insertion codes");
  } catch (const pairhist::UsageError& e) {
    CHECK(
        contains(e.what(), "x.gro: selection 'resid 1A': '1A': this file has no insertion codes"));
  }
}

TEST_CASE("PSF: exclusions are the atoms up to three bonds apart, as a shortest-path search") {
  for (const char* file : {"parmed_ala3.psf", "namd_cgenff.psf", "tip125_tric_C36.psf"}) {
    const std::string path = charmm(file);
    CAPTURE(path);
    const Topology top = pairhist::io::read_psf(path);
    const int n = top.natoms();
    const BondList bonds = bonds_of(path);
    // Floyd-Warshall over the bonds read by the test.
    const int inf = 1 << 20;
    std::vector<int> d(static_cast<size_t>(n) * n, inf);
    for (int i = 0; i < n; ++i) d[static_cast<size_t>(i) * n + i] = 0;
    for (const auto& [a, b] : bonds)
      d[static_cast<size_t>(a) * n + b] = d[static_cast<size_t>(b) * n + a] = 1;
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          d[static_cast<size_t>(i) * n + j] =
              std::min(d[static_cast<size_t>(i) * n + j],
                       d[static_cast<size_t>(i) * n + k] + d[static_cast<size_t>(k) * n + j]);
    REQUIRE(top.exclusion_offsets.size() == static_cast<size_t>(n) + 1);
    size_t pairs = 0;
    for (int i = 0; i < n; ++i) {
      std::vector<int> expected;
      for (int j = 0; j < n; ++j)
        if (d[static_cast<size_t>(i) * n + j] <= 3) expected.push_back(j);
      const std::vector<int> got(top.exclusion_atoms.begin() + top.exclusion_offsets[i],
                                 top.exclusion_atoms.begin() + top.exclusion_offsets[i + 1]);
      CAPTURE(i);
      CHECK(got == expected);
      pairs += expected.size();
    }
    CHECK(pairs >= static_cast<size_t>(3 * n));  // a water: each of its atoms excludes all three
  }
}

TEST_CASE("PSF: selections by segid, resid, name, type, element, mass, charge and cpptraj masks") {
  const std::string path = charmm("tip125_tric_C36.psf");
  const Topology top = pairhist::io::read_psf(path);
  auto count = [&](const std::string& sel) {
    return pairhist::analysis::select_atoms(top, sel, path).size();
  };
  CHECK(count("segid SOLV") == 375);
  CHECK(count("resname TIP3 and name OH2") == 125);
  CHECK(count("resid 1-10") == 30);
  CHECK(count("type 58") == 125);
  CHECK(count("type 4") == 250);
  CHECK(count("element O") == 125);
  CHECK(count("element H") == 250);
  CHECK(count("mass 15.9994") == 125);
  CHECK(count("mass 1:2") == 250);
  CHECK(count("charge -0.834") == 125);
  CHECK(count("charge 0:1") == 250);
  CHECK(count(":TIP3@OH2") == 125);
  CHECK(count(":1-10") == 30);
  CHECK(count(":1-10@H1,H2") == 20);
  CHECK(count("@H1") == 125);
  CHECK(count("@%4") == 250);
  CHECK(count("@1-3") == 3);
  CHECK(pairhist::analysis::select_atoms(top, ":2@OH2", path) == std::vector<int>{3});
  // A topology without masses or charges says so.
  Topology bare;
  bare.atom_names.push_back("OW");
  bare.residue_names.push_back("SOL");
  bare.residue_numbers.push_back(1);
  const std::string why = [&] {
    try {
      pairhist::analysis::select_atoms(bare, "mass 16", "x.gro");
    } catch (const pairhist::UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  CHECK(contains(why, "x.gro: selection 'mass 16': this file states no masses"));
}

TEST_CASE("PSF: damaged files are one line naming the file and line") {
  pairhist::test::TempDir dir("psf-bad");
  const std::string good = pairhist::test::read_all(charmm("tip125_tric_C36.psf"));
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.file("bad.psf");
    pairhist::test::write_all(path, text);
    const std::string e = input_error_of([&] { pairhist::io::read_psf(path); });
    CHECK(e.find('\n') == std::string::npos);
    CHECK(contains(e, path + ": line "));
    return e;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(contains(error_of("HELLO\n"), "line 1: not a PSF file"));
  CHECK(contains(error_of(""), "empty file"));
  CHECK(contains(error_of(replaced("PSF CMAP CHEQ", "PSF CMAP WHAT")), "unknown PSF flag 'WHAT'"));
  CHECK(contains(error_of(replaced("!NTITLE", "!TITLE")), "expected 'N !NTITLE'"));
  CHECK(contains(error_of(good.substr(0, good.find("     101 SOLV"))),
                 "file ends after 100 of 375 atom lines"));
  CHECK(contains(error_of(replaced("     375 !NATOM", "99999999 !NATOM")),
                 "!NATOM declares 99999999 atoms, more than the rest of the file can hold"));
  CHECK(contains(error_of(replaced("-0.834000       15.9994", "-0.834000       heavy  ")),
                 "line 12: 'heavy' is not a mass"));
  CHECK(contains(error_of(replaced("     375 !NBOND: bonds\n       1       2",
                                   "     375 !NBOND: bonds\n       1     376")),
                 "bond atom 376 is outside the atoms 1-375"));
  CHECK(contains(error_of(replaced("     375 !NBOND", "     374 !NBOND")),
                 "more bond atoms than the 374 bonds !NBOND declares"));
  CHECK(contains(error_of(good.substr(0, good.find("!NTHETA") - 30)), "bonds"));
  CHECK(contains(error_of(replaced("1    TIP3 OH2", "X    TIP3 OH2")),
                 "'X' is not a residue number"));
}
