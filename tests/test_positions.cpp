// Centres of residues and molecules as positions (analysis/positions.hpp) and the masses they
// weigh atoms by (analysis/atom_masses.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analysis/atom_masses.hpp"
#include "analysis/positions.hpp"
#include "pairhist/errors.hpp"
#include "tests/small_topology.hpp"
#include "tests/test_support.hpp"

using namespace pairhist;
using analysis::PositionType;
using analysis::PositionUnit;

namespace {

/// Two waters and two ions (atoms 0..7), as a .gro gives them: no masses, no molecules.
analysis::Topology waters_and_ions() {
  return test::small_topology();
}

PositionType type_of(const std::string& word) {
  PositionType t;
  REQUIRE(analysis::parse_position_type(word, t));
  return t;
}

std::vector<double> unit_masses(const analysis::Topology& t) {
  return std::vector<double>(static_cast<size_t>(t.natoms()), 1.0);
}

BoxMatrix cube(double edge) {
  return {edge, 0, 0, 0, edge, 0, 0, 0, edge};
}

}  // namespace

TEST_CASE("position types as gmx names them") {
  CHECK(type_of("atom").is_atom());
  const PositionType rc = type_of("res_com");
  CHECK((rc.unit == PositionUnit::residue && rc.mass_weighted && !rc.whole));
  const PositionType wmg = type_of("whole_mol_cog");
  CHECK((wmg.unit == PositionUnit::molecule && !wmg.mass_weighted && wmg.whole));
  // part_ and dyn_ are the same for a selection evaluated once: the default.
  CHECK(analysis::position_type_name(type_of("dyn_res_cog")) == "res_cog");
  CHECK(analysis::position_type_name(type_of("part_mol_com")) == "mol_com");
  PositionType t;
  CHECK_FALSE(analysis::parse_position_type("whole_atom", t));
  CHECK_FALSE(analysis::parse_position_type("res_cm", t));
  CHECK_FALSE(analysis::parse_position_type("com", t));
}

TEST_CASE("a selection's leading 'POSTYPE of'") {
  auto s = analysis::split_position_type("res_com of resname SOL");
  CHECK(s.stated);
  CHECK(s.type.unit == PositionUnit::residue);
  CHECK(s.atoms_text == " resname SOL");
  s = analysis::split_position_type("whole_mol_cog of(name OW)");
  CHECK((s.stated && s.type.whole && s.atoms_text == "(name OW)"));
  // Without one, the default (gmx rdf's -seltype), and the text unchanged.
  s = analysis::split_position_type("resname SOL", type_of("mol_cog"));
  CHECK((!s.stated && s.type.unit == PositionUnit::molecule && s.atoms_text == "resname SOL"));
  CHECK(analysis::split_position_type("OW").type.is_atom());
  const auto refused = [](const std::string& text, const std::string& part) {
    try {
      analysis::split_position_type(text);
      FAIL("expected an error for " << text);
    } catch (const UsageError& e) {
      CHECK_MESSAGE(test::contains(e.what(), part), e.what());
    }
  };
  refused("res_cm of resname SOL", "did you mean 'res_com'?");
  refused("com of resname SOL", "'com of' (one centre of the whole selection) is not supported");
  refused("res_com resname SOL", "'res_com' needs 'of' before the atoms: 'res_com of resname SOL'");
  refused(" mol_cog  name OW", "'mol_cog of name OW'");
  refused("part_mol_cog", "'part_mol_cog' needs 'of' before the atoms");  // found by fuzzing
}

TEST_CASE("centres: one per residue, shared when equal, an atom stays the atom") {
  const analysis::Topology t = waters_and_ions();
  analysis::Centres c;
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  // Two waters become centres 8 and 9; the ions, residues of one atom, stay atoms 6 and 7.
  CHECK(c.add(t, "t.gro", type_of("res_cog"), all, {}) == std::vector<int>{8, 9, 6, 7});
  CHECK(c.size() == 2);
  // The same atoms again (another species): the same centres, so shared positions are seen.
  CHECK(c.add(t, "t.gro", type_of("res_cog"), {3, 4, 5}, {}) == std::vector<int>{9});
  // Weighted by mass, the same atoms make another centre.
  CHECK(c.add(t, "t.gro", type_of("res_com"), {0, 1, 2}, unit_masses(t)) == std::vector<int>{10});
  // part_: only the selected atoms (OW alone is that atom); whole_: all of their residues.
  CHECK(c.add(t, "t.gro", type_of("res_cog"), {0, 3}, {}) == std::vector<int>{0, 3});
  CHECK(c.add(t, "t.gro", type_of("whole_res_cog"), {0, 3}, {}) == std::vector<int>{8, 9});
  CHECK(analysis::centre_atoms(t, "t.gro", type_of("whole_res_com"), {1, 7}) ==
        std::vector<int>{0, 1, 2, 7});
  CHECK(c.size() == 3);
}

