#include "drivers/cli/scattering_excess.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "drivers/cli/scattering_errors.hpp"
#include "drivers/cli/scattering_excess_errors.hpp"
#include "drivers/cli/scattering_excess_terms.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist {

namespace {

/// The SPECIES=VALUE items (--element, --deuterate) for species of `names`, and every bare one:
/// those for the solution's other species (the solute) do not apply to the solvent run.
std::vector<std::string> for_species(const std::vector<std::string>& items,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos ||
        std::find(names.begin(), names.end(), item.substr(0, eq)) != names.end())
      out.push_back(item);
  }
  return out;
}

[[noreturn]] void incompatible(const ScatteringResult& solution, const ScatteringResult& solvent,
                               const std::string& why) {
  throw InputError("cannot subtract " + solvent.run_path + " from " + solution.run_path + ": " +
                   why);
}

/// Where the two runs do not subtract: InputError naming both.
void check_compatible(const ScatteringResult& solution, const ScatteringResult& solvent) {
  const bool periodic = solution.box_kind != "none";
  if (periodic != (solvent.box_kind != "none"))
    incompatible(solution, solvent,
                 "the solution's box is " + solution.box_kind + ", the solvent's " +
                     solvent.box_kind +
                     ": a periodic run's cut-sphere intensity and a cluster's do not subtract");
  if (periodic && std::abs(solution.r_max_nm - solvent.r_max_nm) > 1e-9 * solution.r_max_nm)
    incompatible(solution, solvent,
                 "r_max is " + scattering_number(solution.r_max_nm) + " nm in the solution, " +
                     scattering_number(solvent.r_max_nm) +
                     " nm in the solvent: periodic runs' cut-sphere intensities subtract only "
                     "with the same cut");
  for (const io::ScatteringSpecies& s : solvent.data.species) {
    const auto same_name = [&s](const io::ScatteringSpecies& t) { return t.name == s.name; };
    const auto it =
        std::find_if(solution.data.species.begin(), solution.data.species.end(), same_name);
    if (it == solution.data.species.end())
      incompatible(solution, solvent,
                   "the solvent's species " + s.name +
                       " is not in the solution (each solvent species is subtracted from the "
                       "solution's species of the same name)");
    if (it->scatterer != s.scatterer || it->weight != s.weight)
      incompatible(solution, solvent,
                   "species " + s.name + " scatters as " + it->scatterer + " (" + it->source +
                       ") in the solution but as " + s.scatterer + " (" + s.source +
                       ") in the solvent");
  }
  if (solution.table.q != solvent.table.q)
    throw std::logic_error("compute_excess: the two runs were evaluated on different q");
}

/// A run's header lines that describe it (options, species), prefixed with its role.
void describe_run(const ScatteringResult& r, const std::string& role, std::vector<std::string>& c) {
  for (size_t i = 2; i < r.table.comments.size(); ++i) {
    const std::string& line = r.table.comments[i];
    if (line.rfind("note: ", 0) == 0 || line.rfind("columns: ", 0) == 0) continue;
    c.push_back(role + ": " + line);
  }
}

/// Notes of both runs: once where both have it, else prefixed with the run's role; and where
/// the boxes' volumes differ, what that does.
std::vector<std::string> excess_notes(const ScatteringResult& solution,
                                      const ScatteringResult& solvent, bool sphere) {
  std::vector<std::string> notes;
  for (const std::string& n : solution.notes)
    notes.push_back(std::find(solvent.notes.begin(), solvent.notes.end(), n) != solvent.notes.end()
                        ? n
                        : "solution: " + n);
  for (const std::string& n : solvent.notes)
    if (std::find(solution.notes.begin(), solution.notes.end(), n) == solution.notes.end())
      notes.push_back("solvent: " + n);
  const double v = solution.mean_volume_nm3, w = solvent.mean_volume_nm3;
  if (!sphere && v > 0 && w > 0 && std::abs(w - v) > 0.005 * v)
    notes.push_back("the solvent's mean box volume is " + scattering_number(w, 6) +
                    " nm^3, the solution's " + scattering_number(v, 6) +
                    " nm^3: the uniform solvent background cancels only between equal volumes, "
                    "so dI holds the difference of the volumes' solvent scattering as well");
  return notes;
}

