// `pairhist scattering SOLUTION --subtract SOLVENT`: the excess intensity of a solute, the
// solution run's Debye intensity less the solvent run's on the same q grid, with the same
// weights (CAPRIQORN's difference of a solution and a pure-solvent system). docs/scattering.md,
// "Excess intensity".
#pragma once

#include "drivers/cli/scattering_command.hpp"

namespace pairhist {

/// The intensities of options.input (the solution) and options.subtract (the solvent), each as
/// compute_scattering() gives it (the mean intensity of one frame of that run) with the same
/// options (--element and --deuterate of a species apply to it in both runs), and their
/// difference: total, every partial of the solution (less the solvent's partial of the same
/// pair, where the solvent has those species), and both totals. Writes nothing; `stem` is
/// "excess". Throws UsageError with --structure-factor, InputError naming both runs where they
/// do not subtract: a solvent species the solution lacks, one species scattering differently in
/// the two, one run periodic and the other not, periodic runs cut at different r_max; and as
/// compute_scattering() for either run.
ScatteringResult compute_excess(const ScatteringOptions& options);

}  // namespace pairhist