TEST_CASE("centres of residues split by the box are taken whole") {
  analysis::Topology t = waters_and_ions();
  analysis::Centres c;
  std::vector<double> mass = {16, 1, 1, 16, 1, 1, 23, 35.5};
  c.add(t, "t.gro", type_of("res_com"), {0, 1, 2}, mass);
  c.add(t, "t.gro", type_of("res_cog"), {3, 4, 5}, mass);
  // Water 1 straddles x = 0 of a 3 nm cube (its H atoms wrapped to the far side); water 2 is
  // inside. Centres of the whole molecules, wherever the wrapped atoms lie.
  std::vector<float> xyz = {0.05f, 1.0f, 1.0f, 2.95f, 1.0f, 1.0f, 0.1f, 1.08f,
                            1.0f,  1.0f, 1.0f, 1.0f,  1.1f, 1.0f, 1.0f, 1.0f,
                            1.1f,  1.0f, 0,    0,     0,    0,    0,    0};
  std::vector<float> out(6);
  CHECK(c.compute(xyz.data(), cube(3), BoxKind::orthorhombic, out.data()) == -1);
  const double com_x = (16 * 0.05 + 1 * -0.05 + 1 * 0.1) / 18.0;
  CHECK(out[0] == doctest::Approx(com_x).epsilon(1e-6));
  CHECK(out[1] == doctest::Approx((16 + 1 + 1.08) / 18.0).epsilon(1e-6));
  CHECK(out[3] == doctest::Approx(3.1 / 3).epsilon(1e-6));
  CHECK(out[4] == doctest::Approx(3.1 / 3).epsilon(1e-6));
  // Triclinic (a rhombic dodecahedron): an atom moved by a lattice vector leaves the centre.
  const BoxMatrix d = rhombic_dodecahedron(3);
  std::vector<float> moved = xyz;
  for (int i = 3; i < 6; ++i) moved[static_cast<size_t>(i)] += static_cast<float>(d[6 + i - 3]);
  std::vector<float> centre(6), centre_moved(6);
  c.compute(xyz.data(), d, BoxKind::triclinic, centre.data());
  c.compute(moved.data(), d, BoxKind::triclinic, centre_moved.data());
  for (int i = 0; i < 3; ++i) CHECK(centre_moved[i] == doctest::Approx(centre[i]).epsilon(1e-6));
  CHECK(centre[0] == doctest::Approx(com_x).epsilon(1e-6));
  // A non-finite coordinate: the first such atom of a centre is named.
  xyz[3 * 4 + 1] = std::numeric_limits<float>::quiet_NaN();
  CHECK(c.compute(xyz.data(), cube(3), BoxKind::orthorhombic, out.data()) == 4);
}

TEST_CASE("molecules, masses and the errors of centres") {
  analysis::Topology t = waters_and_ions();
  analysis::Centres c;
  const auto refused = [&](const PositionType& type, const std::vector<double>& mass,
                           const std::string& part) {
    try {
      c.add(t, "t.gro", type, {0, 1, 2}, mass);
      FAIL("expected an error");
    } catch (const UsageError& e) {
      CHECK_MESSAGE(test::contains(e.what(), part), e.what());
    }
  };
  refused(type_of("mol_com"), {}, "mol_com positions need molecules, which only a .tpr");
  refused(type_of("res_com"), std::vector<double>(8, 0.0), "has no mass");
  t.molecule_index = {0, 0, 0, 1, 1, 1, 2, 3};
  CHECK(c.add(t, "t.tpr", type_of("mol_cog"), {0, 1, 2, 6}, {}) == std::vector<int>{8, 6});

  // Masses: a .tpr's own; else by element, stated or guessed from the name (and said so).
  const analysis::AtomMasses guessed = analysis::atom_masses(t, {0, 1, 6}, "t.gro");
  CHECK(guessed.mass[0] == doctest::Approx(15.9994));
  CHECK(guessed.mass[1] == doctest::Approx(1.0079));
  CHECK(guessed.mass[6] == doctest::Approx(22.9897));
  CHECK(guessed.mass[7] == 0);  // not asked for
  CHECK(guessed.guesses == std::vector<std::string>{"HW1 -> H", "NA -> Na", "OW -> O"});
  t.masses = {15.9994f, 1.008f, 1.008f, 15.9994f, 1.008f, 1.008f, 22.99f, 35.45f};
  const analysis::AtomMasses own = analysis::atom_masses(t, {1}, "t.tpr");
  CHECK(own.mass[1] == doctest::Approx(1.008));
  CHECK(own.guesses.empty());
  t.masses.clear();
  t.atom_names.set(1, "MW");  // TIP4P's virtual site: no element to guess
  CHECK_THROWS_WITH_AS(analysis::atom_masses(t, {1}, "t.gro"),
                       doctest::Contains("atom 2 ('MW'): cannot tell its element"), UsageError);
}
