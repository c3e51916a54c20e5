// Elements and atom types from topology files, end to end: what each reader stores and how
// `element` / `type` selections behave on it (hand-written PDB, ASE and LAMMPS fixtures, GRO and
// CADISHI files, which have neither).
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/selection.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/pdb_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

using namespace pairhist;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::write_all;

namespace {

/// An ATOM record up to the occupancy/B-factor columns (66), then `tail` from column 67 on.
std::string pdb_atom(int serial, const char* name, const char* res, int resnr,
                     const std::string& tail) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "ATOM  %5d %-4s %-4s%5d    %8.3f%8.3f%8.3f  1.00  0.00", serial,
                name, res, resnr, 1.0 * serial, 2.0, 3.0);
  return buf + tail + "\n";
}

/// Columns 67-76 are blank; the element symbol sits right-justified in columns 77-78.
std::string element_field(const char* symbol) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "          %2s", symbol);
  return buf;
}

std::vector<int> select(const std::string& path, const std::string& text) {
  return analysis::select_atoms(io::read_topology(path), text, path);
}

std::string usage_error(const std::string& path, const std::string& text) {
  try {
    select(path, text);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected a UsageError for '" << text << "' on " << path);
  return "";
}

int count_of(const std::vector<std::string>& values, const std::string& v) {
  int n = 0;
  for (const auto& x : values) n += x == v;
  return n;
}

}  // namespace

TEST_CASE("PDB: element symbols from columns 77-78, none where the field is missing") {
  test::TempDir tmp("species");
  const std::string path = tmp.file("ions.pdb");
  std::string text = "TITLE     water and ions\n";
  text += pdb_atom(1, "OW", "SOL", 1, element_field("O"));
  text += pdb_atom(2, "HW1", "SOL", 1, element_field("H"));
  text += pdb_atom(3, "HW2", "SOL", 1, element_field("H") + "  ");  // blank charge columns
  text += pdb_atom(4, "NA", "NA", 2, element_field("NA"));
  text += pdb_atom(5, "CL", "CL", 3, element_field("Cl") + "1-");
  text += "END\n";
  write_all(path, text);

  const analysis::Topology top = io::read_pdb_topology(path);
  CHECK(top.elements == std::vector<std::string>{"O", "H", "H", "NA", "Cl"});
  CHECK(top.types.empty());
  CHECK(select(path, "element O") == std::vector<int>{0});
  CHECK(select(path, "element h") == std::vector<int>{1, 2});
  CHECK(select(path, "element Na Cl") == std::vector<int>{3, 4});  // "NA" in the file
  CHECK(select(path, "element C*") == std::vector<int>{4});
  CHECK(select(path, "element O H and resname SOL and not name HW2") == std::vector<int>{0, 1});
  CHECK_THROWS_AS(select(path, "element N"), InputError);  // matches nothing

  // The same file as .ent, with one atom whose line stops before the element columns and one
  // whose element field is blank: atoms without an element, never one guessed from "CA".
  const std::string ent = tmp.file("partial.ent");
  std::string partial = text;
  partial.insert(partial.find("END\n"),
                 pdb_atom(6, "CA", "ALA", 4, "") + pdb_atom(7, "CB", "ALA", 4, element_field("")));
  write_all(ent, partial);
  const analysis::Topology top2 = io::read_topology(ent);
  CHECK(top2.elements == std::vector<std::string>{"O", "H", "H", "NA", "Cl", "", ""});
  const std::string msg = usage_error(ent, "element O and resname SOL");
  CHECK(contains(msg, ent));
  CHECK(contains(msg, "atom 6 (CA)"));
  CHECK(contains(msg, "'name'"));
  CHECK(msg.find('\n') == std::string::npos);
  CHECK(select(ent, "name CA CB") == std::vector<int>{5, 6});  // names still work

  // A PDB without any element field (as gmx writes from a .gro) has elements for no atom.
  const std::string bare = tmp.file("bare.pdb");
  write_all(bare, pdb_atom(1, "OW", "SOL", 1, "") + pdb_atom(2, "HW1", "SOL", 1, "") + "END\n");
  CHECK(contains(usage_error(bare, "element O"), "atom 1 (OW)"));
}

TEST_CASE("extended XYZ: the species column is the element") {
  const std::string path = fixture("ase_triclinic.extxyz");
  const analysis::Topology top = io::read_topology(path);
  std::ifstream in(fixture("ase_triclinic.species.txt"));
  std::vector<std::string> species;
  for (std::string s; in >> s;) species.push_back(s);
  REQUIRE(species.size() == 90);
  CHECK(top.elements == species);
  CHECK(top.types.empty());
  const auto oxygens = select(path, "element o");
  CHECK(static_cast<int>(oxygens.size()) == count_of(species, "O"));
  for (int i : oxygens) CHECK(species[static_cast<size_t>(i)] == "O");
  CHECK(select(path, "element O H").size() == 90);
  CHECK(select(path, "element H and index 1-9").size() ==
        static_cast<size_t>(count_of({species.begin(), species.begin() + 9}, "H")));
  CHECK(contains(usage_error(path, "type 1"), "'element'"));
}

TEST_CASE("LAMMPS dump: the type column gives types, not elements") {
  const std::string path = fixture("lmp_ortho.lammpstrj");
  const analysis::Topology top = io::read_topology(path);
  REQUIRE(top.natoms() == 108);
  CHECK(top.types == top.atom_names);
  CHECK(top.elements.empty());
  const auto type2 = select(path, "type 2");
  CHECK(static_cast<int>(type2.size()) == count_of(top.atom_names.to_vector(), "2"));
  CHECK(select(path, "type 1 2").size() == 108);
  CHECK(select(path, "type 1 or type 2 and index 1-10").size() ==
        static_cast<size_t>(count_of(top.atom_names.to_vector(), "1")) +
            static_cast<size_t>(
                count_of({top.atom_names.begin(), top.atom_names.begin() + 10}, "2")));
  const std::string msg = usage_error(path, "element 1");
  CHECK(contains(msg, path));
  CHECK(contains(msg, "'type'"));
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("GRO and CADISHI files carry neither: UsageError naming the file and 'name'") {
  const std::string gro = test::data_dir() + "/spce_water.gro";
  const analysis::Topology top = io::read_topology(gro);
  CHECK(top.elements.empty());
  CHECK(top.types.empty());
  for (const std::string text : {"element O", "name OW and element O", "type 1"}) {
    const std::string msg = usage_error(gro, text);
    CHECK(contains(msg, gro));
    CHECK(contains(msg, "'" + text + "'"));
    CHECK(contains(msg, "'name'"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  const std::string h5 = fixture("cadishi_nobox.h5");
  CHECK(contains(usage_error(h5, "element O"), h5));
}
