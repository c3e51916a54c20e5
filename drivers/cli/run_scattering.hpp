// `pairhist run --scattering`: what `pairhist scattering` computes, done at the end of the run
// (and at each completed interval) from the result in memory, with the sums' kernels computed
// while the run counts and the files written at once. docs/performance.md, "Scattering from the
// histograms", says what each part costs.
#pragma once

#include <string>
#include <vector>

#include "drivers/cli/scattering_command.hpp"
#include "io/results/histogram_result_reader.hpp"

namespace pairhist {

/// The kernels of the options' q grid (and window, within-bin rule) for the bins of a run up to
/// r_max (in length_unit, nm or angstrom) in nbins bins, over up to `threads` threads (0: every
/// core); none where they would take over 64 MiB (the sums then compute each q's as they go).
/// Throws as read_scattering_inputs() for a bad grid or option.
ScatteringKernels scattering_kernels(const ScatteringOptions& options, double r_max, int nbins,
                                     const std::string& length_unit, unsigned threads);

/// `pairhist run --scattering`: with options.input the run's output directory, writes there what
/// `pairhist scattering DIR` writes (intensity.csv, .xvg, .h5) and, with
/// options.structure_factor, what `pairhist scattering DIR --structure-factor` writes (sq.csv,
/// .xvg, .h5) as well: the same computations from the pairhist.h5 just written, so the same
/// bytes. `known` as for compute_scattering(); `run`: that pairhist.h5's contents as
/// io::stored_run() makes them from the result in memory, so that it is not read back;
/// `kernels`: scattering_kernels() of the run's bins, computed ahead (used where they fit).
/// Throws as compute_scattering() and write_scattering().
std::vector<ScatteringResult> write_run_scattering(
    const ScatteringOptions& options, const analysis::ScattererAssignment* known = nullptr,
    const io::StoredRun* run = nullptr, const ScatteringKernels* kernels = nullptr);

}  // namespace pairhist
