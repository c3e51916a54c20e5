// Block-average errors of `pairhist scattering`'s curves: a run written in interval blocks
// (`run --interval N`, the blocks kept in its pairhist.h5) gives one intensity or structure
// factor per block, each computed from the block's histograms as a run of its own (the Debye sum
// and the transform of g(r) are linear in the counts), and the scatter of those is the error of
// the whole run's curve. docs/scattering.md, "Errors".
#pragma once

#include "drivers/cli/scattering_command.hpp"

namespace pairhist {

/// With two or more interval blocks in the run of `in`: the standard errors of the mean over the
/// blocks (analysis::block_standard_error) of what `out` holds, the intensity I and its partials,
/// or S, its partials and F, computed per block with the same options and kernels. Sets
/// out.errors and appends the columns Ierr, Ierr_A-B (Serr, Serr_A-B, Ferr) after out.table's
/// others and the curves <name>err and partial_errors to out.data. Nothing with fewer blocks.
void add_block_errors(const ScatteringOptions& options, const ScatteringInputs& in,
                      const ScatteringKernels* kernels, ScatteringResult& out);

/// The header line saying what the error columns of `total` (I, S, dI) are.
std::string describe_block_errors(const std::string& total, size_t blocks, bool structure);

/// The error of a difference of independent values, sqrt(a^2 + b^2) point by point (an excess
/// intensity of two independent runs); empty unless both are given (one run without blocks has
/// no error to combine).
std::vector<double> errors_in_quadrature(const std::vector<double>& a,
                                         const std::vector<double>& b);

/// The excess dI = I_solution - I_solvent's errors (scattering_excess.cpp): where both runs have
/// interval blocks, their errors in quadrature (independent runs) as out.errors, the columns
/// dIerr and dIerr_A-B after out.table's others (a partial the solvent lacks keeps the
/// solution's error) and the curve dIerr and partial_errors in out.data; else no error at all
/// (out.data.partial_errors cleared).
void add_excess_errors(const ScatteringResult& solution, const ScatteringResult& solvent,
                       ScatteringResult& out);

/// An excess's errors (total and every partial of out.data.partials, in their order) as
/// out.errors, the curve dIerr and partial_errors in out.data, the columns dIerr and
/// dIerr_A-B after out.table's others, and `comment` (what they are) as a header line.
void attach_excess_errors(ScatteringErrors errors, const std::string& comment,
                          ScatteringResult& out);

}  // namespace pairhist
