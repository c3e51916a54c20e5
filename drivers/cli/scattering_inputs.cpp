#include "drivers/cli/scattering_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <locale>
#include <map>
#include <sstream>
#include <stdexcept>

#include "analysis/scattering_structure.hpp"
#include "drivers/cli/scattering_factor_options.hpp"
#include "drivers/cli/scattering_units.hpp"
#include "drivers/job/job_inputs.hpp"
#include "drivers/job/run_definition.hpp"
#include "io/scattering/q_file_reader.hpp"
#include "io/scattering/scattering_table_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

namespace fs = std::filesystem;
using analysis::Radiation;

constexpr double kPi = 3.14159265358979323846;
// International Tables' Cromer-Mann fits hold for sin(theta)/lambda <= 2/A.
constexpr double kXrayFitQMax = 4 * kPi * 2 * 10;
// The most q values a grid or a q file may give, and q values times bins the sums may take.
constexpr size_t kMaxQValues = 10000000;
constexpr double kMaxQBins = 1e8;

bool parse_number(const std::string& text, double& value) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  return static_cast<bool>(in >> value) && (in >> std::ws).eof() && std::isfinite(value);
}

/// "1/nm" or "1/A" as --q-unit says ("1/nm" for a bad one, which is reported on its own).
std::string q_label(const ScatteringOptions& o) {
  try {
    return q_unit_label(o.q_unit);
  } catch (const UsageError&) {
    return "1/nm";
  }
}

/// The problems of --q-max and --nq (when they make the grid).
std::vector<std::string> q_grid_problems(const ScatteringOptions& o) {
  std::vector<std::string> p;
  if (!o.q_values.empty() || !o.q_file.empty()) return p;
  if (!(o.q_max > 0) || !std::isfinite(o.q_max))
    p.push_back("--q-max must be a positive number of " + q_label(o) + ", got " +
                std::to_string(o.q_max));
  if (o.nq < 2 || o.nq > static_cast<int>(kMaxQValues))
    p.push_back("--nq must be between 2 and 10^7, got " + std::to_string(o.nq));
  return p;
}

std::string beyond_xray_fits(double q_nm) {
  return "q up to " + scattering_number(q_nm) +
         "/nm: the X-ray form factor fits hold for q <= " + scattering_number(kXrayFitQMax, 4) +
         "/nm (sin(theta)/lambda <= 2/A)";
}

/// The grid in the options' q unit; q_grid() converts it to 1/nm.
std::vector<double> q_grid_in_unit(const ScatteringOptions& o) {
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
  if (!o.q_file.empty()) return io::read_q_file(o.q_file, kMaxQValues, q_label(o));
  if (const std::vector<std::string> p = q_grid_problems(o); !p.empty()) throw UsageError(p[0]);
  for (int i = 0; i < o.nq; ++i) q.push_back(o.q_max * i / (o.nq - 1));
  return q;
}

/// The q grid in 1/nm, what every sum takes.
std::vector<double> q_grid(const ScatteringOptions& o) {
  std::vector<double> q = q_grid_in_unit(o);
  const double per_nm = per_nm_per_q_unit(o.q_unit);
  if (per_nm != 1)
    for (double& v : q) v *= per_nm;
  return q;
}

