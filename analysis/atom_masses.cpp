#include "analysis/atom_masses.hpp"

#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "analysis/scattering_elements.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {
// The general entries of GROMACS's atommass.dat (what gmx guesses a .gro's masses from), and
// deuterium, which the scattering labels know.
const std::map<std::string, double> kMasses = {
    {"H", 1.0079},    {"He", 4.0026},   {"Li", 6.941},    {"Be", 9.0122},   {"B", 10.811},
    {"C", 12.0107},   {"N", 14.0067},   {"O", 15.9994},   {"F", 18.9984},   {"Ne", 20.1797},
    {"Na", 22.9897},  {"Mg", 24.305},   {"Al", 26.9815},  {"Si", 28.0855},  {"P", 30.9738},
    {"S", 32.065},    {"Cl", 35.453},   {"Ar", 39.948},   {"K", 39.0983},   {"Ca", 40.078},
    {"Sc", 44.9559},  {"Ti", 47.867},   {"V", 50.9415},   {"Cr", 51.9961},  {"Mn", 54.938},
    {"Fe", 55.845},   {"Co", 58.9332},  {"Ni", 58.6934},  {"Cu", 63.546},   {"Zn", 65.39},
    {"Ga", 69.723},   {"Ge", 72.64},    {"As", 74.9216},  {"Se", 78.96},    {"Br", 79.904},
    {"Kr", 83.8},     {"Rb", 85.4678},  {"Sr", 87.62},    {"Y", 88.9059},   {"Zr", 91.224},
    {"Nb", 92.9064},  {"Mo", 95.94},    {"Tc", 98},       {"Ru", 101.07},   {"Rh", 102.9055},
    {"Pd", 106.42},   {"Ag", 107.8682}, {"Cd", 112.411},  {"In", 114.818},  {"Sn", 118.71},
    {"Sb", 121.76},   {"Te", 127.6},    {"I", 126.9045},  {"Xe", 131.293},  {"Cs", 132.9055},
    {"Ba", 137.327},  {"La", 138.9055}, {"Ce", 140.116},  {"Pr", 140.9077}, {"Nd", 144.24},
    {"Pm", 145},      {"Sm", 150.36},   {"Eu", 151.964},  {"Gd", 157.25},   {"Tb", 158.9253},
    {"Dy", 162.5},    {"Ho", 164.9303}, {"Er", 167.259},  {"Tm", 168.9342}, {"Yb", 173.04},
    {"Lu", 174.967},  {"Hf", 178.49},   {"Ta", 180.9479}, {"W", 183.84},    {"Re", 186.207},
    {"Os", 190.23},   {"Ir", 192.217},  {"Pt", 195.078},  {"Au", 196.9665}, {"Hg", 200.59},
    {"Tl", 204.3833}, {"Pb", 207.2},    {"Bi", 208.9804}, {"Po", 209},      {"At", 210},
    {"Rn", 222},      {"Fr", 223},      {"Ra", 226},      {"Ac", 227},      {"Th", 232.0381},
    {"Pa", 231.0359}, {"U", 238.0289},  {"D", 2.0141}};

// Element symbols by atomic number (1..118).
constexpr const char* kElements[] = {
    "",   "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si",
    "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu",
    "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru",
    "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr",
    "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",
    "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac",
    "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr", "Rf",
    "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};
constexpr long long kLastElement = static_cast<long long>(std::size(kElements)) - 1;
}  // namespace

const char* element_symbol(long long z) {
  return z >= 1 && z <= kLastElement ? kElements[z] : kElements[0];
}

int atomic_number(const std::string& symbol) {
  if (symbol.empty()) return 0;
  for (long long z = 1; z <= kLastElement; ++z)
    if (symbol == kElements[z]) return static_cast<int>(z);
  return 0;
}

double element_mass(const std::string& symbol) {
  const auto it = kMasses.find(symbol);
  return it == kMasses.end() ? 0.0 : it->second;
}

std::string element_of_mass(double mass) {
  // The nearest weight within 0.1 u: CHARMM's masses are these weights to 3-4 decimals, and
  // the closest weights of the table (Ar 39.948, Ca 40.078) lie 0.13 apart.
  std::string nearest;
  double best = 0.1;
  for (const auto& [symbol, weight] : kMasses)
    if (symbol != "D" && std::fabs(weight - mass) <= best)
      nearest = symbol, best = std::fabs(weight - mass);
  return nearest;
}

AtomMasses atom_masses(const Topology& top, const std::vector<int>& atoms,
                       const std::string& topology_path) {
  const auto n = static_cast<size_t>(top.natoms());
  AtomMasses out;
  out.mass.assign(n, 0.0);
  if (top.masses.size() == n) {
    for (int a : atoms) out.mass[static_cast<size_t>(a)] = top.masses[static_cast<size_t>(a)];
    return out;
  }
  std::set<std::string> guessed;
  for (int a : atoms) {
    const auto i = static_cast<size_t>(a);
    std::string element = i < top.elements.size() ? top.elements[i] : "";
    if (element.empty()) {
      element = guess_element(top.atom_names[i],
                              i < top.residue_names.size() ? top.residue_names[i] : "");
      if (!element.empty()) guessed.insert(top.atom_names[i] + " -> " + element);
    }
    out.mass[i] = element_mass(element);
    if (out.mass[i] <= 0)
      throw UsageError(topology_path + ": atom " + std::to_string(a + 1) + " ('" +
                       top.atom_names[i] + "'): " +
                       (element.empty() ? "cannot tell its element"
                                        : "no mass known for element '" + element + "'") +
                       ", so no centre of mass: give a .tpr topology, or use _cog positions");
  }
  out.guesses.assign(guessed.begin(), guessed.end());
  return out;
}

}  // namespace pairhist::analysis
