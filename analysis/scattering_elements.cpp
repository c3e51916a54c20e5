#include "analysis/scattering_elements.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "analysis/parallel_for.hpp"
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

/// What sets an atom's label: its element, atom name and residue name (the key: the element is
/// worked out once per distinct key, and a million waters have three), and for a monatomic ion
/// whether it is alone in its molecule and its charge. Reads the topology's columns in place.
class AtomKinds {
 public:
  using Key = std::array<NameColumn::Id, 3>;  // element, atom name, residue name
  struct Kind {
    Key key{};
    bool single = false;
    float charge = 0;  // of a single atom, where the topology has charges
  };

  explicit AtomKinds(const Topology& top)
      : top_(&top),
        n_(static_cast<size_t>(top.natoms())),
        elements_(top.elements.size() == n_ ? top.elements.ids().data() : nullptr),
        names_(top.atom_names.ids().data()),
        residue_names_(top.residue_names.ids().data()),
        nresidue_names_(top.residue_names.size()),
        // Without molecules, residues: runs of atoms with equal residue number and name.
        molecules_(top.molecule_index.size() == n_ ? top.molecule_index.data() : nullptr),
        residues_(top.residue_numbers.size() == n_ && nresidue_names_ == n_
                      ? top.residue_numbers.data()
                      : nullptr),
        charges_(top.charges.size() == n_ ? top.charges.data() : nullptr) {}

  size_t natoms() const { return n_; }
  bool has_elements() const { return elements_ != nullptr; }
  bool has_charges() const { return charges_ != nullptr; }

  Key key(size_t i) const {
    return {elements_ ? elements_[i] : kNoId, names_[i],
            i < nresidue_names_ ? residue_names_[i] : kNoId};
  }
  Kind of(size_t i) const {
    const bool single = alone(i);
    return {key(i), single, single && charges_ ? charges_[i] : 0.0f};
  }
  /// Whether the label of atom i's key may depend on solitude and charge: with the topology's
  /// charges, or for an element with a usual ion charge (or none known).
  bool ionic(size_t i) const {
    if (charges_) return true;
    std::string element =
        elements_ ? label_element(canonical_scatterer_label(top_->elements[i])) : "";
    if (element.empty())
      element =
          guess_element(top_->atom_names[i], i < nresidue_names_ ? top_->residue_names[i] : "");
    return element.empty() || usual_ion_charge(element) != 0;
  }

 private:
  static constexpr NameColumn::Id kNoId = ~NameColumn::Id{0};

  /// Whether atom i is alone in its molecule (a .tpr's molecules) or, without molecules, in its
  /// residue: neither neighbour shares it.
  bool alone(size_t i) const {
    if (!molecules_ && !residues_) return false;
    return (i == 0 || !together(i - 1, i)) && (i + 1 == n_ || !together(i, i + 1));
  }
  bool together(size_t a, size_t b) const {
    if (molecules_) return molecules_[a] == molecules_[b];
    return residues_[a] == residues_[b] && residue_names_[a] == residue_names_[b];
  }

  const Topology* top_;
  size_t n_;
  const NameColumn::Id *elements_, *names_, *residue_names_;  // one id per name
  size_t nresidue_names_;
  const int *molecules_, *residues_;
  const float* charges_;
};

/// The atoms of [begin, end) whose kind none of the last few atoms before them had (a water's
/// hydrogens alternate between two kinds), in order, into `out`. `kinds` is a copy, whose
/// columns' addresses stay in registers.
void first_of_kinds(const AtomKinds kinds, const int* begin, const int* end,
                    std::vector<int>& out) {
  struct Met {
    AtomKinds::Kind kind;
    bool ionic = false;  // else the key alone tells the label
  };
  std::array<Met, 8> recent;
  size_t nrecent = 0, next = 0;
  for (const int* a = begin; a != end; ++a) {
    const auto i = static_cast<size_t>(*a);
    if (i >= kinds.natoms())
      throw std::logic_error("assign_scatterers: atom index beyond the topology");
    const AtomKinds::Key key = kinds.key(i);
    std::optional<AtomKinds::Kind> kind;  // asked where the label may depend on it
    bool seen = false;
    for (size_t k = 0; k < nrecent && !seen; ++k) {
      const Met& m = recent[k];
      if (m.kind.key != key) continue;
      if (!kind && m.ionic) kind = kinds.of(i);
      seen = !m.ionic || (m.kind.single == kind->single && m.kind.charge == kind->charge);
    }
    if (seen) continue;
    out.push_back(*a);
    recent[next] = {kind ? *kind : kinds.of(i), kinds.ionic(i)};
    next = (next + 1) % recent.size();
    nrecent = std::max(nrecent, next == 0 ? recent.size() : next);
  }
}

/// first_of_kinds() of `atoms` in stretches of 64k atoms over the cores, a few nanoseconds an
/// atom: each other atom repeats the label of one before it.
std::vector<int> first_of_kinds(const AtomKinds& kinds, const std::vector<int>& atoms) {
  constexpr size_t kStretch = size_t{1} << 16;
  const size_t stretches = (atoms.size() + kStretch - 1) / kStretch;
  std::vector<std::vector<int>> firsts(stretches);
  parallel_for_each(stretches, 0, 4, [&](size_t c) {
    const int* begin = atoms.data() + c * kStretch;
    first_of_kinds(kinds, begin, begin + std::min(kStretch, atoms.size() - c * kStretch),
                   firsts[c]);
  });
  std::vector<int> out;
  for (const std::vector<int>& f : firsts) out.insert(out.end(), f.begin(), f.end());
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
  const AtomKinds kinds(top);
  ScattererAssignment out;
  std::set<std::string> guessed;
  struct KnownElement {
    std::string element;
    bool guessed = false;
  };
  std::map<AtomKinds::Key, KnownElement> element_of;
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
    bool any_guess = false, water = true;
    std::string last_label;
    // The other atoms repeat the kinds, so the labels, of these.
    for (int atom : first_of_kinds(kinds, species_atoms[s])) {
      const auto i = static_cast<size_t>(atom);
      const AtomKinds::Kind kind = kinds.of(i);
      auto known = element_of.find(kind.key);
      if (known == element_of.end()) {
        std::string element =
            kinds.has_elements() ? label_element(canonical_scatterer_label(top.elements[i])) : "";
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
        known = element_of.emplace(kind.key, KnownElement{element, guess}).first;
      }
      const std::string& element = known->second.element;
      any_guess = any_guess || known->second.guessed;
      water = water && i < top.residue_names.size() && water_residue(top.residue_names[i]);
      std::string label = element;
      if (kind.single) {
        int charge = usual_ion_charge(element);
        if (kinds.has_charges()) {
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
    sp.water = water;
    sp.origin = any_guess ? "guessed from atom names" : "topology elements";
    if (sp.label != label_element(sp.label))
      sp.origin += kinds.has_charges() ? ", monatomic, topology charge" : ", monatomic ion";
    out.species.push_back(sp);
  }
  out.guesses.assign(guessed.begin(), guessed.end());
  return out;
}

}  // namespace pairhist::analysis