/// SPECIES=VALUE options into a map, checking that the species exist.
std::map<std::string, std::string> by_species(const std::vector<std::string>& items,
                                              const char* option,
                                              const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(std::string(option) + " '" + item + "': expected SPECIES=VALUE");
    const std::string name = item.substr(0, eq);
    if (std::find(names.begin(), names.end(), name) == names.end())
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

/// The topology of `job` and the atoms of its species (`job.species` filled in where the
/// trajectory carries its own).
struct SpeciesAtoms {
  analysis::Topology topology;
  std::vector<std::string> names;
  std::vector<std::vector<int>> atoms;
};

SpeciesAtoms species_atoms(JobOptions& job) {
  SpeciesAtoms out;
  out.topology = load_job_topology(job);
  for (const SpeciesSpec& s : job.species) out.names.push_back(s.name);
  out.atoms = resolve_species(job, out.topology, "pairhist scattering");
  return out;
}

/// Every species' scatterer: --element where given, else from the topology's atoms.
analysis::ScattererAssignment scatterers(const ScatteringOptions& o, const io::StoredRun& run) {
  const HistogramResult& res = run.result;
  std::vector<std::string> names;
  for (const SpeciesInfo& s : res.species) names.push_back(s.name);
  const std::map<std::string, std::string> explicit_labels =
      by_species(o.elements, "--element", names);
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
  const SpeciesAtoms found = species_atoms(job);
  for (size_t s = 0; s < names.size(); ++s) {
    if (explicit_labels.count(names[s]) > 0) continue;
    if (static_cast<int64_t>(found.atoms[s].size()) != res.species[s].count)
      throw InputError("topology " + job.topology + " gives species " + names[s] + " " +
                       std::to_string(found.atoms[s].size()) + " atoms, the run counted " +
                       std::to_string(res.species[s].count) + ": is it the run's topology?");
  }
  return analysis::assign_scatterers(found.topology, names, found.atoms, explicit_labels);
}

/// Deuterium fractions into the species: a bare FRACTION for every hydrogen species, then
/// SPECIES=FRACTION.
void deuterate(const ScatteringOptions& o, const std::vector<std::string>& names,
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
  for (const auto& [name, value] : by_species(per_species, "--deuterate", names)) {
    double x = 0;
    if (!parse_number(value, x)) throw UsageError("--deuterate '" + value + "': not a fraction");
    for (auto& s : species)
      if (s.species == name) s.deuterium = x;
  }
}

/// The --table keys no species uses: neither its name nor its element, nor D where a species is
/// deuterated (a misspelt key otherwise left the built-in weight in place without a word).
std::vector<std::string> unused_table_keys(const analysis::ScattererTable& user,
                                           const std::vector<analysis::SpeciesScatterer>& species) {
  std::vector<std::string> unused;
  for (const auto& entry : user) {
    const std::string& key = entry.first;
    bool used = false;
    for (const analysis::SpeciesScatterer& s : species)
      used = used || key == s.species || key == s.label || (key == "D" && s.deuterium > 0);
    if (!used) unused.push_back(key);
  }
  return unused;
}

/// Deuteration, MAFF, every species' weight and its values on the grid, from in.assignment; a
/// warning for --table keys that match nothing where `warn_unused`.
void decide_weights(const ScatteringOptions& o, const std::vector<std::string>& names,
                    const analysis::ScattererTable& user, ScatteringInputs& in, bool warn_unused) {
  deuterate(o, names, in.assignment.species);
  choose_maff(o, in.assignment.species);
  if (warn_unused) {
    const std::vector<std::string> unused = unused_table_keys(user, in.assignment.species);
    std::string keys, known;
    for (const std::string& k : unused) keys += (keys.empty() ? "'" : ", '") + excerpt(k) + "'";
    for (const analysis::SpeciesScatterer& s : in.assignment.species)
      known += (known.empty() ? "" : ", ") + s.species + " (" + s.label + ")";
    if (!unused.empty())
      std::fprintf(stderr,
                   "pairhist: warning: --table %s: %s match%s no species or element of the run, "
                   "ignored (species: %s)\n",
                   o.table.c_str(), keys.c_str(), unused.size() == 1 ? "es" : "", known.c_str());
  }
  in.weights = analysis::species_weights(in.assignment.species, in.radiation, user, in.xray);
  if (in.radiation == Radiation::xray && in.q.back() > kXrayFitQMax)
    for (const auto& w : in.weights)
      if (!w.constant()) throw UsageError(beyond_xray_fits(in.q.back()));
  in.weight_grid = analysis::weights_on_grid(in.weights, in.q);
}

/// The rest of read_scattering_inputs() once `run` is at hand: the scatterers and weights.
ScatteringInputs inputs_of_run(const ResolvedScattering& resolved, io::StoredRun run,
                               const analysis::ScattererAssignment* known) {
  const ScatteringOptions& o = resolved.options;
  ScatteringInputs in;
  in.radiation = resolved.radiation;
  in.xray = resolved.xray;
  in.q = resolved.q;
  in.run = std::move(run);
  if (const std::string problem = scattering_size_problem(in.q.size(), in.run.result.nbins);
      !problem.empty())
    throw UsageError(in.run.path + ": " + problem);
  // Scattering weighs each species by its atoms: one number per run, not per frame.
  if (in.run.result.dynamic())
    throw UsageError(o.input +
                     ": a run with a dynamic species (within/around): its sizes change per "
                     "frame, which the scattering intensities do not take");
  if (known != nullptr && known->species.size() != in.run.result.species.size())
    throw std::logic_error("read_scattering_inputs: scatterers of another run");
  in.assignment = known != nullptr ? *known : scatterers(o, in.run);
  std::vector<std::string> names;
  for (const SpeciesInfo& s : in.run.result.species) names.push_back(s.name);
  // With `known` the run decided its scatterers, and warned, before it counted.
  decide_weights(o, names, resolved.table, in, known == nullptr);
  return in;
}

/// UsageError for the first atom (in the order of species, then atoms) that an earlier species
/// holds too: scattering needs every atom in one species only.
void refuse_shared_atoms(const std::vector<std::string>& names, const RunDefinition& run) {
  // The run has counted the atoms each of its pairs of species shares (run.shared): with every
  // pair among them and none shared, no atom needs looking at.
  size_t cross = 0;
  bool shared = false;
  for (size_t p = 0; p < run.pairs.size(); ++p)
    if (run.pairs[p].first != run.pairs[p].second) ++cross, shared = shared || run.shared[p] > 0;
  if (!shared && cross == names.size() * (names.size() - 1) / 2) return;
  std::vector<bool> taken(static_cast<size_t>(run.topology_atoms), false);
  for (size_t s = 0; s < run.atoms.size(); ++s)
    for (int i : run.atoms[s]) {
      if (taken[static_cast<size_t>(i)])
        for (size_t t = 0; t < s; ++t)  // the one earlier species holding it (atoms ascend)
          if (std::binary_search(run.atoms[t].begin(), run.atoms[t].end(), i))
            throw UsageError("species " + names[t] + " and " + names[s] +
                             " share atoms: scattering needs every atom in one species only");
      taken[static_cast<size_t>(i)] = true;
    }
}

}  // namespace

