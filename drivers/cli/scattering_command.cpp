#include "drivers/cli/scattering_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "drivers/cli/scattering_choice.hpp"
#include "drivers/cli/scattering_errors.hpp"
#include "drivers/cli/scattering_excess.hpp"
#include "drivers/cli/scattering_factor_options.hpp"
#include "drivers/cli/scattering_units.hpp"
#include "drivers/report/gnuplot_script.hpp"
#include "io/common/atomic_file.hpp"
#include "io/common/output_paths.hpp"
#include "io/scattering/scattering_writers.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist {

namespace {

namespace fs = std::filesystem;
using analysis::Radiation;

constexpr double kPi = 3.14159265358979323846;

std::string number(double v, int digits = 6) {
  return scattering_number(v, digits);
}

std::string pair_label(const HistogramResult& res, const PairHistogram& p) {
  return res.species[p.a].name + "-" + res.species[p.b].name;
}

/// The header lines both outputs share: the options, every species, whether the run finished.
void describe_inputs(const ScatteringOptions& o, const ScatteringInputs& in,
                     const std::string& options_line, std::vector<std::string>& c,
                     std::vector<std::string>& notes) {
  const HistogramResult& res = in.run.result;
  const bool xray = in.radiation == Radiation::xray;
  const double dr = analysis::bin_edges_nm(res)[1];
  c.push_back("radiation = " + o.radiation + ", " + options_line + ", frames = " +
              std::to_string(res.frame_indices.size()) + ", bin width = " + number(dr) +
              " nm, q_max * bin width = " + number(in.q.back() * dr, 3));
  const auto& species = in.assignment.species;
  for (size_t s = 0; s < species.size(); ++s)
    c.push_back("species " + species[s].species + ": " +
                (res.frame_species_counts.empty()
                     ? std::to_string(res.species[s].count)
                     : number(res.mean_species_count(static_cast<int>(s))) + " (mean per frame)") +
                " atoms of " + species[s].label + " (" + species[s].origin + "), " +
                (xray ? "f(0) = " : "b = ") + number(in.weights[s].at(0)) + (xray ? "" : " fm") +
                " from " + in.weights[s].source);
  // Marked as rdf.csv marks it (complete = 0, stopped_by = ...): written at a completed interval
  // of a run still counting, or when a signal or bad frame stopped it.
  if (!res.sphere.empty())
    c.push_back("sphere = " + res.sphere + " (centre: " + res.sphere_centre +
                "): each frame's atoms within R of the centre, without a box; the self term "
                "sum_A N_A f_A^2 takes each species' mean atoms per frame");
  for (const std::string& n : in.run.notes) notes.push_back(n);  // a file without a checksum
  if (!res.complete)
    notes.push_back("complete = 0, stopped_by = " + res.stopped_by + ": the run " +
                    (res.stopped_by == "in progress" ? "was still counting" : "stopped early") +
                    ", " + std::to_string(res.frame_indices.size()) + " frames");
  if (in.q.back() * dr > 1)
    notes.push_back("q_max * bin width = " + number(in.q.back() * dr, 3) +
                    " > 1: the within-bin treatment dominates the error at high q; count with "
                    "more bins (docs/scattering.md)");
}

/// The Debye intensity's header: what was computed, from what, and what it is not.
std::vector<std::string> describe_debye(const ScatteringOptions& o, const ScatteringInputs& in,
                                        std::vector<std::string>& notes) {
  const HistogramResult& res = in.run.result;
  std::vector<std::string> c;
  c.push_back(std::string("pairhist ") + kVersionText +
              " scattering: Debye intensities from the pair histograms of " + in.run.path);
  c.push_back(std::string("q in 1/nm (4 pi sin(theta) / lambda); I(q) per frame in ") +
              (in.radiation == Radiation::xray ? "electrons^2" : "fm^2") +
              " (coherent, no incoherent or inelastic background)");
  describe_inputs(o, in, "within_bin = " + o.within_bin + ", precision = " + o.precision, c, notes);
  double beyond = 0, all = 0;
  for (const PairHistogram& p : res.pairs) {
    beyond += analysis::pairs_beyond_rmax(res, p);
    all += res.mean_pairs_per_frame(p);
  }
  const std::string r_max = number(res.r_max) + " " + res.length_unit;
  if (res.box_kind != "none") {
    notes.push_back("periodic box (" + res.box_kind + "): the histograms stop at r_max = " + r_max +
                    ", so this is the Debye sum of every atom's neighbourhood cut at r_max "
                    "(a sphere-like cut), not the periodic system's intensity: expect truncation "
                    "ripples of period about 2 pi / r_max and a wrong I(q) below ~2 pi / r_max "
                    "(--structure-factor gives the bulk's S(q))");
  } else if (beyond > 0.5) {
    notes.push_back(number(100 * beyond / all, 3) + "% of the pairs lie beyond r_max = " + r_max +
                    " and are missing from the sum: run again with a larger --rmax for the "
                    "whole system's intensity");
  } else {
    notes.push_back("no periodic box and every pair within r_max = " + r_max +
                    ": the Debye sum covers every pair");
  }
  for (const std::string& n : notes) c.push_back("note: " + n);
  c.push_back(
      "columns: I = sum of the partials I_A-B (I_A-A includes the self term N_A f_A^2); "
      "f_A = weight of species A at q; re-weight a partial by f'_A f'_B / (f_A f_B)");
  return c;
}

/// The structure factor's header, with what the cut at r_max does to it.
std::vector<std::string> describe_structure(const ScatteringOptions& o, const ScatteringInputs& in,
                                            const analysis::StructureFactors& sq,
                                            std::vector<std::string>& notes) {
  const HistogramResult& res = in.run.result;
  const std::string unit = in.radiation == Radiation::xray ? "electrons^2" : "fm^2";
  std::vector<std::string> c;
  c.push_back(std::string("pairhist ") + kVersionText +
              " scattering: Faber-Ziman structure factors from the g(r) of " + in.run.path);
  c.push_back(
      "q in 1/nm (4 pi sin(theta) / lambda); S_A-B(q) = 1 + 4 pi rho integral_0^r_max r^2 "
      "(g_A-B(r) - 1) sin(qr)/(qr) W(r) dr; F(q) = sum_A,B c_A c_B f_A f_B (S_A-B - 1) in " +
      unit + " per atom; S(q) = 1 + F(q) / <f>^2");
  describe_inputs(o, in, "window = " + o.window + ", within_bin = " + o.within_bin, c, notes);
  std::string concentrations;
  for (size_t s = 0; s < res.species.size(); ++s)
    concentrations +=
        (s == 0 ? "" : ", ") + res.species[s].name + " " + number(sq.concentration[s], 4);
  c.push_back("density rho = N <1/V> = " + number(sq.density, 10) +
              " atoms/nm^3 of the run's species; concentrations c_A: " + concentrations);
  const double r_max = analysis::bin_edges_nm(res).back();
  const std::string cut = "g(r) is known up to r_max = " + number(r_max) + " nm only";
  if (o.window == "lorch")
    notes.push_back(cut +
                    ": Lorch's window damps the truncation ripples but smooths S(q) over about "
                    "2 pi / r_max = " +
                    number(2 * kPi / r_max, 3) + "/nm, and S(q) below that is not reliable");
  else
    notes.push_back(cut + ": the sharp cut adds ripples of period 2 pi / r_max = " +
                    number(2 * kPi / r_max, 3) +
                    "/nm to S(q) (--window lorch damps them), and S(q) below that is not reliable");
  for (const std::string& n : notes) c.push_back("note: " + n);
  c.push_back(
      "columns: S = total (Faber-Ziman), S_A-B = partials, F = sum of c_A c_B f_A f_B (S_A-B - "
      "1) (the bulk's coherent intensity per atom is <f^2> + F), f_A = weight of species A at q");
  return c;
}

void debye_table(const ScatteringOptions& o, const ScatteringInputs& in,
                 const analysis::DebyeKernels* kernels, ScatteringResult& out) {
  analysis::DebyeOptions debye;
  debye.kernels = kernels;
  debye.within_bin = analysis::parse_within_bin(o.within_bin);
  debye.precision =
      o.precision == "single" ? analysis::SumPrecision::single : analysis::SumPrecision::double_;
  const HistogramResult& res = in.run.result;
  out.intensity = analysis::debye_intensity(res, in.q, in.weight_grid, debye);
  io::QTable& table = out.table;
  table.comments = describe_debye(o, in, out.notes);
  table.title = std::string(in.radiation == Radiation::xray ? "X-ray" : "Neutron") +
                " scattering intensity (Debye, from pair histograms)";
  table.y_label = "I(q)";
  table.columns.push_back({"I", out.intensity.total});
  for (size_t p = 0; p < res.pairs.size(); ++p)
    table.columns.push_back({"I_" + pair_label(res, res.pairs[p]), out.intensity.partial[p]});
  out.plotted = table.columns.size();
  out.stem = "intensity";
}

void structure_table(const ScatteringOptions& o, const ScatteringInputs& in,
                     const analysis::StructureKernels* kernels, ScatteringResult& out) {
  analysis::StructureOptions options;
  options.kernels = kernels;
  options.window = analysis::parse_window(o.window);
  options.within_bin = analysis::parse_within_bin(o.within_bin);
  const HistogramResult& res = in.run.result;
  out.structure = analysis::structure_factors(res, in.q, in.weight_grid, options);
  io::QTable& table = out.table;
  table.comments = describe_structure(o, in, out.structure, out.notes);
  table.title = std::string(in.radiation == Radiation::xray ? "X-ray" : "Neutron") +
                " structure factor (Faber-Ziman, from g(r))";
  table.y_label = "S(q)";
  table.columns.push_back({"S", out.structure.total});
  for (size_t p = 0; p < res.pairs.size(); ++p)
    table.columns.push_back({"S_" + pair_label(res, res.pairs[p]), out.structure.partial[p]});
  out.plotted = table.columns.size();
  table.columns.push_back({"F", out.structure.f_total});
  out.stem = "sq";
}

/// What the .h5 holds: the table's curves at full precision and what they are.
void hdf5_data(const ScatteringOptions& o, const ScatteringInputs& in, ScatteringResult& out) {
  const HistogramResult& res = in.run.result;
  const bool xray = in.radiation == Radiation::xray;
  io::ScatteringData& d = out.data;
  d.quantity = o.structure_factor ? "structure_factor" : "intensity";
  d.radiation = analysis::radiation_name(in.radiation);
  d.weight_unit = xray ? "electrons" : "fm";
  d.runs = {in.run.path};
  d.n_frames = static_cast<int64_t>(res.frame_indices.size());
  d.complete = res.complete;
  d.stopped_by = res.stopped_by;
  d.header = out.table.comments;
  d.q = in.q;
  const std::string squared = xray ? "electrons^2" : "fm^2";
  const std::vector<std::vector<double>>* partials = &out.intensity.partial;
  d.options = {{"within_bin", o.within_bin}};
  // Said where not the defaults, so that the default files keep their bytes.
  if (o.form_factors != "itc") d.options.emplace_back("form_factors", o.form_factors);
  if (o.hydrogen != "bonded") d.options.emplace_back("hydrogen", o.hydrogen);
  if (o.water_factors != "standard") d.options.emplace_back("water_factors", o.water_factors);
  if (o.structure_factor) {
    d.options.emplace_back("window", o.window);
    d.density = out.structure.density;
    d.curves = {{"S", "1", out.structure.total},
                {"F", squared + " per atom", out.structure.f_total}};
    partials = &out.structure.partial;
  } else {
    d.options.emplace_back("precision", o.precision);
    d.curves = {{"I", squared + " per frame", out.intensity.total}};
  }
  for (size_t p = 0; p < res.pairs.size(); ++p)
    d.partials.push_back(
        {res.species[res.pairs[p].a].name, res.species[res.pairs[p].b].name, (*partials)[p]});
  for (size_t s = 0; s < res.species.size(); ++s) {
    const analysis::SpeciesScatterer& sc = in.assignment.species[s];
    io::ScatteringSpecies sp;
    sp.name = res.species[s].name;
    sp.scatterer = sc.label;
    sp.origin = sc.origin;
    sp.source = in.weights[s].source;
    sp.atoms = res.species[s].count;
    sp.deuterium = sc.deuterium;
    if (o.structure_factor) sp.concentration = out.structure.concentration[s];
    sp.weight = in.weight_grid[s];
    d.species.push_back(std::move(sp));
  }
}

}  // namespace