/// Both runs read and each one's intensity with the same options (--element and --deuterate of
/// a species apply to it in both runs).
struct ExcessRuns {
  ScatteringInputs solution_in, solvent_in;
  ScatteringResult solution, solvent;
};

ExcessRuns read_excess_runs(const ScatteringOptions& o) {
  ExcessRuns r;
  ScatteringOptions solution_options = o;
  solution_options.subtract.clear();
  r.solution_in = read_scattering_inputs(solution_options);
  r.solution = scattering_from_inputs(solution_options, r.solution_in);
  ScatteringOptions solvent_options = solution_options;
  solvent_options.input = o.subtract;
  std::vector<std::string> solvent_names;
  for (const SpeciesInfo& s : io::read_histogram_result(o.subtract).result.species)
    solvent_names.push_back(s.name);
  solvent_options.elements = for_species(o.elements, solvent_names);
  solvent_options.deuteration = for_species(o.deuteration, solvent_names);
  r.solvent_in = read_scattering_inputs(solvent_options);
  r.solvent = scattering_from_inputs(solvent_options, r.solvent_in);
  return r;
}

/// The excess's result without its table: what it is, both runs' notes, its curves and
/// partials.
ScatteringResult excess_result(const ExcessRuns& runs, const ExcessTerms& terms,
                               const ExcessCurves& curves) {
  const ScatteringResult& solution = runs.solution;
  const ScatteringResult& solvent = runs.solvent;
  ScatteringResult out;
  out.run_path = solution.run_path;
  std::set<std::string> guesses(solution.guesses.begin(), solution.guesses.end());
  guesses.insert(solvent.guesses.begin(), solvent.guesses.end());
  out.guesses.assign(guesses.begin(), guesses.end());
  out.notes = excess_notes(solution, solvent, terms.sphere);
  out.species = solution.species;
  out.pairs = solution.pairs;
  out.weights = solution.weights;
  out.box_kind = solution.box_kind;
  out.r_max_nm = solution.r_max_nm;
  out.mean_volume_nm3 = solution.mean_volume_nm3;
  out.stem = "excess";
  io::ScatteringData& d = out.data;
  d = solution.data;
  d.quantity = "excess_intensity";
  d.runs = {solution.run_path, solvent.run_path};
  d.complete = solution.data.complete && solvent.data.complete;
  d.stopped_by = !solution.data.complete ? solution.data.stopped_by : solvent.data.stopped_by;
  for (size_t p = 0; p < d.partials.size(); ++p) d.partials[p].values = curves.partial.at(p);
  const std::string unit = solution.data.curves.at(0).unit;
  const std::string amplitude = solution.data.weight_unit;
  d.curves = {{"dI", unit, curves.total},
              {"I_solution", unit, solution.intensity.total},
              {"I_solvent", unit, solvent.intensity.total}};
  if (terms.sphere) {
    d.curves.push_back({"dI_raw", unit, curves.raw});
    d.curves.push_back({"background", unit, terms.background});
    d.curves.push_back({"A_bg", amplitude, terms.a_bg});
    d.curves.push_back({"B_solution", amplitude, terms.b_solution});
    d.curves.push_back({"B_solvent", amplitude, terms.b_solvent});
  }
  return out;
}

