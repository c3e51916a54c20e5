#include "drivers/cli/scattering_command.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <locale>
#include <map>
#include <sstream>

#include "analysis/scattering_elements.hpp"
#include "drivers/job/job_inputs.hpp"
#include "io/histogram_result_reader.hpp"
#include "io/scattering_table_reader.hpp"
#include "io/scattering_writers.hpp"
#include "io/topology_reader.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist {

namespace {

namespace fs = std::filesystem;
using analysis::Radiation;

constexpr double kPi = 3.14159265358979323846;
// International Tables' Cromer-Mann fits hold for sin(theta)/lambda <= 2/A.
constexpr double kXrayFitQMax = 4 * kPi * 2 * 10;

bool parse_number(const std::string& text, double& value) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  return static_cast<bool>(in >> value) && (in >> std::ws).eof() && std::isfinite(value);
}

std::vector<double> q_grid(const ScatteringOptions& o) {
  std::vector<double> q;
  if (!o.q_file.empty()) {
    std::ifstream in(o.q_file);
    if (!in) throw InputError("cannot read '" + o.q_file + "': cannot open the file");
    size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      line = line.substr(0, line.find_first_of("#;@"));
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::istringstream fields(line);
      std::string first;
      fields >> first;  // the first column; others (e.g. measured intensities) are ignored
      double v = 0;
      if (!parse_number(first, v) || v < 0 || (!q.empty() && v <= q.back()))
        throw InputError(o.q_file + " line " + std::to_string(line_no) + ": '" + excerpt(first) +
                         "' is not a q (1/nm) above the previous one");
      q.push_back(v);
    }
    if (q.empty()) throw InputError(o.q_file + ": no q values");
    return q;
  }
  if (!(o.q_max > 0) || !std::isfinite(o.q_max))
    throw UsageError("--q-max must be a positive number of 1/nm, got " + std::to_string(o.q_max));
  if (o.nq < 2 || o.nq > 10000000)
    throw UsageError("--nq must be between 2 and 10^7, got " + std::to_string(o.nq));
  for (int i = 0; i < o.nq; ++i) q.push_back(o.q_max * i / (o.nq - 1));
  return q;
}

/// SPECIES=VALUE options into a map, checking that the species exist.
std::map<std::string, std::string> by_species(const std::vector<std::string>& items,
                                              const char* option, const HistogramResult& res) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(std::string(option) + " '" + item + "': expected SPECIES=VALUE");
    const std::string name = item.substr(0, eq);
    bool known = false;
    for (const SpeciesInfo& s : res.species) known = known || s.name == name;
    if (!known)
      throw UsageError(std::string(option) + " '" + item + "': the run has no species '" + name +
                       "'");
    out[name] = item.substr(eq + 1);
  }
  return out;
}

/// The topology to take the species' elements from: --top, else the run's own if it is still
/// where the run read it: as recorded, or a relative path from the run's output directory or
/// the directory above it (where `run -o DIR` usually ran); "" if none of these exists.
std::string run_topology(const io::StoredRun& run, const std::string& given) {
  if (!given.empty()) return given;
  const std::string path = run.config_value("topology");
  std::error_code ec;
  if (path.empty() || fs::exists(path, ec)) return path;
  if (fs::path(path).is_relative()) {
    const fs::path run_dir = fs::absolute(run.path, ec).parent_path();
    for (const fs::path& base : {run_dir, run_dir.parent_path()})
      if (fs::exists(base / path, ec)) return (base / path).string();
  }
  return "";
}

