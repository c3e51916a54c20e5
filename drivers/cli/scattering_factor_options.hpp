// The X-ray form factor choices of `pairhist scattering` and `run --scattering` (and Python's
// pairhist.scattering): which set (--form-factors), which hydrogen (--hydrogen), and which
// species get water's modified form factors (--water-factors maff, --maff). docs/scattering.md,
// "Weights".
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/scattering_factors.hpp"
#include "drivers/cli/scattering_inputs.hpp"

namespace pairhist {

/// Adds --form-factors, --hydrogen, --water-factors and --maff to cmd.
void add_form_factor_options(CLI::App* cmd, ScatteringOptions& options);

/// The problems of those options alone, one line each: values that are none of theirs, any of
/// them with neutrons (`neutron`; named by `radiation_flag`), and, where `species` (the run's
/// names) is not empty, --maff of species the run does not have.
std::vector<std::string> form_factor_problems(const ScatteringOptions& options, bool neutron,
                                              const std::vector<std::string>& species,
                                              const std::string& radiation_flag);

/// Sets `maff` of every species: with --water-factors maff the O and H species whose atoms are
/// all in water residues (SpeciesScatterer::water), and those --maff names. Throws UsageError
/// for a --maff name that is no species, and where --water-factors maff finds none.
void choose_maff(const ScatteringOptions& options,
                 std::vector<analysis::SpeciesScatterer>& species);

}  // namespace pairhist