/// The table: header lines (what dI is, the method, the fit, both runs, the notes, the columns)
/// and the columns of out.data's curves, partials and weights.
void excess_columns(const ExcessRuns& runs, const ExcessTerms& terms, ScatteringResult& out) {
  const ScatteringResult& solution = runs.solution;
  const ScatteringResult& solvent = runs.solvent;
  const io::ScatteringData& d = out.data;
  io::QTable& t = out.table;
  t.q = solution.table.q;
  const bool xray = solution.data.radiation == "xray";
  t.comments.push_back(std::string("pairhist ") + kVersionText +
                       " scattering: excess intensity dI(q) of " + solution.run_path +
                       " (solution) over " + solvent.run_path +
                       " (solvent), from their pair histograms");
  t.comments.push_back(std::string("q in 1/nm (4 pi sin(theta) / lambda); I(q) per frame in ") +
                       (xray ? "electrons^2" : "fm^2") +
                       ": each run's intensity is the mean over its frames of one frame's "
                       "intensity, so runs of different lengths subtract");
  for (const std::string& line : terms.header) t.comments.push_back(line);
  for (const std::string& line : out.summary) t.comments.push_back(line);
  describe_run(solution, "solution", t.comments);
  describe_run(solvent, "solvent", t.comments);
  for (const std::string& n : out.notes) t.comments.push_back("note: " + n);
  t.comments.push_back(
      terms.sphere
          ? "columns: dI = sum of the dI_A-B + background; dI_raw = I_solution - I_solvent (no "
            "background removed, not matched); background = -2 A_bg (B_solution - s "
            "B_solvent); A_bg, B_solution, B_solvent: amplitudes; dI_A-B = the solution's I_A-B "
            "less the matched solvent's (the solution's own where the solvent lacks A or B); "
            "f_A = weight of species A at q"
          : "columns: dI = I_solution - I_solvent; dI_A-B = the solution's I_A-B less the "
            "solvent's (the solution's own where the solvent lacks A or B); f_A = weight of "
            "species A at q");
  t.title = std::string(xray ? "X-ray" : "Neutron") + " excess intensity (solution - solvent)";
  t.y_label = "dI(q)";
  for (const io::ScatteringCurve& c : d.curves) t.columns.push_back({c.name, c.values});
  for (const io::ScatteringPartial& p : d.partials)
    t.columns.push_back({"dI_" + p.a + "-" + p.b, p.values});
  out.plotted = t.columns.size();
  for (const io::ScatteringSpecies& s : d.species) t.columns.push_back({"f_" + s.name, s.weight});
}

/// P(r) of the excess as excess_pr.csv's text (its header the table's first line, what P is,
/// the method and the fits) and in out.data (excess.h5).
void excess_distribution_text(const ExcessDistribution& pr, const ExcessTerms& terms,
                              ScatteringResult& out) {
  if (!pr.ok) return;
  // excess.h5 holds it as well, in the excess's unit before any intensity unit.
  out.data.distribution = {out.data.curves.at(0).unit, pr.r, pr.total, pr.pairs, pr.background};
  std::vector<std::string> header = {
      out.table.comments.at(0),
      "P(r) of the excess from the histograms (not a transform of dI): P_k = the solution's "
      "pairs in bin k weighted f_A(0) f_B(0), per frame, less the matched solvent's, plus the "
      "background's share; dI(0) = self + 2 sum_k P_k; r in nm, bin centres"};
  for (const std::string& line : terms.header) header.push_back(line);
  for (const std::string& line : out.summary) header.push_back(line);
  out.distribution_text = excess_distribution_csv(pr, header);
}

}  // namespace

ScatteringResult compute_excess(const ScatteringOptions& o) {
  if (o.structure_factor)
    throw UsageError(
        "--subtract takes the difference of two runs' intensities: leave out "
        "--structure-factor (each S(q) is per atom of its own run's composition)");
  const ExcessRuns runs = read_excess_runs(o);
  check_compatible(runs.solution, runs.solvent);
  const ExcessTerms terms = excess_terms(o, runs.solution_in, runs.solvent_in);
  const ExcessCurves curves = excess_curves(runs.solution_in, runs.solvent_in,
                                            runs.solution.intensity, runs.solvent.intensity, terms);
  ScatteringResult out = excess_result(runs, terms, curves);
  const analysis::GuinierFit fit = analysis::guinier_fit(runs.solution.table.q, curves.total);
  const ExcessDistribution pr = excess_distribution(runs.solution_in, runs.solvent_in, terms);
  out.summary = excess_summary(fit, pr, o, runs.solution.data.radiation == "xray");
  excess_columns(runs, terms, out);
  if (terms.sphere)
    add_sphere_excess_errors(o, runs.solution_in, runs.solvent_in, runs.solution.intensity,
                             runs.solvent.intensity, out);
  else
    add_excess_errors(runs.solution, runs.solvent, out);
  out.data.header = out.table.comments;
  excess_distribution_text(pr, terms, out);
  return out;
}

}  // namespace pairhist