/// Every species' scatterer: --element where given, else from the topology's atoms.
analysis::ScattererAssignment scatterers(const ScatteringOptions& o, const io::StoredRun& run) {
  const HistogramResult& res = run.result;
  const std::map<std::string, std::string> explicit_labels =
      by_species(o.elements, "--element", res);
  std::vector<std::string> names;
  for (const SpeciesInfo& s : res.species) names.push_back(s.name);
  if (explicit_labels.size() == names.size())
    return analysis::assign_scatterers({}, names, std::vector<std::vector<int>>(names.size()),
                                       explicit_labels);
  JobOptions job;
  job.topology = run_topology(run, o.topology);
  job.trajectory = run.config_value("trajectory");
  job.index_file = run.config_value("index");
  const std::vector<std::string> selections = run.species_selections();
  for (size_t s = 0; s < names.size(); ++s) {
    if (selections[s].empty() && explicit_labels.count(names[s]) == 0)
      throw UsageError(run.path + " does not record the selection of species " + names[s] +
                       ": give --element " + names[s] + "=SYMBOL");
    job.species.push_back({names[s], selections[s].empty() ? "all" : selections[s]});
  }
  if (job.topology.empty() && !io::carries_species(job.trajectory))
    throw UsageError("the elements of the species need the run's topology ('" +
                     run.config_value("topology") +
                     "' is not there): give --top TOPOLOGY or --element SPECIES=SYMBOL");
  const analysis::Topology top = load_job_topology(job);
  std::vector<std::vector<int>> atoms = resolve_species(job, top, "pairhist scattering");
  for (size_t s = 0; s < names.size(); ++s) {
    if (explicit_labels.count(names[s]) > 0) continue;
    if (static_cast<int64_t>(atoms[s].size()) != res.species[s].count)
      throw InputError("topology " + job.topology + " gives species " + names[s] + " " +
                       std::to_string(atoms[s].size()) + " atoms, the run counted " +
                       std::to_string(res.species[s].count) + ": is it the run's topology?");
  }
  return analysis::assign_scatterers(top, names, atoms, explicit_labels);
}

/// Deuterium fractions into the species: a bare FRACTION for every hydrogen species, then
/// SPECIES=FRACTION.
void deuterate(const ScatteringOptions& o, const HistogramResult& res,
               std::vector<analysis::SpeciesScatterer>& species) {
  std::vector<std::string> per_species;
  for (const std::string& item : o.deuteration) {
    if (item.find('=') != std::string::npos) {
      per_species.push_back(item);
      continue;
    }
    double x = 0;
    if (!parse_number(item, x)) throw UsageError("--deuterate '" + item + "': not a fraction");
    for (auto& s : species)
      if (s.label == "H") s.deuterium = x;
  }
  for (const auto& [name, value] : by_species(per_species, "--deuterate", res)) {
    double x = 0;
    if (!parse_number(value, x)) throw UsageError("--deuterate '" + value + "': not a fraction");
    for (auto& s : species)
      if (s.species == name) s.deuterium = x;
  }
}

std::string number(double v, int digits = 6) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s.precision(digits);
  s << v;
  return s.str();
}