ScatteringResult scattering_from_inputs(const ScatteringOptions& o, const ScatteringInputs& in,
                                        const ScatteringKernels* kernels) {
  const HistogramResult& res = in.run.result;

  ScatteringResult out;
  out.run_path = in.run.path;
  out.guesses = in.assignment.guesses;
  for (const SpeciesInfo& s : res.species) out.species.push_back(s.name);
  for (const PairHistogram& p : res.pairs) out.pairs.push_back(pair_label(res, p));
  out.weights = in.weight_grid;
  out.box_kind = res.box_kind;
  const std::vector<double> edges = analysis::bin_edges_nm(res);
  out.r_max_nm = edges.back();
  const double nm_per_unit = edges.back() / res.r_max;
  for (double v : res.volumes)
    out.mean_volume_nm3 += v * nm_per_unit * nm_per_unit * nm_per_unit / res.volumes.size();
  out.table.q = in.q;
  if (o.structure_factor)
    structure_table(o, in, kernels ? &kernels->structure : nullptr, out);
  else
    debye_table(o, in, kernels ? &kernels->debye : nullptr, out);
  for (size_t s = 0; s < res.species.size(); ++s)
    out.table.columns.push_back({"f_" + res.species[s].name, in.weight_grid[s]});
  if (res.box_kind != "none")  // where the cut at r_max stops deciding the curves (plots mark it)
    out.table.comments.push_back(kReliableRange + number(2 * kPi / out.r_max_nm, 10) + " 1/nm");
  hdf5_data(o, in, out);
  add_block_errors(o, in, kernels, out);
  return out;
}

