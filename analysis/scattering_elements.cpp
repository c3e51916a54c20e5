#include "analysis/scattering_elements.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>

#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

std::string upper_letters(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  for (; i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])); ++i)
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
  return out;
}

/// Element symbols with built-in weights (X-ray or neutron).
bool known_element(const std::string& symbol) {
  static const std::set<std::string> known = [] {
    std::set<std::string> s;
    for (Radiation r : {Radiation::xray, Radiation::neutron})
      for (const std::string& label : builtin_labels(r)) s.insert(label_element(label));
    return s;
  }();
  return known.count(symbol) > 0;
}

/// "NA" -> "Na".
std::string symbol_case(const std::string& upper) {
  std::string s = upper;
  for (size_t i = 1; i < s.size(); ++i)
    s[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  return s;
}

/// The usual charge of a monatomic ion of `element`, 0 if there is none.
int usual_ion_charge(const std::string& element) {
  static const std::map<std::string, int> charges = {{"Li", 1}, {"Na", 1},  {"K", 1},   {"Rb", 1},
                                                     {"Cs", 1}, {"Mg", 2},  {"Ca", 2},  {"Zn", 2},
                                                     {"F", -1}, {"Cl", -1}, {"Br", -1}, {"I", -1}};
  const auto it = charges.find(element);
  return it == charges.end() ? 0 : it->second;
}

/// Per atom: whether it is alone in its molecule (a .tpr's molecules) or, without molecules, in
/// its residue (a run of atoms with equal residue number and name).
std::vector<bool> alone(const Topology& top) {
  const auto n = static_cast<size_t>(top.natoms());
  std::vector<bool> out(n, false);
  auto mark_runs = [&](auto same) {
    size_t begin = 0;
    for (size_t i = 1; i <= n; ++i)
      if (i == n || !same(begin, i)) {
        if (i - begin == 1) out[begin] = true;
        begin = i;
      }
  };
  if (top.molecule_index.size() == n) {
    mark_runs([&](size_t a, size_t b) { return top.molecule_index[a] == top.molecule_index[b]; });
  } else if (top.residue_numbers.size() == n && top.residue_names.size() == n) {
    mark_runs([&](size_t a, size_t b) {
      return top.residue_numbers[a] == top.residue_numbers[b] &&
             top.residue_names[a] == top.residue_names[b];
    });
  }
  return out;
}

}  // namespace

std::string guess_element(const std::string& atom_name, const std::string& residue_name) {
  const std::string name = upper_letters(atom_name);
  if (name.empty()) return "";
  static const std::map<std::string, std::string> charmm_ions = {
      {"SOD", "Na"}, {"POT", "K"}, {"CLA", "Cl"}, {"CAL", "Ca"}, {"CES", "Cs"}, {"LIT", "Li"}};
  if (const auto it = charmm_ions.find(name); it != charmm_ions.end()) return it->second;
  if (name.size() >= 2 && name == upper_letters(residue_name)) {
    const std::string two = symbol_case(name.substr(0, 2));
    if (known_element(two)) return two;
  }
  const std::string one = name.substr(0, 1);
  return known_element(one) ? one : "";
}

ScattererAssignment assign_scatterers(const Topology& top, const std::vector<std::string>& names,
                                      const std::vector<std::vector<int>>& species_atoms,
                                      const std::map<std::string, std::string>& explicit_labels) {
  if (names.size() != species_atoms.size())
    throw std::logic_error("assign_scatterers: one atom list per species expected");
  const auto n = static_cast<size_t>(top.natoms());
  const bool has_elements = top.elements.size() == n;
  const bool has_charges = top.charges.size() == n;
  const std::vector<bool> single = alone(top);
  ScattererAssignment out;
  std::set<std::string> guessed;
  using ElementKey = std::tuple<NameColumn::Id, NameColumn::Id, NameColumn::Id>;
  constexpr NameColumn::Id kNoId = ~NameColumn::Id{0};
  struct KnownElement {
    std::string element;
    bool guessed = false;
  };
  std::map<ElementKey, KnownElement> element_of;
  for (size_t s = 0; s < names.size(); ++s) {
    SpeciesScatterer sp;
    sp.species = names[s];
    if (const auto it = explicit_labels.find(names[s]); it != explicit_labels.end()) {
      sp.label = canonical_scatterer_label(it->second);
      if (sp.label.empty())
        throw UsageError("--element " + names[s] + "=" + it->second +
                         ": not an element or ion symbol (e.g. O, Na+, Cl-, Ca2+, D)");
      sp.origin = "set by --element";
      out.species.push_back(sp);
      continue;
    }
    std::set<std::string> labels;
    std::string example_of_each;  // "OW (O), HW1 (H)" for the error message
    bool any_guess = false;
    std::string last_label;
    for (int atom : species_atoms[s]) {
      const auto i = static_cast<size_t>(atom);
      if (i >= n) throw std::logic_error("assign_scatterers: atom index beyond the topology");
      // The element follows from the atom's element, name and residue name: worked out once
      // per distinct combination (a million waters have three).
      const ElementKey key{has_elements ? top.elements.ids()[i] : kNoId, top.atom_names.ids()[i],
                           i < top.residue_names.size() ? top.residue_names.ids()[i] : kNoId};
      auto known = element_of.find(key);
      if (known == element_of.end()) {
        std::string element =
            has_elements ? label_element(canonical_scatterer_label(top.elements[i])) : "";
        const std::string& residue = i < top.residue_names.size() ? top.residue_names[i] : "";
        bool guess = false;
        if (element.empty()) {
          element = guess_element(top.atom_names[i], residue);
          if (element.empty())
            throw UsageError("species " + names[s] + ": cannot tell the element of atom " +
                             std::to_string(atom + 1) + " ('" + top.atom_names[i] +
                             "'): give --element " + names[s] +
                             "=SYMBOL, or leave such atoms "
                             "(virtual sites carry no scattering) out of the species");
          guessed.insert(top.atom_names[i] + " -> " + element);
          guess = true;
        }
        known = element_of.emplace(key, KnownElement{element, guess}).first;
      }
      const std::string& element = known->second.element;
      any_guess = any_guess || known->second.guessed;
      std::string label = element;
      if (single[i]) {
        int charge = usual_ion_charge(element);
        if (has_charges) {
          const double q = top.charges[i];
          charge = std::abs(q - std::round(q)) < 0.05 ? static_cast<int>(std::round(q)) : 0;
        }
        if (charge != 0)
          label = element + std::to_string(std::abs(charge)) + (charge > 0 ? "+" : "-");
      }
      if (label == last_label) continue;
      last_label = label;
      if (labels.insert(label).second)
        example_of_each +=
            (example_of_each.empty() ? "" : ", ") + top.atom_names[i] + " (" + label + ")";
    }
    if (labels.size() > 1)
      throw UsageError("species " + names[s] +
                       " holds atoms of several elements or charges: " + example_of_each +
                       "; scattering needs one species per element (or --element " + names[s] +
                       "=SYMBOL to override)");
    if (labels.empty()) throw UsageError("species " + names[s] + " has no atoms");
    sp.label = *labels.begin();
    sp.origin = any_guess ? "guessed from atom names" : "topology elements";
    if (sp.label != label_element(sp.label))
      sp.origin += has_charges ? ", monatomic, topology charge" : ", monatomic ion";
    out.species.push_back(sp);
  }
  out.guesses.assign(guessed.begin(), guessed.end());
  return out;
}

}  // namespace pairhist::analysis
