// `pairhist run --scattering`: what `pairhist scattering` computes, done at the end of the run
// (and at each completed interval) from the result in memory, with the sums' kernels computed
// while the run counts and the files written at once. docs/performance.md, "Scattering from the
// histograms", says what each part costs.
#pragma once

#include <string>
#include <vector>

#include "drivers/cli/scattering_command.hpp"
#include "drivers/job/run_spec.hpp"
#include "io/results/histogram_result_reader.hpp"

namespace pairhist {

/// The problems of --scattering and its options as `run` takes them, one line each (no file
/// read): the options `given` (their flags, on the command line or in --config) without
/// --scattering, the options themselves (scattering_option_problems(), over the run's species),
/// and the run's options that would leave the sums without
/// some pairs (--exclude, --pairs). The one place `run` checks its scattering options; what they
/// name is read once after it (resolve_scattering()).
std::vector<std::string> run_scattering_problems(const ScatteringOptions& options,
                                                 const std::vector<std::string>& given,
                                                 const RunSpec& run);

/// The kernels of the resolved options' q grid (and window, within-bin rule) for the bins of a
/// run up to r_max (in length_unit, nm or angstrom) in nbins bins, over up to `threads` threads
/// (0: every core); none where they would take over 64 MiB (the sums then compute each q's as
/// they go).
ScatteringKernels scattering_kernels(const ResolvedScattering& resolved, double r_max, int nbins,
                                     const std::string& length_unit, unsigned threads);

/// `pairhist run --scattering`: with resolved.options.input the run's output directory, writes
/// there what `pairhist scattering DIR` writes: for a periodic run S(q) (sq.csv, .xvg, .h5) and,
/// with options.cut_sphere, the cut-sphere intensity (intensity.csv, .xvg, .h5) as well; for a
/// run without a box its intensity and, with options.structure_factor, S(q) (which then fails):
/// the same computations from the pairhist.h5 just written, so the same bytes. `known` as for
/// compute_scattering(); `run`: that pairhist.h5's contents as io::stored_run() makes them from the
/// result in memory, so that it is not read back; `kernels`: scattering_kernels() of the run's
/// bins, computed ahead (used where they fit). Throws as compute_scattering() and
/// write_scattering().
std::vector<ScatteringResult> write_run_scattering(const ResolvedScattering& resolved,
                                                   const analysis::ScattererAssignment* known,
                                                   const io::StoredRun& run,
                                                   const ScatteringKernels* kernels = nullptr);

}  // namespace pairhist
