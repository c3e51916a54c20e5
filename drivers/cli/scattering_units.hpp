// The units `pairhist scattering` (and `run --scattering`, and Python's pairhist.scattering)
// reads q in and writes q and intensities in: q in 1/nm or 1/A (--q-unit), intensities per frame
// (electrons^2 or fm^2), per solute molecule (--per molecule --molecules N) or absolute in 1/cm
// (--concentration or --number-density). docs/scattering.md, "Units".
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "drivers/cli/scattering_inputs.hpp"

namespace pairhist {

struct ScatteringResult;

/// The classical electron radius (CODATA 2018), cm.
constexpr double kElectronRadiusCm = 2.8179403262e-13;
/// Avogadro's number (exact since 2019), 1/mol.
constexpr double kAvogadro = 6.02214076e23;

/// Adds --q-unit, --per, --molecules, --concentration and --number-density to cmd.
void add_scattering_unit_options(CLI::App* cmd, ScatteringOptions& options);

/// 1/nm per 1/`unit`: 1 for "nm", 10 for "angstrom" or "A". Throws UsageError otherwise.
double per_nm_per_q_unit(const std::string& unit);

/// "1/nm" or "1/A" (what the .h5's q_unit attribute and the headers say).
std::string q_unit_label(const std::string& unit);

/// The problems of the unit options alone, one line each: --q-unit, --per, --molecules,
/// --concentration and --number-density (positive numbers, not both of the last two, which with
/// --per molecule need --molecules).
std::vector<std::string> scattering_unit_problems(const ScatteringOptions& options);

/// The factor from an intensity per frame (electrons^2 or fm^2) to the unit the options ask for,
/// and that unit's name ("electrons^2 per frame", "fm^2 per molecule", "1/cm").
struct IntensityScale {
  double factor = 1;
  std::string unit;
};
IntensityScale intensity_scale(const ScatteringOptions& options, bool xray);

/// True where the options ask for intensities other than per frame.
bool scaled_intensities(const ScatteringOptions& options);

/// UsageError where `pairhist scattering --structure-factor` (or Python's) is asked for scaled
/// intensities: S(q) has none.
void refuse_scaled_structure_factor(const ScatteringOptions& options);

/// Writes r's q (1/nm inside) in the options' unit and its intensities (I, partials, dI) in the
/// unit asked for, in the table, the .h5 data and the intensity arrays alike, with the header
/// saying so (a `units:` line; the line that said q in 1/nm says the unit). Leaves r as it is
/// for the defaults (1/nm, per frame), so that their bytes do not change. A structure factor's
/// q only: S and F are per atom.
void express_scattering_units(const ScatteringOptions& options, ScatteringResult& r);

}  // namespace pairhist
