// Scattering weights (analysis/scattering_factors) and the element of each species
// (analysis/scattering_elements).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/scattering_elements.hpp"
#include "analysis/scattering_factors.hpp"
#include "pairhist/errors.hpp"

using namespace pairhist;
using namespace pairhist::analysis;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// q in 1/nm of s = sin(theta)/lambda in 1/A.
double q_of_s(double s) {
  return 4 * kPi * s * 10;
}

/// Electrons of a canonical label: Z less the charge.
int electrons(const std::string& label) {
  static const std::map<std::string, int> z = {
      {"H", 1},   {"He", 2},  {"Li", 3},  {"Be", 4},  {"B", 5},   {"C", 6},
      {"N", 7},   {"O", 8},   {"F", 9},   {"Ne", 10}, {"Na", 11}, {"Mg", 12},
      {"Al", 13}, {"Si", 14}, {"P", 15},  {"S", 16},  {"Cl", 17}, {"Ar", 18},
      {"K", 19},  {"Ca", 20}, {"Fe", 26}, {"Zn", 30}, {"Br", 35}, {"Rb", 37}};
  const std::string element = label_element(label);
  REQUIRE(z.count(element) == 1);
  int charge = 0;
  if (label.size() > element.size()) {
    charge = std::stoi(label.substr(element.size(), label.size() - element.size() - 1));
    if (label.back() == '-') charge = -charge;
  }
  return z.at(element) - charge;
}

Topology water_and_ions() {
  Topology top;
  const char* rows[][2] = {{"OW", "SOL"},  {"HW1", "SOL"}, {"HW2", "SOL"}, {"OW", "SOL"},
                           {"HW1", "SOL"}, {"HW2", "SOL"}, {"NA", "NA"},   {"CL", "CL"}};
  int residue = 1;
  for (size_t i = 0; i < 8; ++i) {
    top.atom_names.push_back(rows[i][0]);
    top.residue_names.push_back(rows[i][1]);
    if (i > 0 && (rows[i][0] == std::string("OW") || i >= 6)) ++residue;
    top.residue_numbers.push_back(residue);
  }
  return top;
}

}  // namespace

TEST_CASE("X-ray form factors: f(0) is the number of electrons, published values") {
  for (const std::string& label : builtin_labels(Radiation::xray)) {
    CAPTURE(label);
    // The fits miss f(0) = Z - charge by up to 0.022 (Rb); a mistyped coefficient would not.
    CHECK(std::abs(builtin_scatterer(label, Radiation::xray)->at(0) - electrons(label)) < 0.025);
  }
  // International Tables C, Table 6.1.1.1 (Hartree-Fock): O and C at sin(theta)/lambda = 0.5/A.
  CHECK(builtin_scatterer("O", Radiation::xray)->at(q_of_s(0.5)) ==
        doctest::Approx(2.338).epsilon(0.002));
  CHECK(builtin_scatterer("C", Radiation::xray)->at(q_of_s(0.5)) ==
        doctest::Approx(1.685).epsilon(0.002));
  // Isotopes scatter X-rays as their element.
  CHECK(builtin_scatterer("D", Radiation::xray) == builtin_scatterer("H", Radiation::xray));
  CHECK(builtin_scatterer("Xx", Radiation::xray) == nullptr);
  CHECK(builtin_scatterer("Na2+", Radiation::xray) == nullptr);
}

TEST_CASE("neutron scattering lengths: NIST values, ions as their nucleus") {
  CHECK(builtin_scatterer("H", Radiation::neutron)->c == -3.7390);
  CHECK(builtin_scatterer("D", Radiation::neutron)->c == 6.671);
  CHECK(builtin_scatterer("O", Radiation::neutron)->c == 5.803);
  CHECK(builtin_scatterer("Na1+", Radiation::neutron)->c == 3.63);
  CHECK(builtin_scatterer("Cl1-", Radiation::neutron)->at(50) == 9.5770);
}

