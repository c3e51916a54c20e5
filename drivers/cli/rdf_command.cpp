#include "drivers/cli/rdf_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <tuple>
#include <utility>

#include "analysis/gmx_rdf.hpp"
#include "analysis/positions.hpp"
#include "drivers/cli/gmx_arguments.hpp"
#include "drivers/cli/rdf_counts.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/common/atomic_file.hpp"
#include "io/common/header_text.hpp"
#include "io/common/input_path.hpp"
#include "io/common/output_paths.hpp"
#include "io/topology/ndx_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/g96_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "io/xtc/xtc_scanner.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist {
namespace {

const std::vector<GmxOption>& rdf_options() {
  static const std::vector<GmxOption> options = {
      {"f", GmxOption::value,
       "Trajectory (any format pairhist run reads, .gro/.g96/.pdb frames too); default: the "
       "frames of -s"},
      {"s", GmxOption::value,
       "Structure (.tpr, .gro, .g96, .pdb, ...; default topol.tpr if present, else -f when a "
       ".gro/.g96/.pdb with names)"},
      {"n", GmxOption::value, "Index file (.ndx): its group names and numbers are selections"},
      {"o", GmxOption::value, "Output g(r), xvg (default rdf.xvg)"},
      {"cn", GmxOption::value, "Output cumulative numbers n(r), xvg (only if given)"},
      {"ref", GmxOption::value, "Reference selection (pairhist's selection language, or a group)"},
      {"sel", GmxOption::values, "Selections to compute g(r) of around -ref (one or more)"},
      {"b", GmxOption::value, "First time to use (-tu)"},
      {"e", GmxOption::value, "Last time to use (-tu)"},
      {"dt", GmxOption::value, "Only frames at multiples of dt after the first (-tu; XTC)"},
      {"tu", GmxOption::value, "Time unit: fs, ps, ns, us, ms, s (default ps)"},
      {"bin", GmxOption::value, "Bin width (nm), default 0.002"},
      {"rmax", GmxOption::value,
       "Largest distance (nm); 0 (default): 0.99 x the first box's limit"},
      {"norm", GmxOption::value, "Normalisation: rdf (default), number_density, none"},
      {"excl", GmxOption::boolean, "Leave out the pairs the .tpr excludes (default no)"},
      {"xy", GmxOption::boolean,
       "Distances in the x-y plane only, normalised by the x-y area (default no)"},
      {"seltype", GmxOption::value,
       "Positions of selections that state none: atom (default), res_com, res_cog, mol_com, "
       "mol_cog, also with whole_, part_, dyn_"},
      {"selrpos", GmxOption::value,
       "Accepted, without effect: it only moves position keywords, which pairhist's selections "
       "do not have"},
      {"surf", GmxOption::value,
       "no (default), mol, res: distances to the nearest atom of each molecule or residue of "
       "-ref (its surface groups), -norm none"},
      {"cut", GmxOption::value, "Distances up to this (nm) are not counted (default 0)"},
      {"xvg", GmxOption::value, "xmgrace (default) or none"},
      {"overwrite", GmxOption::boolean,
       "Replace existing output files without keeping a backup #NAME.N# (default no: kept, as "
       "gmx does)"},
      {"h", GmxOption::boolean, "This help (also -help, --help)"},
  };
  return options;
}

double number(const GmxArguments& a, const std::string& name, double fallback,
              std::vector<std::string>& problems) {
  if (!a.given(name)) return fallback;
  const std::string text = a.value(name);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) {
    problems.push_back("-" + name + " expects a number, got '" + excerpt(text) + "'");
    return fallback;
  }
  return v;
}

/// A number as given, in 6 significant digits: -dt 1e-9 was "0.000000" with std::to_string.
std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

