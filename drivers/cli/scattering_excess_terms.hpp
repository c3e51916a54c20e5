// The parts of `pairhist scattering SOLUTION --subtract SOLVENT` beyond the two Debye sums: for
// runs cut with `run --sphere`, the solvent run matched to the solution's density in an outer
// shell and the cross term with a uniform solvent background removed (CAPRIQORN's excess); for
// every excess, its pair-distance distribution P(r) and a Guinier fit. docs/scattering.md,
// "Excess intensity".
#pragma once

#include <string>
#include <vector>

#include "analysis/sphere_excess.hpp"
#include "drivers/cli/scattering_inputs.hpp"

namespace pairhist {

/// What is subtracted besides I_solution - I_solvent, on the solution's q grid.
struct ExcessTerms {
  bool sphere = false;                 // both runs cut with --sphere: the background is removed
  double scale = 1;                    // s: the solvent run's density scaled by it
  std::vector<double> solvent_scaled;  // s N_A f_A^2 + s^2 (I_solvent - self): I_solvent'
  std::vector<double> background;      // -2 A_bg (B_solution - s B_solvent)
  std::vector<double> a_bg, b_solution, b_solvent;  // amplitudes (B_solvent unscaled)
  std::vector<std::string> header;                  // what was done, with the numbers
  std::vector<std::string> notes;
};

/// The terms for the two runs' inputs (read_scattering_inputs()) with the options
/// (`match_shell_nm` > 0: the shell's width, sphere runs only). Throws InputError naming both
/// runs where they do not go together (one cut with --sphere and the other not, other radii, a
/// sphere run without the distances from its centre, a shell without solvent atoms), UsageError
/// for a shell wider than the sphere or one given for runs without a sphere.
ExcessTerms excess_terms(const ScatteringOptions& options, const ScatteringInputs& solution,
                         const ScatteringInputs& solvent);

/// The scaled solvent's partial of species a, b (indices of the solvent run) at q: its self
/// term times s and its pair term times s^2.
double scaled_solvent_partial(const ExcessTerms& terms, const ScatteringInputs& solvent, int a,
                              int b, double partial, size_t iq);

/// dI and its parts from the two runs' Debye intensities (as debye_intensity() gives them, on
/// the solution's q): `partial` in the solution's pairs' order, each the solution's partial less
/// the scaled solvent's of the same species names (its own where the solvent lacks them);
/// `total` = sum of those + the background; `raw` = I_solution - I_solvent.
struct ExcessCurves {
  std::vector<double> total, raw;
  std::vector<std::vector<double>> partial;
};
ExcessCurves excess_curves(const ScatteringInputs& solution, const ScatteringInputs& solvent,
                           const analysis::DebyeIntensity& solution_intensity,
                           const analysis::DebyeIntensity& solvent_intensity,
                           const ExcessTerms& terms);

/// The excess pair-distance distribution from the histograms (weights at q = 0), on the
/// solution's bins: P_k = the solution's weighted pair counts per frame less the scaled
/// solvent's, and the background's share; dI(0) = self + 2 sum_k P_k.
struct ExcessDistribution {
  bool ok = false;
  std::string why;        // where not ok
  std::vector<double> r;  // bin centres, nm
  std::vector<double> pairs, background, total;
  double self = 0;  // sum_A f_A(0)^2 (N_A - s N'_A)
  double i0 = 0;    // self + 2 sum P
  double rg = 0;    // sqrt(sum_k P_k r_k^2 / i0), nm (0 where i0 <= 0)
};
ExcessDistribution excess_distribution(const ScatteringInputs& solution,
                                       const ScatteringInputs& solvent, const ExcessTerms& terms);

/// Header lines for the Guinier fit and P(r), and the CSV text of P(r) (with `header` lines).
/// The Guinier line says Rg in nm, I(0) and q in the units the options write the curves in.
std::vector<std::string> excess_summary(const analysis::GuinierFit& fit,
                                        const ExcessDistribution& pr,
                                        const ScatteringOptions& options, bool xray);
std::string excess_distribution_csv(const ExcessDistribution& pr,
                                    const std::vector<std::string>& header);

}  // namespace pairhist
