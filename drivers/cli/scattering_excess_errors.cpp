#include "drivers/cli/scattering_excess_errors.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analysis/block_average.hpp"
#include "drivers/cli/scattering_errors.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

/// One run's share of the errors: dI and its partials for each of the run's blocks against the
/// whole other run, and their standard errors over the blocks.
struct ErrorShare {
  std::vector<double> total;
  std::vector<std::vector<double>> partial;
  size_t blocks = 0;
};

analysis::DebyeIntensity block_intensity(const ScatteringOptions& o, const ScatteringInputs& in) {
  analysis::DebyeOptions debye;
  debye.within_bin = analysis::parse_within_bin(o.within_bin);
  debye.precision =
      o.precision == "single" ? analysis::SumPrecision::single : analysis::SumPrecision::double_;
  return analysis::debye_intensity(in.run.result, in.q, in.weight_grid, debye);
}

/// `blocks`: the blocks of the solution run (`of_solution`) or of the solvent run, each
/// subtracted with the whole other run (`other`, `other_intensity`).
ErrorShare share(const ScatteringOptions& o, const ScatteringInputs& whole,
                 const std::vector<HistogramResult>& blocks, bool of_solution,
                 const ScatteringInputs& other, const analysis::DebyeIntensity& other_intensity) {
  std::vector<std::vector<double>> totals;
  std::vector<std::vector<std::vector<double>>> partials;
  ScatteringInputs block_in = whole;
  for (const HistogramResult& block : blocks) {
    block_in.run.result = block;
    const analysis::DebyeIntensity intensity = block_intensity(o, block_in);
    const ScatteringInputs& a = of_solution ? block_in : other;
    const ScatteringInputs& b = of_solution ? other : block_in;
    const ExcessTerms terms = excess_terms(o, a, b);
    ExcessCurves c = of_solution ? excess_curves(a, b, intensity, other_intensity, terms)
                                 : excess_curves(a, b, other_intensity, intensity, terms);
    totals.push_back(std::move(c.total));
    if (partials.empty()) partials.resize(c.partial.size());
    for (size_t p = 0; p < c.partial.size(); ++p) partials[p].push_back(std::move(c.partial[p]));
  }
  ErrorShare s;
  s.blocks = blocks.size();
  s.total = analysis::block_standard_error(totals);
  for (const auto& p : partials) s.partial.push_back(analysis::block_standard_error(p));
  return s;
}

bool blocks_keep_centres(const std::vector<HistogramResult>& blocks) {
  for (const HistogramResult& b : blocks)
    if (!analysis::has_centre_counts(b)) return false;
  return true;
}

}  // namespace

void add_sphere_excess_errors(const ScatteringOptions& o, const ScatteringInputs& solution,
                              const ScatteringInputs& solvent,
                              const analysis::DebyeIntensity& solution_intensity,
                              const analysis::DebyeIntensity& solvent_intensity,
                              ScatteringResult& out) {
  out.errors = {};
  out.data.partial_errors.clear();
  const std::vector<HistogramResult> a = analysis::block_runs(solution.run.result);
  const std::vector<HistogramResult> b = analysis::block_runs(solvent.run.result);
  if (a.empty() || b.empty()) return;
  for (const ScatteringInputs* in : {&solution, &solvent})
    if (!blocks_keep_centres(in == &solution ? a : b)) {
      out.table.comments.push_back(
          "errors: none: the interval blocks of " + in->run.path +
          " keep no distances from the sphere's centre (written by a pairhist before they were "
          "kept), which each block's background term needs: run it again");
      return;
    }
  ErrorShare from_solution, from_solvent;
  try {
    from_solution = share(o, solution, a, true, solvent, solvent_intensity);
    from_solvent = share(o, solvent, b, false, solution, solution_intensity);
  } catch (const InputError& e) {  // a block too short for the shell: the whole run is not
    out.table.comments.push_back(std::string("errors: none: a block does not subtract: ") +
                                 e.what());
    return;
  }
  ScatteringErrors e;
  e.blocks = std::min(from_solution.blocks, from_solvent.blocks);
  e.total = errors_in_quadrature(from_solution.total, from_solvent.total);
  for (size_t p = 0; p < from_solution.partial.size(); ++p)
    e.partial.push_back(errors_in_quadrature(from_solution.partial[p], from_solvent.partial[p]));
  attach_excess_errors(
      std::move(e),
      "errors: dIerr and dIerr_A-B are standard errors of the sphere excess from the runs' " +
          std::to_string(from_solution.blocks) + " (solution) and " +
          std::to_string(from_solvent.blocks) +
          " (solvent) interval blocks: dI computed for every block of one run against the "
          "whole other run (its own centre distances, shell density and histograms), the "
          "scatter over each run's blocks (sqrt(var / B), var over B - 1), the two in "
          "quadrature (independent runs); they hold where the blocks are longer than the "
          "correlation time",
      out);
}

}  // namespace pairhist
