#include "drivers/cli/scattering_inputs.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <locale>
#include <map>
#include <sstream>

#include "drivers/job/job_inputs.hpp"
#include "io/scattering_table_reader.hpp"
#include "io/topology_reader.hpp"
#include "pairhist/errors.hpp"

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
  if (!o.q_values.empty()) {
    for (double v : o.q_values) {
      if (!std::isfinite(v) || v < 0 || (!q.empty() && v <= q.back()))
        throw UsageError("q values must be finite, not negative and increasing, got " +
                         scattering_number(v) +
                         (q.empty() ? "" : " after " + scattering_number(q.back())));
      q.push_back(v);
    }
    return q;
  }
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
  std::vector<std::vector<int>> atoms = resolve_species(job, top);
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

}  // namespace

std::string scattering_number(double v, int digits) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s.precision(digits);
  s << v;
  return s.str();
}

ScatteringInputs read_scattering_inputs(const ScatteringOptions& o) {
  ScatteringInputs in;
  in.radiation = analysis::parse_radiation(o.radiation);
  if (in.radiation == Radiation::xray && !o.deuteration.empty())
    throw UsageError("--deuterate changes neutron scattering only (X-rays see D as H)");
  in.q = q_grid(o);
  const analysis::ScattererTable user =
      o.table.empty() ? analysis::ScattererTable{} : io::read_scatterer_table(o.table);

  in.run = io::read_histogram_result(o.input);
  in.assignment = scatterers(o, in.run);
  deuterate(o, in.run.result, in.assignment.species);
  in.weights = analysis::species_weights(in.assignment.species, in.radiation, user);
  if (in.radiation == Radiation::xray && in.q.back() > kXrayFitQMax)
    for (const auto& w : in.weights)
      if (!w.constant())
        throw UsageError("q up to " + scattering_number(in.q.back()) +
                         "/nm: the X-ray form factor fits hold for q <= " +
                         scattering_number(kXrayFitQMax, 4) + "/nm (sin(theta)/lambda <= 2/A)");
  in.weight_grid = analysis::weights_on_grid(in.weights, in.q);
  return in;
}

}  // namespace pairhist