/// Frames per -dt in an XTC file whose frames are evenly spaced in time; UsageError otherwise.
int64_t step_of_dt(const std::string& trajectory, double dt_ps) {
  if (std::filesystem::path(trajectory).extension() != ".xtc")
    throw UsageError("-dt needs an XTC trajectory (pairhist rdf picks frames by index)");
  std::string error;
  const std::vector<double> t = io::xtc::frame_times(trajectory, error);
  if (!error.empty()) throw InputError(error);
  if (t.size() < 2) return 1;
  const double spacing = t[1] - t[0];
  for (size_t i = 1; i < t.size(); ++i)
    if (std::fabs(t[i] - t[0] - static_cast<double>(i) * spacing) > 1e-3 * spacing)
      throw UsageError("-dt: the frames of " + trajectory + " are not evenly spaced in time");
  const double steps = std::round(dt_ps / spacing);
  if (steps < 1 || std::fabs(steps * spacing - dt_ps) > 1e-3 * spacing)
    throw UsageError("-dt " + number_text(dt_ps) + " ps is no multiple of the frames' " +
                     number_text(spacing) + " ps");
  return static_cast<int64_t>(steps);
}

/// Only a selection of one word can name a group, as gmx reads them.
bool one_word(const std::string& text) {
  return text.find_first_of(" \t") == std::string::npos && !text.empty();
}

/// The selection for pairhist's language: a group name or number of the index groups as gmx
/// takes it, else the text itself.
std::string as_selection(const std::string& text, const analysis::IndexGroups* groups) {
  if (one_word(text) && groups && groups->find(text)) return "group " + text;
  return text;
}

/// The selection with gmx's -seltype stated, unless it states its own positions.
std::string with_position_type(const std::string& selection, const analysis::PositionType& type) {
  if (type.is_atom()) return selection;
  try {
    if (analysis::split_position_type(selection).stated) return selection;
  } catch (const UsageError&) {
    return selection;  // the run reports it
  }
  return analysis::position_type_name(type) + " of " + selection;
}

std::string xvg_text(const std::string& title, const std::string& ylabel,
                     const std::string& reference, const std::vector<std::string>& legends,
                     const std::vector<double>& r, const std::vector<std::vector<double>>& columns,
                     bool headers, const std::string& command, const std::string& incomplete) {
  std::ostringstream f;
  char line[64];
  if (headers) {
    f << "# This file was created by pairhist " << kVersionText << " (pairhist rdf)\n";
    // Selections and the command line as given may hold any character: escaped, one line each.
    f << "# Command line:\n#   " << io::header_text(command) << "\n";
    // As pairhist run's outputs say complete = 0: a trajectory cut inside a frame (gmx rdf:
    // "Incomplete frame") gave the frames before it.
    if (!incomplete.empty())
      f << "# complete = 0\n# stopped_by = " << io::header_text(excerpt(incomplete, 400)) << "\n";
    f << "@    title \"" << title << "\"\n@    xaxis  label \"r (nm)\"\n";
    f << "@    yaxis  label \"" << ylabel << "\"\n@TYPE xy\n";
    f << "@ subtitle \"reference " << io::header_text(reference, '\'') << "\"\n";
    f << "@ view 0.15, 0.15, 0.75, 0.85\n@ legend on\n@ legend box on\n@ legend loctype view\n";
    f << "@ legend 0.78, 0.8\n@ legend length 2\n";
    for (size_t i = 0; i < legends.size(); ++i)
      f << "@ s" << i << " legend \"" << io::header_text(legends[i], '\'') << "\"\n";
  }
  for (size_t k = 0; k < r.size(); ++k) {
    std::snprintf(line, sizeof line, "%11.3f", r[k]);  // gmx's widths: same r text
    f << line;
    for (const auto& c : columns) {
      std::snprintf(line, sizeof line, " %8.3f", c[k]);
      f << line;
    }
    f << '\n';
  }
  return f.str();
}

/// -surf and what gmx rdf allows with it: no -norm but none (a surface group's bins have no
/// volume to normalise by), no -excl, a -ref of atoms (-seltype applies to -ref too).
void read_surface(const GmxArguments& a, RdfRequest& q, std::vector<std::string>& p) {
  const std::string surf = a.value("surf", "no");
  if (surf == "no") return;
  q.surface = true;
  if (surf == "mol")
    q.surface_unit = SurfaceUnit::molecule;
  else if (surf == "res")
    q.surface_unit = SurfaceUnit::residue;
  else
    p.push_back("-surf must be no, mol or res");
  if (a.given("norm") && q.norm_text != "none")
    p.push_back("-surf cannot be combined with -norm " + q.norm_text + " (only none, as gmx rdf)");
  q.norm = analysis::GmxNorm::none;
  q.norm_text = "none";
  if (a.flag("excl", false)) p.push_back("-surf cannot be combined with -excl (as gmx rdf)");
  try {
    if (!analysis::split_position_type(q.ref, q.seltype).type.is_atom())
      p.push_back("-surf needs a -ref of atoms, not of centres (-seltype applies to -ref too)");
  } catch (const UsageError& e) {
    p.push_back(e.what());
  }
}

