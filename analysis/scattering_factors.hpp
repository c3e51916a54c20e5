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

/// Which built-in X-ray form factors (`--form-factors`): International Tables Vol. C (1992)
/// Table 6.1.1.4 (Cromer-Mann, four Gaussians), or Waasmaier & Kirfel (1995) (five).
enum class FormFactorSet { itc, wk };
/// Which hydrogen (`--hydrogen`): International Tables' bonded (SDS) H, or the free atom's exact
/// 1s form factor.
enum class HydrogenModel { bonded, isolated };

/// Parse "itc" | "wk" and "bonded" | "isolated"; throw UsageError otherwise.
FormFactorSet parse_form_factor_set(const std::string& name);
HydrogenModel parse_hydrogen_model(const std::string& name);

/// The built-in X-ray form factors asked for.
struct XrayFactorChoice {
  FormFactorSet set = FormFactorSet::itc;
  HydrogenModel hydrogen = HydrogenModel::bonded;
};

/// Sorenson, Hura, Glaeser & Head-Gordon, J. Chem. Phys. 113, 9149 (2000): water's O and H
/// modified (MAFF) by f'(q) = f(q) [1 + alpha exp(-q^2 / (2 delta^2))], q in 1/A, for the
/// valence electrons the O-H bonds move from H to O (8 x 0.12 = 2 x 0.48 electrons: neutral).
constexpr double kMaffAlphaO = 0.12, kMaffAlphaH = -0.48, kMaffDeltaPerA = 2.2;
/// The Bohr radius in Angstrom (CODATA 2018: 0.529177210903 A).
constexpr double kBohrRadiusA = 0.529177210903;

/// One scatterer's weight as a function of q: the Gaussian (Cromer-Mann, Waasmaier-Kirfel) form
///   w(q) = c + sum_i a_i exp(-b_i s^2),  s = sin(theta) / lambda = q / (4 pi), in 1/Angstrom,
/// which with all a_i = 0 is the constant c (a neutron scattering length in fm, or a constant
/// X-ray weight in electrons); or, with hydrogen_1s, the free hydrogen atom's exact form factor
///   f(q) = 1 / (1 + (q a0 / 2)^2)^2   (the Fourier transform of exp(-2r/a0) / (pi a0^3));
/// times 1 + maff_alpha exp(-q^2 / (2 delta^2)) where maff_alpha is not 0 (MAFF, above).
struct ScattererWeight {
  std::array<double, 5> a{}, b{};
  double c = 0;
  std::string source;  // where the numbers come from, for output headers
  bool hydrogen_1s = false;
  double maff_alpha = 0;

  /// w at q in 1/nm.
  double at(double q_nm) const;
  bool constant() const { return a == std::array<double, 5>{} && !hydrogen_1s && maff_alpha == 0; }
};

/// An element or ion label in the tables' spelling: the element symbol capitalised ("NA" and
/// "na" -> "Na"), an ion's charge as a number and a sign ("Na+", "Na1+", "NA+" -> "Na1+", "Ca++"
/// -> "Ca2+", "Cl-" -> "Cl1-"), hydrogen isotopes "1H", "D" ("2H" -> "D"), "T" ("3H" -> "T").
/// Returns "" when `label` is not of that shape (the symbol itself is not checked here).
std::string canonical_scatterer_label(const std::string& label);

/// The element part of a canonical label ("Na1+" -> "Na", "D" -> "H", "1H" -> "H").
std::string label_element(const std::string& canonical);

/// Built-in weights of a canonical label, or nullptr. X-ray: the set `xray` names (H..Ca, their
/// common ions and a few heavier ones; hydrogen and its isotopes as `xray.hydrogen` says);
/// neutron: NIST / Sears (1992) coherent scattering lengths, where an ion scatters as its
/// nucleus (its element).
const ScattererWeight* builtin_scatterer(const std::string& canonical, Radiation r,
                                         const XrayFactorChoice& xray = {});

/// Every label the built-in table of `r` holds, in table order (the X-ray sets hold the same).
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
  bool water = false;      // every atom in a water residue (SOL, HOH, WAT, TIP3, ...)
  bool maff = false;       // X-ray, O or H of water: Sorenson et al.'s modified form factor
};

/// The weight of each species: the user table's entry for the species name, else for its label,
/// else the built-in one (of `xray`'s set). Neutron hydrogen with deuterium fraction x:
/// (1 - x) b_H + x b_D (the mean coherent length; the isotope disorder adds only incoherent,
/// q-independent scattering, which is left out). A species with `maff` gets its weight times
/// MAFF's factor (kMaffAlphaO or kMaffAlphaH). Throws UsageError naming the species for a label
/// without a weight, a deuterium fraction outside [0, 1] or one given for an element other than
/// H, and MAFF for neutrons or for a species that is neither O nor H.
std::vector<ScattererWeight> species_weights(const std::vector<SpeciesScatterer>& species,
                                             Radiation r, const ScattererTable& user,
                                             const XrayFactorChoice& xray = {});

/// Whether a residue name is water's: SOL, WAT, HOH, H2O, TIP3..TIP5, TP3, T3P, T4P, T5P, SPC,
/// SPCE, OPC, SWM4 (case does not matter).
bool water_residue(const std::string& residue_name);

/// weights[s][iq] = species_weights[s].at(q[iq]).
std::vector<std::vector<double>> weights_on_grid(const std::vector<ScattererWeight>& weights,
                                                 const std::vector<double>& q);

}  // namespace pairhist::analysis
