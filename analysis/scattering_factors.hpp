// Scattering weights of atoms: X-ray atomic form factors f(q) and neutron coherent scattering
// lengths b, built in (tables and their sources in scattering_factors.cpp) or from a user table,
// and the weights of species for the Debye sum (analysis/scattering_debye.hpp).
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

namespace pairhist::analysis {

enum class Radiation { xray, neutron };

/// Parses "xray" (or "x-ray") and "neutron"; throws UsageError otherwise.
Radiation parse_radiation(const std::string& name);
std::string radiation_name(Radiation r);

/// One scatterer's weight as a function of q: the Cromer-Mann form
///   w(q) = c + sum_i a_i exp(-b_i s^2),  s = sin(theta) / lambda = q / (4 pi), in 1/Angstrom,
/// which with all a_i = 0 is the constant c (a neutron scattering length in fm, or a constant
/// X-ray weight in electrons).
struct ScattererWeight {
  std::array<double, 4> a{}, b{};
  double c = 0;
  std::string source;  // where the numbers come from, for output headers

  /// w at q in 1/nm.
  double at(double q_nm) const;
  bool constant() const { return a == std::array<double, 4>{}; }
};

/// An element or ion label in the tables' spelling: the element symbol capitalised ("NA" and
/// "na" -> "Na"), an ion's charge as a number and a sign ("Na+", "Na1+", "NA+" -> "Na1+", "Ca++"
/// -> "Ca2+", "Cl-" -> "Cl1-"), hydrogen isotopes "1H", "D" ("2H" -> "D"), "T" ("3H" -> "T").
/// Returns "" when `label` is not of that shape (the symbol itself is not checked here).
std::string canonical_scatterer_label(const std::string& label);

/// The element part of a canonical label ("Na1+" -> "Na", "D" -> "H", "1H" -> "H").
std::string label_element(const std::string& canonical);

/// Built-in weights of a canonical label, or nullptr. X-ray: International Tables for
/// Crystallography Vol. C (1992), Table 6.1.1.4 (Cromer-Mann coefficients) for H..Ca, their
/// common ions and a few heavier ions; neutron: NIST / Sears (1992) coherent scattering lengths,
/// where an ion scatters as its nucleus (its element).
const ScattererWeight* builtin_scatterer(const std::string& canonical, Radiation r);

/// Every label the built-in table of `r` holds, in table order.
std::vector<std::string> builtin_labels(Radiation r);

/// Weights a user gives (io/scattering/scattering_table_reader.hpp): keyed by a species name, or by
/// an element or ion label (canonical).
using ScattererTable = std::map<std::string, ScattererWeight>;

/// What scatters in one species: every atom of it is `label` (canonical).
struct SpeciesScatterer {
  std::string species;     // species name
  std::string label;       // canonical element or ion label
  std::string origin;      // how the label was decided, for output headers
  double deuterium = 0.0;  // neutron, hydrogen only: the fraction of its atoms that are D
};

/// The weight of each species: the user table's entry for the species name, else for its label,
/// else the built-in one. Neutron hydrogen with deuterium fraction x: (1 - x) b_H + x b_D (the
/// mean coherent length; the isotope disorder adds only incoherent, q-independent scattering,
/// which is left out). Throws UsageError naming the species for a label without a weight, a
/// deuterium fraction outside [0, 1] or one given for an element other than H.
std::vector<ScattererWeight> species_weights(const std::vector<SpeciesScatterer>& species,
                                             Radiation r, const ScattererTable& user);

/// weights[s][iq] = species_weights[s].at(q[iq]).
std::vector<std::vector<double>> weights_on_grid(const std::vector<ScattererWeight>& weights,
                                                 const std::vector<double>& q);

}  // namespace pairhist::analysis