ScatteringResult compute_scattering(const ScatteringOptions& o,
                                    const analysis::ScattererAssignment* known) {
  return scattering_from_inputs(o, read_scattering_inputs(o, known), nullptr);
}

void name_scattering_files(const ScatteringOptions& o, ScatteringResult& r) {
  const fs::path dir =
      o.output_dir.empty() ? fs::path(r.run_path).parent_path() : fs::path(o.output_dir);
  std::error_code ec;
  if (!o.output_dir.empty() && !fs::create_directories(dir, ec) && ec)
    throw OutputError("cannot create the output directory " + o.output_dir + ": " + ec.message());
  r.csv = (dir / (r.stem + ".csv")).string();
  r.xvg = (dir / (r.stem + ".xvg")).string();
  r.h5 = (dir / (r.stem + ".h5")).string();
  if (!r.distribution_text.empty()) r.distribution_csv = (dir / (r.stem + "_pr.csv")).string();
}

void write_scattering(const ScatteringOptions& o, ScatteringResult& r) {
  name_scattering_files(o, r);
  io::write_q_table_csv(r.csv, r.table);
  io::write_q_table_xvg(r.xvg, r.table, r.plotted);
  io::write_scattering_hdf5(r.h5, r.data);
  if (!r.distribution_csv.empty())
    io::write_text_atomically(r.distribution_csv, r.distribution_text, "the excess's P(r)");
}