#ifdef PAIRHIST_GMX_TOP_DIR
TEST_CASE("the tables agree with GROMACS's sfactor.dat and nsfactor.dat") {
  // sfactor.dat: "Elem Z a1 a2 a3 a4 b1 b2 b3 b4 c" (the same Cromer-Mann fits, 3 decimals).
  std::ifstream sf(PAIRHIST_GMX_TOP_DIR "/sfactor.dat");
  REQUIRE(sf);
  int compared = 0;
  for (std::string line; std::getline(sf, line);) {
    if (line.empty() || line[0] == ';') continue;
    std::istringstream in(line);
    std::string element;
    int z = 0;
    ScattererWeight gmx;
    in >> element >> z >> gmx.a[0] >> gmx.a[1] >> gmx.a[2] >> gmx.a[3] >> gmx.b[0] >> gmx.b[1] >>
        gmx.b[2] >> gmx.b[3] >> gmx.c;
    REQUIRE(in);
    const ScattererWeight* ours = builtin_scatterer(element, Radiation::xray);
    if (ours == nullptr) continue;  // Se, Kr, I, Xe: not in our table
    // GROMACS rounds every coefficient to 3 decimals: each a_i and c moves f by up to 5e-4, each
    // b_i by up to 5e-4 a_i s^2 (N's and Cl's b_1 near 0.01 with a_1 near 12 show it).
    double sum_a = 0;
    for (double a : gmx.a) sum_a += std::abs(a);
    for (double s = 0; s <= 2.0; s += 0.05) {
      CAPTURE(element);
      CAPTURE(s);
      CHECK(std::abs(ours->at(q_of_s(s)) - gmx.at(q_of_s(s))) <= 5e-4 * (5 + sum_a * s * s) + 1e-9);
    }
    ++compared;
  }
  CHECK(compared >= 22);
  // nsfactor.dat: "Elem P N b": its H is 1H (P 1, N 0).
  std::ifstream nsf(PAIRHIST_GMX_TOP_DIR "/nsfactor.dat");
  REQUIRE(nsf);
  compared = 0;
  for (std::string line; std::getline(nsf, line);) {
    if (line.empty() || line[0] == ';') continue;
    std::istringstream in(line);
    std::string element;
    int protons = 0, neutrons = 0;
    double b = 0;
    in >> element >> protons >> neutrons >> b;
    REQUIRE(in);
    const std::string label = element == "H" ? "1H" : element;
    const ScattererWeight* ours = builtin_scatterer(label, Radiation::neutron);
    if (ours == nullptr) continue;
    CAPTURE(element);
    CHECK(std::abs(ours->c - b) < 1e-3);
    ++compared;
  }
  CHECK(compared >= 14);
}
#endif

TEST_CASE("labels: element symbols, ions, hydrogen isotopes") {
  CHECK(canonical_scatterer_label("NA") == "Na");
  CHECK(canonical_scatterer_label(" o ") == "O");
  CHECK(canonical_scatterer_label("na+") == "Na1+");
  CHECK(canonical_scatterer_label("Na1+") == "Na1+");
  CHECK(canonical_scatterer_label("Ca++") == "Ca2+");
  CHECK(canonical_scatterer_label("CA2+") == "Ca2+");
  CHECK(canonical_scatterer_label("Cl-") == "Cl1-");
  CHECK(canonical_scatterer_label("2H") == "D");
  CHECK(canonical_scatterer_label("d") == "D");
  CHECK(canonical_scatterer_label("3H") == "T");
  CHECK(canonical_scatterer_label("1H") == "1H");
  for (const char* bad : {"", "C13", "Na+-", "Ca2++", "+", "Na0+", "O2x"})
    CHECK(canonical_scatterer_label(bad) == "");
  CHECK(label_element("Cl1-") == "Cl");
  CHECK(label_element("D") == "H");
}