/// Structure and trajectory formats whose atom lines name the atoms: a file of these as -f is
/// also the topology when no -s is given (gmx rdf takes the names from -f then). A .g96 names
/// them in a POSITION block, not in the POSITIONRED that gmx trjconv writes for trajectories.
bool names_its_atoms(const std::string& path) {
  const std::string ext = io::lower_extension(path);
  if (ext == ".g96") return io::g96_names_atoms(path);
  return ext == ".gro" || ext == ".pdb" || ext == ".ent";
}

/// -f, -s and -n as gmx rdf takes them: the frames come from -f, else from the structure -s
/// (its one frame, or a .gro/.g96/.pdb's frames); the names from -s (default topol.tpr where it
/// exists), else from an -f that names its atoms; else the atoms are unnamed and only -n's
/// groups select them.
void read_input_files(const GmxArguments& a, JobOptions& o, std::vector<std::string>& p) {
  o.trajectory = a.value("f");
  o.topology = a.value("s", std::filesystem::exists("topol.tpr") ? "topol.tpr" : "");
  o.index_file = a.value("n");
  if (o.trajectory.empty() && o.topology.empty()) {
    p.push_back("-f TRAJECTORY or -s STRUCTURE is required (no topol.tpr here)");
    return;
  }
  if (o.trajectory.empty()) o.trajectory = o.topology;  // gmx: frames from the structure
  if (!o.topology.empty()) {
    io::state_trajectory_topology(o.trajectory, o.topology);  // an .mdcrd's atom count
    return;
  }
  if (names_its_atoms(o.trajectory)) {
    o.topology = o.trajectory;
    return;
  }
  if (!o.index_file.empty())
    o.unnamed_atoms = true;  // gmx: -n's groups select the atoms of -f
  else
    p.push_back("-s STRUCTURE is required: -f " + o.trajectory +
                " names no atoms (no topol.tpr here; a .gro/.pdb as -f would)");
}