void report_scattering(const char* command, const std::vector<ScatteringResult>& results,
                       bool notes) {
  std::vector<std::string> said;  // the intensity and S(q) of one run share some notes
  for (const ScatteringResult& r : results) {
    if (!r.guesses.empty() && &r == &results.front()) {
      std::string list;
      for (const auto& g : r.guesses) list += (list.empty() ? "" : ", ") + g;
      std::fprintf(stderr,
                   "pairhist %s: warning: elements guessed from atom names: %s (set them with "
                   "--element SPECIES=SYMBOL)\n",
                   command, list.c_str());
    }
    for (const auto& n : r.notes) {
      if (!notes || std::find(said.begin(), said.end(), n) != said.end()) continue;
      said.push_back(n);
      std::fprintf(stderr, "pairhist %s: note: %s\n", command, n.c_str());
    }
  }
}

void add_scattering_options(CLI::App* cmd, ScatteringOptions& o, bool on_run) {
  cmd->add_option("--q-max", o.q_max, "Largest q, 1/nm (grid from 0)")->capture_default_str();
  cmd->add_option("--nq", o.nq, "Number of q values from 0 to --q-max")->capture_default_str();
  cmd->add_option("--q-file", o.q_file, "q values (1/nm), one per line, instead of the grid")
      ->excludes(cmd->get_option("--q-max"))
      ->excludes(cmd->get_option("--nq"));
  cmd->add_flag("--structure-factor", o.structure_factor,
                "Faber-Ziman S(q), F(q), S_AB(q) from g(r) (sq.csv, .xvg, .h5): periodic runs' "
                "default; runs without a box refuse it");
  cmd->add_flag("--cut-sphere-intensity", o.cut_sphere,
                std::string("Periodic runs: the Debye I(q) of the histograms cut at r_max (a "
                            "sphere of the liquid, not the bulk's) ") +
                    (on_run ? "as well as" : "instead of") + " S(q)");
  // `scattering` writes one quantity; `run` may write both.
  if (!on_run) cmd->get_option("--cut-sphere-intensity")->excludes("--structure-factor");
  cmd->add_option("--window", o.window, "Of S(q): none or lorch (sin(pi r/r_max) / (pi r/r_max))")
      ->capture_default_str();
  cmd->add_option("--within-bin", o.within_bin,
                  "exact (each bin's pairs spread over it) or centre (at the bin centres)")
      ->capture_default_str();
  cmd->add_option("--element", o.elements,
                  "SPECIES=SYMBOL: the element or ion of a species (O, Na+, Cl-, Ca2+, D)");
  cmd->add_option("--deuterate", o.deuteration,
                  "Neutron: FRACTION of D in every hydrogen species, or SPECIES=FRACTION");
  cmd->add_option("--table", o.table,
                  "Weights overriding the built-in ones: KEY w, KEY a1..a4 b1..b4 c (Cromer-Mann) "
                  "or KEY a1..a5 b1..b5 c (Waasmaier-Kirfel)");
  add_form_factor_options(cmd, o);
  add_scattering_unit_options(cmd, o);
}