/// The header lines: what was computed, from what, and what it is not.
std::vector<std::string> describe(const ScatteringOptions& o, const io::StoredRun& run,
                                  const std::vector<analysis::SpeciesScatterer>& species,
                                  const std::vector<analysis::ScattererWeight>& weights,
                                  const std::vector<double>& q, std::vector<std::string>& notes) {
  const HistogramResult& res = run.result;
  const Radiation radiation = analysis::parse_radiation(o.radiation);
  const double dr = analysis::bin_edges_nm(res)[1];
  std::vector<std::string> c;
  c.push_back(std::string("pairhist ") + kVersionText +
              " scattering: Debye intensities from the pair histograms of " + run.path);
  c.push_back(std::string("q in 1/nm (4 pi sin(theta) / lambda); I(q) per frame in ") +
              (radiation == Radiation::xray ? "electrons^2" : "fm^2") +
              " (coherent, no incoherent or inelastic background)");
  c.push_back(
      "radiation = " + o.radiation + ", within_bin = " + o.within_bin +
      ", precision = " + o.precision + ", frames = " + std::to_string(res.frame_indices.size()) +
      ", bin width = " + number(dr) + " nm, q_max * bin width = " + number(q.back() * dr, 3));
  for (size_t s = 0; s < species.size(); ++s)
    c.push_back("species " + species[s].species + ": " + std::to_string(res.species[s].count) +
                " atoms of " + species[s].label + " (" + species[s].origin + "), " +
                (radiation == Radiation::xray ? "f(0) = " : "b = ") + number(weights[s].at(0)) +
                (radiation == Radiation::xray ? "" : " fm") + " from " + weights[s].source);
  if (!res.complete)
    notes.push_back("the run stopped early (" + res.stopped_by +
                    "): " + std::to_string(res.frame_indices.size()) + " frames");
  double beyond = 0, all = 0;
  for (const PairHistogram& p : res.pairs) {
    beyond += analysis::pairs_beyond_rmax(res, p);
    all += static_cast<double>(res.pairs_per_frame(p));
  }
  const std::string r_max = number(res.r_max) + " " + res.length_unit;
  if (res.box_kind != "none") {
    notes.push_back("periodic box (" + res.box_kind + "): the histograms stop at r_max = " + r_max +
                    ", so this is the Debye sum of every atom's neighbourhood cut at r_max "
                    "(a sphere-like cut), not the periodic system's intensity: expect truncation "
                    "ripples of period about 2 pi / r_max and a wrong I(q) below ~2 pi / r_max");
  } else if (beyond > 0.5) {
    notes.push_back(number(100 * beyond / all, 3) + "% of the pairs lie beyond r_max = " + r_max +
                    " and are missing from the sum: run again with a larger --rmax for the "
                    "whole system's intensity");
  } else {
    notes.push_back("no periodic box and every pair within r_max = " + r_max +
                    ": the Debye sum covers every pair");
  }
  if (q.back() * dr > 1)
    notes.push_back("q_max * bin width = " + number(q.back() * dr, 3) +
                    " > 1: the within-bin treatment dominates the error at high q; count with "
                    "more bins (docs/scattering.md)");
  for (const std::string& n : notes) c.push_back("note: " + n);
  c.push_back(
      "columns: I = sum of the partials I_A-B (I_A-A includes the self term N_A f_A^2); "
      "f_A = weight of species A at q; re-weight a partial by f'_A f'_B / (f_A f_B)");
  return c;
}

}  // namespace

ScatteringResult compute_scattering(const ScatteringOptions& o) {
  const Radiation radiation = analysis::parse_radiation(o.radiation);
  analysis::DebyeOptions debye;
  debye.within_bin = analysis::parse_within_bin(o.within_bin);
  if (o.precision != "single" && o.precision != "double")
    throw UsageError("--precision must be single or double, got '" + o.precision + "'");
  debye.precision =
      o.precision == "single" ? analysis::SumPrecision::single : analysis::SumPrecision::double_;
  if (radiation == Radiation::xray && !o.deuteration.empty())
    throw UsageError("--deuterate changes neutron scattering only (X-rays see D as H)");
  const std::vector<double> q = q_grid(o);
  const analysis::ScattererTable user =
      o.table.empty() ? analysis::ScattererTable{} : io::read_scatterer_table(o.table);

  const io::StoredRun run = io::read_histogram_result(o.input);
  const HistogramResult& res = run.result;
  analysis::ScattererAssignment assignment = scatterers(o, run);
  deuterate(o, res, assignment.species);
  const std::vector<analysis::ScattererWeight> weights =
      analysis::species_weights(assignment.species, radiation, user);
  if (radiation == Radiation::xray && q.back() > kXrayFitQMax)
    for (const auto& w : weights)
      if (!w.constant())
        throw UsageError("q up to " + number(q.back()) +
                         "/nm: the X-ray form factor fits hold "
                         "for q <= " +
                         number(kXrayFitQMax, 4) + "/nm (sin(theta)/lambda <= 2/A)");

  ScatteringResult out;
  out.guesses = assignment.guesses;
  out.intensity = analysis::debye_intensity(res, q, analysis::weights_on_grid(weights, q), debye);

  io::QTable table;
  table.comments = describe(o, run, assignment.species, weights, q, out.notes);
  table.title = std::string(radiation == Radiation::xray ? "X-ray" : "Neutron") +
                " scattering intensity (Debye, from pair histograms)";
  table.y_label = "I(q)";
  table.q = q;
  table.columns.push_back({"I", out.intensity.total});
  for (size_t p = 0; p < res.pairs.size(); ++p)
    table.columns.push_back(
        {"I_" + res.species[res.pairs[p].a].name + "-" + res.species[res.pairs[p].b].name,
         out.intensity.partial[p]});
  const size_t plotted = table.columns.size();
  const auto grid = analysis::weights_on_grid(weights, q);
  for (size_t s = 0; s < res.species.size(); ++s)
    table.columns.push_back({"f_" + res.species[s].name, grid[s]});

  const fs::path dir =
      o.output_dir.empty() ? fs::path(run.path).parent_path() : fs::path(o.output_dir);
  out.csv = (dir / "intensity.csv").string();
  out.xvg = (dir / "intensity.xvg").string();
  io::write_q_table_csv(out.csv, table);
  io::write_q_table_xvg(out.xvg, table, plotted);
  return out;
}