RdfRequest read_rdf_arguments(const std::vector<std::string>& args) {
  const GmxArguments a(rdf_options(), args);
  std::vector<std::string> p;  // every problem, one line each
  RdfRequest q;
  JobOptions& o = q.job;
  read_input_files(a, o, p);
  q.ref = a.value("ref");
  q.sels = a.values("sel");
  if (q.ref.empty()) p.push_back("-ref SELECTION is required");
  if (q.sels.empty()) p.push_back("-sel SELECTION is required (one or more)");
  static const std::vector<std::pair<std::string, double>> kTimeUnits = {
      {"fs", 1e-3}, {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
  double ps = 1;
  bool unit_known = false;
  for (const auto& [unit, factor] : kTimeUnits)
    if (a.value("tu", "ps") == unit) ps = factor, unit_known = true;
  if (!unit_known) p.push_back("-tu must be fs, ps, ns, us, ms or s");
  const double begin = number(a, "b", NAN, p), end = number(a, "e", NAN, p);
  const double dt = number(a, "dt", 0, p);
  q.bin = number(a, "bin", 0.002, p);
  q.rmax = number(a, "rmax", 0, p);
  if (!(q.bin > 0)) p.push_back("-bin must be positive");
  if (q.rmax < 0) p.push_back("-rmax must be positive (or 0: from the first frame's box)");
  if (dt < 0) p.push_back("-dt must be positive");
  q.norm_text = a.value("norm", "rdf");
  if (q.norm_text == "number_density")
    q.norm = analysis::GmxNorm::number_density;
  else if (q.norm_text == "none")
    q.norm = analysis::GmxNorm::none;
  else if (q.norm_text != "rdf")
    p.push_back("-norm must be rdf, number_density or none");
  analysis::PositionType selrpos;
  for (const auto& [option, type] : {std::pair{"seltype", &q.seltype}, {"selrpos", &selrpos}})
    if (!analysis::parse_position_type(a.value(option, "atom"), *type))
      p.push_back(std::string("-") + option + " must be " + analysis::position_type_list());
  q.cut = std::max(0.0, number(a, "cut", 0, p));  // gmx takes a negative -cut as 0
  read_surface(a, q, p);
  const std::string xvg = a.value("xvg", "xmgrace");
  if (xvg != "xmgrace" && xvg != "none") p.push_back("-xvg must be xmgrace or none");
  q.headers = xvg == "xmgrace";
  q.out_rdf = a.value("o", "rdf.xvg");
  q.out_cn = a.value("cn");
  // Found before the frames are counted, not when the files are written after them; no output
  // may replace an input or the other output.
  io::CommandFiles files;
  files.read(o.trajectory, (a.given("f") ? "-f " : "-s ") + o.trajectory);
  if (o.topology != o.trajectory) files.read(o.topology, "-s " + o.topology);
  files.read(o.index_file, "-n " + o.index_file);
  for (const auto& [flag, path, example] :
       {std::tuple<const char*, const std::string&, const char*>{"-o", q.out_rdf, "rdf.xvg"},
        {"-cn", q.out_cn, "cn.xvg"}}) {
    if (path.empty()) continue;
    if (const std::string problem = io::output_file_problem(flag, path, example); !problem.empty())
      p.push_back(problem);
    else
      files.write(path, std::string(flag) + " " + path);
  }
  const bool overwrite = a.flag("overwrite", false);
  for (const std::string& line : files.problems(overwrite)) p.push_back(line);
  for (const std::string& f : {o.trajectory, o.topology, o.index_file})
    if (!f.empty())
      if (const std::string problem = io::input_file_problem(f); !problem.empty())
        p.push_back(f + ": " + problem);
  if (!p.empty()) {
    std::string text;
    for (const auto& line : p) text += (text.empty() ? "" : "\n") + line;
    throw UsageError(text);
  }
  if (!overwrite) files.keep_backups();
  o.begin_time = begin * ps;
  o.end_time = end * ps;
  if (dt > 0) o.step = step_of_dt(o.trajectory, dt * ps);
  o.exclude = a.flag("excl", false) ? "topology" : "none";
  o.xy = a.flag("xy", false);
  o.norm = "none";  // raw counts: normalised as gmx does (normalise)
  return q;
}

/// The job's species: the reference, then each distinct selection; a selection equal to the
/// reference is the reference itself (its pairs then count once each, doubled in normalise as
/// gmx's ordered pairs). Returns the species of every -sel.
std::vector<int> define_species(RdfRequest& q) {
  JobOptions& o = q.job;
  std::vector<std::string> texts = {q.ref};
  std::vector<int> species_of_sel;
  for (const auto& s : q.sels) {
    const auto it = std::find(texts.begin(), texts.end(), s);
    species_of_sel.push_back(static_cast<int>(it - texts.begin()));
    if (it == texts.end()) texts.push_back(s);
  }
  // A .tpr's default groups cost a second reading of it (in a child process): only for a
  // selection that may name one.
  analysis::IndexGroups groups;
  const analysis::IndexGroups* served = nullptr;
  if (!o.index_file.empty()) {
    groups = io::read_ndx(o.index_file, std::numeric_limits<int>::max());
    served = &groups;
  } else if (std::any_of(texts.begin(), texts.end(), one_word) &&
             io::has_default_groups(o.topology)) {
    groups = io::read_default_groups(o.topology);
    served = &groups;
  }
  if (o.unnamed_atoms) {
    // gmx: "No topology provided, but one is required for analysis"; here the file is named.
    for (const std::string& text : texts)
      if (!one_word(text) || !groups.find(text))
        throw UsageError("'" + excerpt(text) + "' is no group of " + o.index_file + ": -f " +
                         o.trajectory + " names no atoms, so without -s only -n's groups select");
    if (!q.seltype.is_atom())
      throw UsageError("-seltype " + analysis::position_type_name(q.seltype) + " needs -s: -f " +
                       o.trajectory + " has no residues or molecules");
  }
  for (size_t s = 0; s < texts.size(); ++s)
    o.species.push_back({s == 0 ? "ref" : "sel" + std::to_string(s),
                         with_position_type(as_selection(texts[s], served), q.seltype)});
  for (int s : species_of_sel) {
    const std::string pair = "ref-" + o.species[static_cast<size_t>(s)].name;
    if (std::find(o.pairs.begin(), o.pairs.end(), pair) == o.pairs.end()) o.pairs.push_back(pair);
  }
  return species_of_sel;
}

struct RdfCurves {
  std::vector<std::vector<double>> g, cn;  // per -sel
  std::vector<double> r_rdf, r_cn;
};

RdfCurves normalise(const RdfRequest& q, const RdfCounts& counts) {
  RdfCurves c;
  for (size_t k = 0; k < counts.half_counts.size(); ++k) {
    const auto curve =
        analysis::gmx_rdf_curve(counts.half_counts[k], counts.frames, counts.ref_count,
                                counts.sel_density[k], q.bin, q.norm, q.job.xy);
    c.g.push_back(curve.rdf);
    c.cn.push_back(curve.cn);
  }
  for (size_t i = 0; i < c.g[0].size(); ++i) c.r_rdf.push_back(static_cast<double>(i) * q.bin);
  for (size_t i = 0; i < c.cn[0].size(); ++i) c.r_cn.push_back(static_cast<double>(i + 1) * q.bin);
  return c;
}

void write_rdf_files(const RdfRequest& q, const std::vector<std::string>& args, const RdfCurves& c,
                     const std::string& incomplete) {
  std::string command = "pairhist rdf";
  for (const auto& w : args) command += " " + w;
  io::write_text_atomically(q.out_rdf,
                            xvg_text("Radial distribution", "g(r)", q.ref, q.sels, c.r_rdf, c.g,
                                     q.headers, command, incomplete),
                            "the g(r) file");
  if (!q.out_cn.empty())
    io::write_text_atomically(q.out_cn,
                              xvg_text("Cumulative Number RDF", "number", q.ref, q.sels, c.r_cn,
                                       c.cn, q.headers, command, incomplete),
                              "the cumulative number file");
}

}  // namespace

void add_rdf_command(CLI::App& app) {
  app.add_subcommand("rdf",
                     "gmx rdf's command line and xvg files on pairhist's engine: pairhist rdf [-f "
                     "TRAJ] [-s TOP] -ref SEL -sel SEL... [-o rdf.xvg] [-cn cn.xvg] (-h: options)")
      ->allow_extras()
      ->prefix_command();
}

void run_rdf_command(const std::vector<std::string>& args) {
  const bool help = std::any_of(args.begin(), args.end(), [](const std::string& w) {
    return w == "-h" || w == "-help" || w == "--help";
  });
  if (help) {
    std::printf("pairhist rdf: g(r) as gmx rdf computes it, on pairhist's engine\n%s",
                gmx_options_help(rdf_options()).c_str());
    return;
  }
  RdfRequest q = read_rdf_arguments(args);
  const std::vector<int> species_of_sel = define_species(q);
  choose_bins(q);
  const RdfCounts counts =
      q.surface ? count_surfaces(q, species_of_sel) : count_pairs(q, species_of_sel);
  const RdfCurves curves = normalise(q, counts);
  write_rdf_files(q, args, curves, counts.incomplete_frame);
  std::printf(
      "pairhist rdf: %s of %zu selection%s around %s'%s', %.0f frames, %zu bins of %g nm "
      "up to %g nm: %s%s%s (%.3f s)\n",
      q.norm_text == "rdf" ? "g(r)" : q.norm_text.c_str(), q.sels.size(),
      q.sels.size() == 1 ? "" : "s", q.surface ? "the surface groups of " : "", q.ref.c_str(),
      counts.frames, curves.r_rdf.size(), q.bin, q.job.r_cut > 0 ? q.job.r_cut : q.job.r_max,
      q.out_rdf.c_str(), q.out_cn.empty() ? "" : ", ", q.out_cn.c_str(), counts.seconds);
}

}  // namespace pairhist