std::string scattering_size_problem(size_t nq, int64_t nbins) {
  const double products = static_cast<double>(nq) * static_cast<double>(nbins);
  if (products <= kMaxQBins) return "";
  return std::to_string(nq) + " q values x " + std::to_string(nbins) +
         " bins are over the limit of 10^8 q x bins (a sine integral each; their kernels would "
         "take " +
         scattering_number(products * 8 / 1e9, 3) +
         " GB): give fewer q values (--nq, --q-file) or count with wider bins";
}

std::string scattering_number(double v, int digits) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s.precision(digits);
  s << v;
  return s.str();
}

std::vector<std::string> scattering_option_problems(const ScatteringOptions& o,
                                                    const std::vector<std::string>& species,
                                                    const std::string& radiation_flag) {
  std::vector<std::string> p;
  const auto check = [&p](const auto& parse) {
    try {
      parse();
    } catch (const UsageError& e) {
      p.push_back(e.what());
    }
  };
  bool xray = false, neutron = false;
  try {
    xray = analysis::parse_radiation(o.radiation) == Radiation::xray;
    neutron = !xray;
  } catch (const UsageError&) {
    p.push_back(radiation_flag + " must be xray or neutron, got '" + excerpt(o.radiation) + "'");
  }
  check([&] { analysis::parse_within_bin(o.within_bin); });
  if (o.precision != "single" && o.precision != "double")
    p.push_back("--precision must be single or double, got '" + excerpt(o.precision) + "'");
  // Always: periodic runs compute S(q) by default, known only once the run is read.
  check([&] { analysis::parse_window(o.window); });
  if (xray && !o.deuteration.empty())
    p.push_back("--deuterate changes neutron scattering only (X-rays see D as H)");
  for (const std::string& line : form_factor_problems(o, neutron, species, radiation_flag))
    p.push_back(line);
  for (const std::string& line : scattering_unit_problems(o)) p.push_back(line);
  for (const std::string& line : q_grid_problems(o)) p.push_back(line);
  // Without a table every X-ray weight is a fitted form factor; a table may make them constant,
  // which decide_weights() tells once the species' labels are known.
  double unit = 1;
  try {
    unit = per_nm_per_q_unit(o.q_unit);
  } catch (const UsageError&) {  // reported above
  }
  if (xray && o.table.empty() && o.q_values.empty() && o.q_file.empty() &&
      o.q_max * unit > kXrayFitQMax)
    p.push_back(beyond_xray_fits(o.q_max * unit));
  for (const std::string& item : o.deuteration) {
    const size_t eq = item.find('=');
    double x = 0;
    if (!parse_number(eq == std::string::npos ? item : item.substr(eq + 1), x))
      p.push_back("--deuterate '" + item + "': not a fraction");
    else if (eq != std::string::npos && !species.empty())
      check([&] { by_species({item}, "--deuterate", species); });
  }
  if (!species.empty()) check([&] { by_species(o.elements, "--element", species); });
  return p;
}