void add_scattering_command(CLI::App& app) {
  auto o = std::make_shared<ScatteringOptions>();
  CLI::App* cmd = app.add_subcommand(
      "scattering",
      "X-ray or neutron scattering intensity I(q) of a finished run from its pair histograms "
      "(Debye's equation; docs/scattering.md)");
  cmd->add_option("result", o->input, "Run output directory or its pairhist.h5")->required();
  cmd->add_option("--q-max", o->q_max, "Largest q, 1/nm (grid from 0)")->capture_default_str();
  cmd->add_option("--nq", o->nq, "Number of q values from 0 to --q-max")->capture_default_str();
  cmd->add_option("--q-file", o->q_file, "q values (1/nm), one per line, instead of the grid")
      ->excludes(cmd->get_option("--q-max"))
      ->excludes(cmd->get_option("--nq"));
  cmd->add_option("--radiation", o->radiation, "xray or neutron")->capture_default_str();
  cmd->add_option("--within-bin", o->within_bin,
                  "exact (mean of sin(qr)/qr over each bin) or centre (bin centres)")
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "Sums over bins in single or double precision")
      ->capture_default_str();
  cmd->add_option("--top", o->topology,
                  "Topology giving the species' elements (default: the run's)");
  cmd->add_option("--element", o->elements,
                  "SPECIES=SYMBOL: the element or ion of a species (O, Na+, Cl-, Ca2+, D)");
  cmd->add_option("--deuterate", o->deuteration,
                  "Neutron: FRACTION of D in every hydrogen species, or SPECIES=FRACTION");
  cmd->add_option("--table", o->table,
                  "Weights overriding the built-in ones: KEY w, or KEY a1..a4 b1..b4 c");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "Where intensity.csv and intensity.xvg go (default: beside pairhist.h5)");
  cmd->callback([o]() {
    const ScatteringResult r = compute_scattering(*o);
    if (!r.guesses.empty()) {
      std::string list;
      for (const auto& g : r.guesses) list += (list.empty() ? "" : ", ") + g;
      std::fprintf(stderr,
                   "pairhist scattering: warning: elements guessed from atom names: %s (set them "
                   "with --element SPECIES=SYMBOL)\n",
                   list.c_str());
    }
    for (const auto& n : r.notes)
      std::fprintf(stderr, "pairhist scattering: note: %s\n", n.c_str());
    std::printf("pairhist scattering: wrote %s and %s (%zu q from %g to %g /nm)\n", r.csv.c_str(),
                r.xvg.c_str(), r.intensity.q.size(), r.intensity.q.front(), r.intensity.q.back());
  });
}

}  // namespace pairhist
