#include "drivers/cli/run_scattering.hpp"

#include <algorithm>
#include <exception>

#include "analysis/parallel_for.hpp"
#include "drivers/cli/scattering_choice.hpp"
#include "drivers/cli/scattering_units.hpp"
#include "drivers/job/engine_settings.hpp"
#include "io/scattering/scattering_hdf5.hpp"
#include "io/scattering/scattering_writers.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

/// File `i` of r's three: .csv, .xvg, .h5.
void write_file(const ScatteringResult& r, size_t i) {
  if (i == 0) io::write_q_table_csv(r.csv, r.table);
  if (i == 1) io::write_q_table_xvg(r.xvg, r.table, r.plotted);
  if (i == 2) io::write_scattering_hdf5(r.h5, r.data);
}

}  // namespace

std::vector<std::string> run_scattering_problems(const ScatteringOptions& o,
                                                 const std::vector<std::string>& given,
                                                 const RunSpec& run) {
  std::vector<std::string> p;
  if (o.radiation.empty()) {
    for (const std::string& flag : given)
      p.push_back(flag + " goes with --scattering xray|neutron");
    return p;
  }
  std::vector<std::string> names;
  for (const SpeciesSpec& s : run.species) names.push_back(s.name);
  p = scattering_option_problems(o, names, "--scattering");
  // --window is for the S(q) of periodic runs; whether the run has a box is known only from its
  // first frame, so a run without one (which writes no S(q) unless --structure-factor) ignores it.
  if (run.exclude != "none")
    p.push_back("--scattering sums over every pair of atoms: --exclude " + run.exclude +
                " would leave pairs out");
  if (run.r_min > 0)
    p.push_back("--scattering sums over every pair of atoms: --rmin would leave the closest out");
  const size_t n = names.size();
  if (!run.pairs.empty() && n > 0) {
    try {
      if (selected_pairs(run).size() < n * (n + 1) / 2)
        p.push_back("--scattering needs the histogram of every pair of species: leave out --pairs");
    } catch (const UsageError&) {  // the run's own checks report it
    }
  }
  return p;
}

ScatteringKernels scattering_kernels(const ResolvedScattering& resolved, double r_max, int nbins,
                                     const std::string& length_unit, unsigned threads) {
  const ScatteringOptions& o = resolved.options;
  ScatteringKernels out;
  HistogramResult bins;
  bins.r_max = r_max;
  bins.nbins = nbins;
  bins.length_unit = length_unit;
  const std::vector<double>& q = resolved.q;
  const std::vector<double> edges = analysis::bin_edges_nm(bins);
  // Beyond 2^23 values (64 MiB) none are kept: the sums then compute each q's as they go.
  // Both: whether the run is periodic (S(q) by default) is known only from its first frame.
  if (static_cast<double>(q.size()) * nbins * 2 > (1 << 23)) return out;
  const analysis::WithinBin rule = analysis::parse_within_bin(o.within_bin);
  out.debye = analysis::debye_kernels(q, edges, rule, threads);
  out.structure =
      analysis::structure_kernels(q, edges, analysis::parse_window(o.window), rule, threads);
  return out;
}

std::vector<ScatteringResult> write_run_scattering(const ResolvedScattering& resolved,
                                                   const analysis::ScattererAssignment* known,
                                                   const io::StoredRun& run,
                                                   const ScatteringKernels* kernels) {
  const ScatteringOptions& o = resolved.options;
  // The run is taken once for both: the same inputs either way.
  const ScatteringInputs in = scattering_inputs(resolved, run, known);
  std::vector<ScatteringResult> out;
  // A periodic run's Debye sum is a cut sphere's: written only when asked (scattering_choice.hpp).
  const bool periodic = run.result.box_kind != "none";
  if (!periodic || o.cut_sphere) {
    ScatteringOptions debye = o;
    debye.structure_factor = false;
    out.push_back(scattering_from_inputs(debye, in, kernels));
    express_scattering_units(debye, out.back());
    name_scattering_files(debye, out.back());
  }
  // An S(q) that cannot be (a run without a box) leaves the intensity written, as before.
  std::exception_ptr structure_failure;
  if (periodic || o.structure_factor) {  // S(q): the default, --cut-sphere-intensity or not
    try {
      ScatteringOptions structure = o;
      structure.structure_factor = true;
      ScatteringResult sq = scattering_from_inputs(structure, in, kernels);
      if (periodic && !o.structure_factor && !o.cut_sphere)
        sq.notes.push_back(periodic_default_note(sq.box_kind, true));
      express_scattering_units(structure, sq);
      name_scattering_files(structure, sq);
      out.push_back(std::move(sq));
    } catch (...) {
      structure_failure = std::current_exception();
    }
  }
  // The files are most of what is left after the run (each ~1 ms of formatting or HDF5 on the
  // development machine): written at once, one thread each (HDF5 takes one at a time,
  // io::Hdf5Gate). A failure stops the files not yet begun; each file is whole or absent.
  analysis::parallel_for_each(3 * out.size(), 0, 1,
                              [&out](size_t i) { write_file(out[i / 3], i % 3); });
  if (structure_failure) std::rethrow_exception(structure_failure);
  return out;
}

}  // namespace pairhist