ResolvedScattering resolve_scattering(const ScatteringOptions& o) {
  if (const std::vector<std::string> p = scattering_option_problems(o, {}); !p.empty()) {
    std::string lines;
    for (const std::string& line : p) lines += (lines.empty() ? "" : "\n") + line;
    throw UsageError(lines);
  }
  ResolvedScattering out;
  out.options = o;
  out.radiation = analysis::parse_radiation(o.radiation);
  out.xray = {analysis::parse_form_factor_set(o.form_factors),
              analysis::parse_hydrogen_model(o.hydrogen)};
  out.q = q_grid(o);
  if (!o.table.empty()) out.table = io::read_scatterer_table(o.table);
  return out;
}

ScatteringInputs read_scattering_inputs(const ScatteringOptions& o,
                                        const analysis::ScattererAssignment* known) {
  const ResolvedScattering resolved = resolve_scattering(o);
  return inputs_of_run(resolved, io::read_histogram_result(o.input), known);
}

ScatteringInputs scattering_inputs(const ResolvedScattering& resolved, io::StoredRun run,
                                   const analysis::ScattererAssignment* known) {
  return inputs_of_run(resolved, std::move(run), known);
}

analysis::ScattererAssignment decide_run_scatterers(const ResolvedScattering& resolved,
                                                    const RunDefinition& run,
                                                    const analysis::Topology& topology) {
  const ScatteringOptions& o = resolved.options;
  ScatteringInputs in;
  in.radiation = resolved.radiation;
  in.xray = resolved.xray;
  in.q = resolved.q;
  const JobOptions& job = run.options;
  std::vector<std::string> names;
  for (const SpeciesSpec& s : job.species) names.push_back(s.name);
  require_fixed_atoms(job.species, run.dynamic, run.centred, "pairhist scattering");
  // check_scattering_input() refuses shared atoms once the run has counted; here they are known
  // from the selections already.
  refuse_shared_atoms(names, run);
  in.assignment = analysis::assign_scatterers(topology, names, run.atoms,
                                              by_species(o.elements, "--element", names));
  const analysis::ScattererAssignment decided = in.assignment;
  decide_weights(o, names, resolved.table, in, true);  // deuterates in.assignment
  return decided;
}

}  // namespace pairhist