TEST_CASE("species weights: user table, deuteration, errors name the species") {
  std::vector<SpeciesScatterer> species{{"O", "O", "", 0}, {"H", "H", "", 0.5}};
  const auto neutron = species_weights(species, Radiation::neutron, {});
  CHECK(neutron[0].c == 5.803);
  CHECK(neutron[1].c == doctest::Approx(0.5 * -3.7390 + 0.5 * 6.671));
  species[1].deuterium = 1;
  CHECK(species_weights(species, Radiation::neutron, {})[1].c == doctest::Approx(6.671));
  species[1].deuterium = 0;
  ScattererTable user;
  user["O"] = {{}, {}, 7.0, "user"};  // by label
  user["H"] = {{}, {}, 2.0, "user"};  // by species name (also a label here)
  CHECK(species_weights(species, Radiation::xray, user)[0].at(30) == 7.0);
  user["OW"] = {{}, {}, 9.0, "user"};
  species[0].species = "OW";
  CHECK(species_weights(species, Radiation::xray, user)[0].at(30) == 9.0);

  species[1].deuterium = 1.5;
  CHECK_THROWS_WITH_AS(species_weights(species, Radiation::neutron, {}),
                       doctest::Contains("not in [0, 1]"), UsageError);
  species[1].deuterium = 0;
  species[0].deuterium = 0.2;
  CHECK_THROWS_WITH_AS(species_weights(species, Radiation::neutron, {}),
                       doctest::Contains("only hydrogen"), UsageError);
  species[0].deuterium = 0;
  species[0].label = "Xx";
  CHECK_THROWS_WITH_AS(species_weights(species, Radiation::xray, {}),
                       doctest::Contains("species OW: no xray scattering weight for 'Xx'"),
                       UsageError);
  species[0].label = "O";
  ScattererTable q_dependent;
  q_dependent["O"] = *builtin_scatterer("O", Radiation::xray);
  CHECK_THROWS_AS(species_weights(species, Radiation::neutron, q_dependent), UsageError);
}

TEST_CASE("guessing elements from atom names") {
  CHECK(guess_element("OW", "SOL") == "O");
  CHECK(guess_element("HW1", "SOL") == "H");
  CHECK(guess_element("1HB", "ALA") == "H");
  CHECK(guess_element("CA", "ALA") == "C");
  CHECK(guess_element("CA", "CA") == "Ca");
  CHECK(guess_element("NA", "NA") == "Na");
  CHECK(guess_element("Na+", "Na+") == "Na");
  CHECK(guess_element("SOD", "SOD") == "Na");
  CHECK(guess_element("CLA", "CLA") == "Cl");
  CHECK(guess_element("MW", "SOL") == "");
}

TEST_CASE("one element per species, from the topology or guessed; monatomic ions") {
  Topology top = water_and_ions();
  const std::vector<std::string> names{"O", "H", "Na", "Cl"};
  const std::vector<std::vector<int>> atoms{{0, 3}, {1, 2, 4, 5}, {6}, {7}};
  ScattererAssignment a = assign_scatterers(top, names, atoms, {});
  CHECK(a.species[0].label == "O");
  CHECK(a.species[1].label == "H");
  CHECK(a.species[2].label == "Na1+");
  CHECK(a.species[3].label == "Cl1-");
  CHECK(a.species[0].origin == "guessed from atom names");
  CHECK(a.guesses ==
        std::vector<std::string>{"CL -> Cl", "HW1 -> H", "HW2 -> H", "NA -> Na", "OW -> O"});

  // Elements and charges from the topology (as a .tpr gives them): no guesses; a neutral
  // monatomic atom stays neutral.
  top.elements = {"O", "H", "H", "O", "H", "H", "Na", "Cl"};
  top.charges = {-0.8476f, 0.4238f, 0.4238f, -0.8476f, 0.4238f, 0.4238f, 1.0f, 0.0f};
  a = assign_scatterers(top, names, atoms, {});
  CHECK(a.guesses.empty());
  CHECK(a.species[2].label == "Na1+");
  CHECK(a.species[3].label == "Cl");
  CHECK(a.species[0].origin == "topology elements");

  // What the user sets wins; a species of several elements is refused, never averaged.
  a = assign_scatterers(top, names, atoms, {{"Na", "Na"}});
  CHECK(a.species[2].label == "Na");
  CHECK(a.species[2].origin == "set by --element");
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"W"}, {{0, 1, 2}}, {}),
                       doctest::Contains("species W holds atoms of several elements"), UsageError);
  CHECK_THROWS_WITH_AS(assign_scatterers(top, names, atoms, {{"O", "Qq9"}}),
                       doctest::Contains("--element O=Qq9"), UsageError);
  top.elements = {};
  top.atom_names.set(0, "MW");
  CHECK_THROWS_WITH_AS(assign_scatterers(top, names, atoms, {}),
                       doctest::Contains("cannot tell the element of atom 1 ('MW')"), UsageError);
}