std::vector<std::string> scattering_flags_given(const CLI::App& cmd) {
  std::vector<std::string> given;
  for (const char* flag :
       {"--q-max", "--nq", "--q-file", "--structure-factor", "--cut-sphere-intensity", "--window",
        "--within-bin", "--element", "--deuterate", "--table", "--form-factors", "--hydrogen",
        "--water-factors", "--maff", "--q-unit", "--per", "--molecules", "--concentration",
        "--number-density"})
    if (cmd.count(flag) > 0) given.push_back(flag);
  return given;
}

namespace {

/// What `pairhist scattering` reads and writes: no output may replace an input.
io::CommandFiles scattering_files(const ScatteringOptions& o) {
  io::CommandFiles files;
  files.read(o.input, "the run " + o.input, {"pairhist.h5"});
  files.read(o.subtract, "--subtract " + o.subtract, {"pairhist.h5"});
  files.read(o.topology, "--top " + o.topology);
  files.read(o.q_file, "--q-file " + o.q_file);
  files.read(o.table, "--table " + o.table);
  std::error_code ec;
  const fs::path run =
      fs::is_directory(o.input, ec) ? fs::path(o.input) / "pairhist.h5" : fs::path(o.input);
  const fs::path dir = o.output_dir.empty() ? run.parent_path() : fs::path(o.output_dir);
  const std::string stem = !o.subtract.empty() ? "excess" : o.structure_factor ? "sq" : "intensity";
  for (const char* ext : {".csv", ".xvg", ".h5"}) {
    const std::string file = (dir / (stem + ext)).string();
    files.write(file, "the output " + file);
  }
  if (!o.subtract.empty()) {
    const std::string file = (dir / "excess_pr.csv").string();
    files.write(file, "the output " + file);
  }
  return files;
}

}  // namespace

