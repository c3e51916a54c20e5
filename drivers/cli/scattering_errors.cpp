#include "drivers/cli/scattering_errors.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "analysis/block_average.hpp"

namespace pairhist {

void add_block_errors(const ScatteringOptions& o, const ScatteringInputs& in,
                      const ScatteringKernels* kernels, ScatteringResult& out) {
  const std::vector<HistogramResult> blocks = analysis::block_runs(in.run.result);
  if (blocks.empty()) return;
  const size_t npairs = in.run.result.pairs.size();
  // Per block: the total, then every partial, then (S(q)) F.
  std::vector<std::vector<std::vector<double>>> curves(npairs + 2);
  for (const HistogramResult& part : blocks) {
    if (o.structure_factor) {
      analysis::StructureOptions options;
      options.kernels = kernels ? &kernels->structure : nullptr;
      options.window = analysis::parse_window(o.window);
      options.within_bin = analysis::parse_within_bin(o.within_bin);
      analysis::StructureFactors s =
          analysis::structure_factors(part, in.q, in.weight_grid, options);
      curves[0].push_back(std::move(s.total));
      for (size_t p = 0; p < npairs; ++p) curves[1 + p].push_back(std::move(s.partial[p]));
      curves[npairs + 1].push_back(std::move(s.f_total));
    } else {
      analysis::DebyeOptions debye;
      debye.kernels = kernels ? &kernels->debye : nullptr;
      debye.within_bin = analysis::parse_within_bin(o.within_bin);
      debye.precision = o.precision == "single" ? analysis::SumPrecision::single
                                                : analysis::SumPrecision::double_;
      analysis::DebyeIntensity d = analysis::debye_intensity(part, in.q, in.weight_grid, debye);
      curves[0].push_back(std::move(d.total));
      for (size_t p = 0; p < npairs; ++p) curves[1 + p].push_back(std::move(d.partial[p]));
    }
  }
  ScatteringErrors& e = out.errors;
  e.blocks = blocks.size();
  e.total = analysis::block_standard_error(curves[0]);
  for (size_t p = 0; p < npairs; ++p)
    e.partial.push_back(analysis::block_standard_error(curves[1 + p]));
  if (o.structure_factor) e.f_total = analysis::block_standard_error(curves[npairs + 1]);

  const std::string total = o.structure_factor ? "S" : "I";
  io::QTable& t = out.table;
  t.columns.push_back({total + "err", e.total});
  for (size_t p = 0; p < npairs; ++p)
    t.columns.push_back({total + "err_" + out.pairs[p], e.partial[p]});
  if (o.structure_factor) t.columns.push_back({"Ferr", e.f_total});
  t.comments.push_back(describe_block_errors(total, e.blocks, o.structure_factor));
  out.data.header = t.comments;

  io::ScatteringData& d = out.data;
  const size_t curves_before = d.curves.size();
  for (size_t c = 0; c < curves_before; ++c) {
    const std::vector<double>* err = d.curves[c].name == total ? &e.total
                                     : d.curves[c].name == "F" ? &e.f_total
                                                               : nullptr;
    if (err && !err->empty())
      d.curves.push_back({d.curves[c].name + "err", d.curves[c].unit, *err});
  }
  for (size_t p = 0; p < d.partials.size(); ++p)
    d.partial_errors.push_back({d.partials[p].a, d.partials[p].b, e.partial.at(p)});
}

std::string describe_block_errors(const std::string& total, size_t blocks, bool structure) {
  return "errors: " + total + "err" + (structure ? ", Ferr" : "") + " and " + total +
         "err_A-B are standard errors of the mean over the run's " + std::to_string(blocks) +
         " interval blocks, each block's curve computed from its own histograms as a run of its "
         "own (sqrt(var / B), var over B - 1); they hold where the blocks are longer than the "
         "correlation time";
}

std::vector<double> errors_in_quadrature(const std::vector<double>& a,
                                         const std::vector<double>& b) {
  if (a.empty() || b.empty()) return {};
  if (a.size() != b.size()) throw std::logic_error("errors of different lengths");
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = std::hypot(a[i], b[i]);
  return out;
}

void add_excess_errors(const ScatteringResult& solution, const ScatteringResult& solvent,
                       ScatteringResult& out) {
  out.data.partial_errors.clear();
  out.errors = {};
  ScatteringErrors e;
  e.total = errors_in_quadrature(solution.errors.total, solvent.errors.total);
  if (e.total.empty()) return;
  e.blocks = std::min(solution.errors.blocks, solvent.errors.blocks);
  const std::vector<io::ScatteringPartial>& theirs = solvent.data.partials;
  for (size_t p = 0; p < out.data.partials.size(); ++p) {
    const io::ScatteringPartial& mine = out.data.partials[p];
    std::vector<double> err = solution.errors.partial.at(p);
    for (size_t s = 0; s < theirs.size(); ++s)
      if ((theirs[s].a == mine.a && theirs[s].b == mine.b) ||
          (theirs[s].a == mine.b && theirs[s].b == mine.a))
        err = errors_in_quadrature(err, solvent.errors.partial.at(s));
    e.partial.push_back(err);
  }
  attach_excess_errors(
      std::move(e),
      "errors: dIerr and dIerr_A-B are the two runs' block-average standard errors (of their " +
          std::to_string(solution.errors.blocks) + " and " + std::to_string(solvent.errors.blocks) +
          " interval blocks) in quadrature, the runs being independent",
      out);
}

void attach_excess_errors(ScatteringErrors errors, const std::string& comment,
                          ScatteringResult& out) {
  io::ScatteringData& d = out.data;
  ScatteringErrors& e = out.errors;
  e = std::move(errors);
  d.partial_errors.clear();
  for (size_t p = 0; p < d.partials.size(); ++p)
    d.partial_errors.push_back({d.partials[p].a, d.partials[p].b, e.partial.at(p)});
  d.curves.push_back({"dIerr", d.curves.at(0).unit, e.total});
  io::QTable& t = out.table;
  t.columns.push_back({"dIerr", e.total});
  for (size_t p = 0; p < d.partials.size(); ++p)
    t.columns.push_back({"dIerr_" + d.partials[p].a + "-" + d.partials[p].b, e.partial[p]});
  t.comments.push_back(comment);
}

}  // namespace pairhist
