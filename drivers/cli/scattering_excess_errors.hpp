// The errors of the sphere excess (`pairhist scattering SOLUTION --subtract SOLVENT` of two
// `run --sphere` runs written in interval blocks). dI is not a difference of the two runs'
// intensities alone: its background term and the density matching take each run's centre
// distances and shell atoms as well, so each block is a whole excess of its own. The runs are
// independent: dI is computed for every block of one run against the whole other run, the
// scatter over those blocks is that run's share of the error, and the two shares add in
// quadrature (the delta method, which also holds for runs of different block counts).
// docs/scattering.md, "Errors".
#pragma once

#include "drivers/cli/scattering_command.hpp"
#include "drivers/cli/scattering_excess_terms.hpp"

namespace pairhist {

/// Where both runs have two or more interval blocks that keep their centre distances: their
/// shares of dI's and every partial's standard error (analysis::block_standard_error over the
/// blocks) in quadrature, attached to `out` (attach_excess_errors()); where both have blocks
/// but one lacks its blocks' centre distances (a run of a pairhist before they were kept), no
/// errors and a header line saying why; else nothing. `solution_intensity` and
/// `solvent_intensity` are the whole runs' Debye intensities, `options` those of the excess.
void add_sphere_excess_errors(const ScatteringOptions& options, const ScatteringInputs& solution,
                              const ScatteringInputs& solvent,
                              const analysis::DebyeIntensity& solution_intensity,
                              const analysis::DebyeIntensity& solvent_intensity,
                              ScatteringResult& out);

}  // namespace pairhist