void add_scattering_command(CLI::App& app) {
  auto o = std::make_shared<ScatteringOptions>();
  auto overwrite = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "scattering",
      "X-ray or neutron scattering of a finished run from its pair histograms: the intensity I(q) "
      "(Debye's equation) or, for periodic runs, the structure factors S(q) (docs/scattering.md)");
  cmd->add_option("result", o->input, "Run output directory or its pairhist.h5")->required();
  cmd->add_option("--radiation", o->radiation, "xray or neutron")->capture_default_str();
  add_scattering_options(cmd, *o, false);
  cmd->add_option("--precision", o->precision,
                  "Debye sums over bins in single or double precision (S(q): always double)")
      ->capture_default_str();
  cmd->add_option("--top", o->topology,
                  "Topology giving the species' elements (default: the run's)");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "Where the .csv, .xvg and .h5 go (default: beside pairhist.h5)");
  cmd->add_option("--subtract", o->subtract,
                  "A solvent run (directory or pairhist.h5): write the excess intensity "
                  "I(RESULT) - I(SOLVENT) with the same options (excess.csv, .xvg, .h5, and P(r) "
                  "in excess_pr.csv); of two --sphere runs, less the cross term with a uniform "
                  "solvent background (CAPRIQORN's excess)");
  cmd->add_option("--match-shell", o->match_shell,
                  "With --subtract of --sphere runs: scale the solvent run to the solution's "
                  "solvent density in the shell R - W < d <= R (W in nm)");
  cmd->add_flag("--overwrite", *overwrite,
                "Replace existing output files without keeping a backup #NAME.N# (default: kept, "
                "as GROMACS does)");
  cmd->callback([o, cmd, overwrite]() {
    if (cmd->count("--match-shell") > 0 && (o->subtract.empty() || !(o->match_shell > 0)))
      throw UsageError("--match-shell takes a width > 0 (nm) and applies to --subtract only");
    refuse_scaled_structure_factor(*o);
    ScatteringOptions chosen;  // S(q) or I(q) as the run decides (scattering_choice.hpp)
    ScatteringResult r = compute_chosen_scattering(
        *o, cmd->count("--window") > 0,
        [overwrite](const ScatteringOptions& c) { scattering_files(c).check(*overwrite); }, chosen);
    // A periodic run's default S(q) is per atom: intensity units need --cut-sphere-intensity.
    if (chosen.structure_factor && !o->structure_factor && scaled_intensities(*o))
      throw UsageError(
          "--per molecule, --concentration and --number-density scale intensities, and this "
          "periodic run gives S(q) by default: add --cut-sphere-intensity for its I(q)");
    express_scattering_units(chosen, r);
    write_scattering(chosen, r);
    report_scattering("scattering", {r}, true);
    std::printf("pairhist scattering: wrote %s, %s and %s (%zu q from %g to %g /%s)\n",
                r.csv.c_str(), r.xvg.c_str(), r.h5.c_str(), r.table.q.size(), r.table.q.front(),
                r.table.q.back(), r.table.q_unit == "A" ? "A" : "nm");
    if (!r.distribution_csv.empty())
      std::printf("pairhist scattering: wrote %s (P(r) of the excess)\n",
                  r.distribution_csv.c_str());
    for (const std::string& line : r.summary)
      std::printf("pairhist scattering: %s\n", line.c_str());
  });
}

}  // namespace pairhist
