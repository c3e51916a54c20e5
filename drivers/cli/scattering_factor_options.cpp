#include "drivers/cli/scattering_factor_options.hpp"

#include <algorithm>

#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

std::string no_such_species(const std::string& name) {
  return "--maff '" + excerpt(name) + "': the run has no species '" + excerpt(name) + "'";
}

}  // namespace

void add_form_factor_options(CLI::App* cmd, ScatteringOptions& o) {
  cmd->add_option("--form-factors", o.form_factors,
                  "X-ray: itc (International Tables C 1992, Cromer-Mann) or wk (Waasmaier & "
                  "Kirfel 1995)")
      ->capture_default_str();
  cmd->add_option("--hydrogen", o.hydrogen,
                  "X-ray H: bonded (International Tables' SDS hydrogen) or isolated (the free "
                  "atom, exact)")
      ->capture_default_str();
  cmd->add_option("--water-factors", o.water_factors,
                  "X-ray: standard, or maff (Sorenson et al. 2000) for the O and H species of "
                  "water residues (SOL, WAT, HOH, TIP3, SPC, ...)")
      ->capture_default_str();
  cmd->add_option("--maff", o.maff, "X-ray: SPECIES (repeat or comma-separate) that get MAFF")
      ->delimiter(',');
}

std::vector<std::string> form_factor_problems(const ScatteringOptions& o, bool neutron,
                                              const std::vector<std::string>& species,
                                              const std::string& radiation_flag) {
  std::vector<std::string> p;
  try {
    analysis::parse_form_factor_set(o.form_factors);
  } catch (const UsageError& e) {
    p.push_back(e.what());
  }
  try {
    analysis::parse_hydrogen_model(o.hydrogen);
  } catch (const UsageError& e) {
    p.push_back(e.what());
  }
  if (o.water_factors != "standard" && o.water_factors != "maff")
    p.push_back("--water-factors must be standard or maff, got '" + excerpt(o.water_factors) + "'");
  // A neutron sees nuclei: the X-ray choices would change nothing, so they are refused.
  const std::string only =
      " changes X-ray form factors only (" + radiation_flag + " neutron uses scattering lengths)";
  if (neutron) {
    if (o.form_factors != "itc") p.push_back("--form-factors" + only);
    if (o.hydrogen != "bonded") p.push_back("--hydrogen" + only);
    if (o.water_factors != "standard") p.push_back("--water-factors" + only);
    if (!o.maff.empty()) p.push_back("--maff" + only);
  }
  if (!species.empty())
    for (const std::string& name : o.maff)
      if (std::find(species.begin(), species.end(), name) == species.end())
        p.push_back(no_such_species(name));
  return p;
}

void choose_maff(const ScatteringOptions& o, std::vector<analysis::SpeciesScatterer>& species) {
  for (const std::string& name : o.maff) {
    const auto named = [&name](const analysis::SpeciesScatterer& s) { return s.species == name; };
    if (std::none_of(species.begin(), species.end(), named))
      throw UsageError(no_such_species(name));
  }
  bool any = false;
  for (analysis::SpeciesScatterer& s : species) {
    const std::string element = analysis::label_element(s.label);
    s.maff = std::find(o.maff.begin(), o.maff.end(), s.species) != o.maff.end() ||
             (o.water_factors == "maff" && s.water && (element == "O" || element == "H"));
    any = any || s.maff;
  }
  if (o.water_factors == "maff" && !any)
    throw UsageError(
        "--water-factors maff: no species is the O or H of water (every atom in a residue SOL, "
        "WAT, HOH, TIP3, SPC, ...): name them with --maff SPECIES");
}

}  // namespace pairhist