TEST_CASE("one element per species: every atom counts, however many of one kind come first") {
  // Many waters, then atoms like the last ones but for their solitude or charge: each must
  // still be told apart (an atom's kind is looked up among the last few met, not taken as
  // the one before it).
  Topology top;
  std::vector<int> oxygens, hydrogens, sodiums;
  int residue = 0;
  for (int w = 0; w < 100; ++w) {
    ++residue;
    for (const char* name : {"OW", "HW1", "HW2"}) {
      (name[0] == 'O' ? oxygens : hydrogens).push_back(top.natoms());
      top.atom_names.push_back(name);
      top.residue_names.push_back("SOL");
      top.residue_numbers.push_back(residue);
    }
  }
  for (int k = 0; k < 20; ++k) {  // sodium ions, alone in their residues
    sodiums.push_back(top.natoms());
    top.atom_names.push_back("NA");
    top.residue_names.push_back("NA");
    top.residue_numbers.push_back(++residue);
  }
  ScattererAssignment a =
      assign_scatterers(top, {"O", "H", "Na"}, {oxygens, hydrogens, sodiums}, {});
  CHECK(a.species[1].label == "H");
  CHECK(a.species[2].label == "Na1+");

  // The last two sodiums share a residue: not alone, so neutral.
  top.residue_numbers.back() = top.residue_numbers[top.residue_numbers.size() - 2];
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"Na"}, {sodiums}, {}),
                       doctest::Contains("species Na holds atoms of several elements or charges: "
                                         "NA (Na1+), NA (Na)"),
                       UsageError);
  top.residue_numbers.back() = residue;

  // Charges from the topology: one ion of another charge among many.
  top.charges.assign(static_cast<size_t>(top.natoms()), 0.0f);
  for (int i : sodiums) top.charges[static_cast<size_t>(i)] = 1.0f;
  CHECK(assign_scatterers(top, {"Na"}, {sodiums}, {}).species[0].label == "Na1+");
  top.charges[static_cast<size_t>(sodiums[15])] = 2.0f;
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"Na"}, {sodiums}, {}),
                       doctest::Contains("NA (Na1+), NA (Na2+)"), UsageError);

  // More kinds than are remembered, then one of another element after them.
  Topology carbons;
  std::vector<int> all;
  for (int k = 0; k < 12; ++k) {
    all.push_back(carbons.natoms());
    carbons.atom_names.push_back("C" + std::to_string(k));
    carbons.residue_names.push_back("LIG");
    carbons.residue_numbers.push_back(1);
  }
  for (int k = 0; k < 12; ++k) {
    all.push_back(carbons.natoms());
    carbons.atom_names.push_back("C" + std::to_string(k));
    carbons.residue_names.push_back("LIG");
    carbons.residue_numbers.push_back(2);
  }
  CHECK(assign_scatterers(carbons, {"C"}, {all}, {}).species[0].label == "C");
  all.push_back(carbons.natoms());
  carbons.atom_names.push_back("N1");
  carbons.residue_names.push_back("LIG");
  carbons.residue_numbers.push_back(2);
  CHECK_THROWS_WITH_AS(assign_scatterers(carbons, {"C"}, {all}, {}),
                       doctest::Contains("C0 (C), N1 (N)"), UsageError);
}

TEST_CASE("one element per species: the first atom in order is the one reported, however large") {
  // 40,000 waters: the hydrogens are read in stretches over the cores; what is reported is
  // still the first atom in the species' order.
  Topology top;
  std::vector<int> hydrogens;
  for (int w = 0; w < 40000; ++w)
    for (const char* name : {"OW", "HW1", "HW2"}) {
      if (name[0] == 'H') hydrogens.push_back(top.natoms());
      top.atom_names.push_back(name);
      top.residue_names.push_back("SOL");
      top.residue_numbers.push_back(w + 1);
    }
  CHECK(assign_scatterers(top, {"H"}, {hydrogens}, {}).species[0].label == "H");
  top.atom_names.set(110000, "MW");  // in a later stretch
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"H"}, {hydrogens}, {}),
                       doctest::Contains("cannot tell the element of atom 110001 ('MW')"),
                       UsageError);
  top.atom_names.set(1000, "MW");  // and in the first
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"H"}, {hydrogens}, {}),
                       doctest::Contains("cannot tell the element of atom 1001 ('MW')"),
                       UsageError);
  top.atom_names.set(1000, "HW1");
  top.atom_names.set(110000, "HW2");
  top.atom_names.set(119999, "OW");  // the very last hydrogen
  CHECK_THROWS_WITH_AS(assign_scatterers(top, {"H"}, {hydrogens}, {}),
                       doctest::Contains("HW1 (H), OW (O)"), UsageError);
}
