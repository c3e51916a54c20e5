#include "drivers/cli/run_options.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>

#include "analysis/sphere_cut.hpp"
#include "drivers/cli/config_file.hpp"
#include "drivers/cli/option_rules.hpp"
#include "drivers/cli/run_scattering.hpp"
#include "drivers/cli/scattering_command.hpp"
#include "drivers/job/box_limit.hpp"
#include "drivers/job/engine_settings.hpp"
#include "drivers/job/length_units.hpp"
#include "drivers/job/run_outputs.hpp"
#include "io/common/input_path.hpp"
#include "io/common/output_paths.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist {
namespace {

// gmx rdf's default bin width.
constexpr double kDefaultBinNm = 0.002;

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += (s.empty() ? "" : "\n") + l;
  return s;
}

void check_member(std::vector<std::string>& problems, const std::string& flag,
                  const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (value == a) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  problems.push_back(flag + " must be one of " + list + ", got '" + excerpt(value) + "'");
}

/// The problems of the arguments alone (no file read); `o` (a's job) gets the species parsed.
std::vector<std::string> argument_problems(const RunArgs& a, JobOptions& o) {
  std::vector<std::string> p;
  const RunControls& c = a.controls;
  if (o.trajectory.empty())
    p.push_back("no trajectory given (an argument, -f, or trajectory in --config)");
  else if (o.topology.empty() && !io::carries_species(o.trajectory))
    p.push_back("no topology given: " + o.trajectory +
                " carries no atom names: give --top/-s TOPOLOGY");
  for (const auto& s : a.species) {
    try {
      o.species.push_back(parse_species(s));
    } catch (const UsageError& e) {
      p.push_back(e.what());
    }
  }
  if (a.species.empty() && !o.trajectory.empty() && !io::carries_species(o.trajectory) &&
      (o.topology.empty() || !io::carries_species(o.topology)))
    p.push_back("no species given (use --species NAME=SELECTION)");
  if (!o.pairs.empty() && !o.species.empty()) {
    try {
      selected_pairs(o);
    } catch (const UsageError& e) {
      p.push_back(e.what());
    }
  }
  if (!(o.r_max >= 0) || !std::isfinite(o.r_max))
    p.push_back("--rmax must be positive (or 0: as large as the boxes allow)");
  if (!(o.r_min >= 0) || !std::isfinite(o.r_min))
    p.push_back("--rmin must be at least 0");
  else if (o.r_max > 0 && !(o.r_min < o.r_max))
    p.push_back("--rmin must be below --rmax");
  if (o.nbins != 0 && a.bin_width != 0) p.push_back("give --nbins or --bin, not both");
  if (o.nbins < 0) p.push_back("--nbins must be positive");
  if (!(a.bin_width >= 0) || !std::isfinite(a.bin_width)) p.push_back("--bin must be positive");
  if (o.step <= 0) p.push_back("--step must be positive");
  if (o.first < 0) p.push_back("--first must be >= 0");
  // Before: -5 read as -1, the end of the trajectory.
  if (o.last < -1)
    p.push_back("--last must be -1 (to the end) or a frame index, 0 or more, got " +
                std::to_string(o.last));
  // Before: 128 CPU workers on 2 cores.
  if (const std::string rule = cpu_workers_problem(o.ncpu); !rule.empty())
    p.push_back("--ncpu " + rule);
  if (o.begin_time > o.end_time) p.push_back("--begin must not be after --end");
  if (o.interval < 0) p.push_back("--interval must be >= 0");
  if (o.volume < 0 || !std::isfinite(o.volume)) p.push_back("--volume must be positive");
  if (!(c.checkpoint_seconds >= 0)) p.push_back("--checkpoint-seconds must be >= 0");
  if (!o.sphere.empty()) {
    try {
      analysis::parse_sphere_option(o.sphere);
    } catch (const UsageError& e) {
      p.push_back(e.what());
    }
    try {
      analysis::parse_sphere_centre(o.sphere_centre);
    } catch (const UsageError& e) {
      p.push_back(e.what());
    }
    // A sphere's frames are cut out of whole frames, each counted at once and without a box.
    if (o.xy) p.push_back("--sphere and -xy exclude each other");
    if (o.exclude != "none")
      p.push_back("--sphere counts every pair inside the sphere: leave out --exclude");
    if (o.distributed.frame_parts > 1)
      p.push_back("--sphere counts whole frames: leave out --frame-parts");
  } else if (!o.sphere_centre.empty()) {
    p.push_back("--sphere-centre places the centre of --sphere: give --sphere R as well");
  }
  if (o.decode_threads < 0) p.push_back("--decode-threads must be >= 0");
  if (o.distributed.frame_parts < 0) p.push_back("--frame-parts must be >= 0");
  if (o.cell_reach < 0 || o.cell_reach > kMaxCellReach)
    p.push_back("--cell-reach must be 0 to " + std::to_string(kMaxCellReach));
  check_member(p, "--units", o.units, {"nm", "angstrom"});
  check_member(p, "--precision", a.precision, {"single", "double"});
  check_member(p, "--exclude", o.exclude, {"none", "residue", "topology"});
  check_member(p, "--norm", o.norm, {"rdf", "density", "none"});
  check_member(p, "--schedule", a.schedule, {"tasks", "static"});
  check_member(p, "--algorithm", a.algorithm, {"auto", "all-pairs", "cell-list"});
  check_member(p, "--reduction", a.reduction, {"redux", "sum"});
  if (!o.cell_order.empty())
    check_member(p, "--cell-order", o.cell_order, {"row-major", "morton", "hilbert"});
  if (a.schedule == "static" && a.algorithm == "cell-list")
    p.push_back(
        "--schedule static counts all pairs of whole frames: use --algorithm auto or "
        "all-pairs with it");
  if (c.resume && c.overwrite) p.push_back("--resume and --overwrite exclude each other");
  try {
    check_output_directory(c.output);
  } catch (const UsageError& e) {
    p.push_back(e.what());
  }
  // Written after the counting: found unwritable before it.
  for (const auto& [flag, path, example] :
       {std::tuple<const char*, const std::string&, const char*>{"--report", c.report, "run.json"},
        {"--activity-svg", c.activity_svg, "activity.svg"},
        {"--task-trace", c.task_trace, "tasks.csv"},
        {"--reading-trace", c.reading_trace, "reading.csv"},
        {"--lp-file", c.lp_file, "bound.lp"}})
    if (const std::string problem = io::output_file_problem(flag, path, example, c.output);
        !problem.empty())
      p.push_back(problem);
  std::set<std::string> names;
  for (const auto& s : o.species)
    if (!names.insert(s.name).second) p.push_back("species '" + s.name + "' is defined twice");
  for (const std::string& line : run_scattering_problems(a.scattering, a.scattering_flags, o))
    p.push_back(line);
  return p;
}

/// What the run reads and writes: no output may replace an input or another output.
io::CommandFiles run_files(const RunArgs& a, const JobOptions& job) {
  io::CommandFiles files;
  files.read(job.trajectory, "the trajectory " + job.trajectory);
  files.read(job.topology, "the topology " + job.topology);
  files.read(job.index_file, "the index file " + job.index_file);
  files.read(a.config, "--config " + a.config);
  files.read(a.scattering.q_file, "--q-file " + a.scattering.q_file);
  files.read(a.scattering.table, "--table " + a.scattering.table);
  const RunControls& c = a.controls;
  // The directory's files follow its own rule (refused, resumed or --overwrite'n): no backups.
  for (const std::string& f : run_directory_files(c.output))
    files.write(f, "the result " + f + " of -o " + c.output, false);
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string*>{"--report", &c.report},
        {"--activity-svg", &c.activity_svg},
        {"--task-trace", &c.task_trace},
        {"--reading-trace", &c.reading_trace},
        {"--lp-file", &c.lp_file}})
    // One that cannot be written at all (a directory, no such directory) is argument_problems'
    // line already.
    if (io::output_file_problem(flag, *path, "", c.output).empty())
      files.write(*path, std::string(flag) + " " + *path);
  return files;
}

}  // namespace

void resolve_bins(JobOptions& o, double bin_width) {
  const double factor = length_factor(o.units);
  // A sphere holds no pair farther apart than its diameter.
  const bool given = o.r_max > 0;
  if (o.r_max == 0 && !o.sphere.empty())
    o.r_max = 2 * analysis::parse_sphere_option(o.sphere).radius;
  if (o.r_max == 0) o.r_max = smallest_box_limit(o).r_max_nm * factor;
  if (const std::string problem = bins_limit_problem(o.nbins); !problem.empty())
    throw UsageError("--nbins " + std::to_string(o.nbins) + " is " + problem);
  if (o.nbins > 0) return;
  const double width = bin_width > 0 ? bin_width : kDefaultBinNm * factor;
  // r_max as given: where it is not a multiple of the width (beyond a relative 1e-9, a decimal
  // width's rounding), the last bin is partial, [(nbins - 1) width, r_max), as in gmx rdf. An
  // r_max pairhist derived (from the boxes or a sphere) is a limit, not the user's cut-off: it
  // ends at the last whole bin below it, as before.
  // Bins from --rmin: the same rule over [r_min, r_max).
  const double span = o.r_max - o.r_min;
  if (!(span > 0))
    throw UsageError("--rmin " + format_length(o.r_min, o.units) + " is not below r_max " +
                     format_length(o.r_max, o.units));
  const double whole = std::floor(span / width * (1 + 1e-9));
  const bool partial = given && span - whole * width > 1e-9 * o.r_max;
  const double bins = partial ? whole + 1 : whole;
  if (bins < 1)
    throw UsageError("--bin " + format_length(width, o.units) + " is wider than r_max - r_min " +
                     format_length(span, o.units));
  if (const std::string problem = bins_limit_problem(bins); !problem.empty())
    throw UsageError("--bin " + format_length(width, o.units) + " makes " + problem);
  o.nbins = static_cast<int>(bins);
  if (partial) o.r_cut = o.r_max;
  o.r_max = o.r_min + o.nbins * width;
}

namespace {

/// What is read: the trajectory, its topology, the species and their pairs.
void add_input_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("trajectory,-f", args->job.trajectory,
                  "Trajectory (.xtc, .trr, .pdb, .gro, .g96, .tpr (its one frame), .dcd, "
                  ".xyz/.extxyz, .lammpstrj/.lammpsdump/.dump, .h5md, CADISHI .h5/.hdf5)");
  cmd->add_option(
      "--top,-s", args->job.topology,
      "Topology with atom names (.gro, .g96, .tpr, .pdb, .xyz/.extxyz, LAMMPS dump: types as "
      "names); not needed for CADISHI .h5 files, which carry their species");
  cmd->add_option("--species", args->species,
                  "NAME=SELECTION, repeatable; SELECTION is comma-separated atom-name globs "
                  "(O=OW, H=HW1,HW2) or an expression with name, resname, resid, index, group, "
                  "element (.pdb/.xyz), type (LAMMPS), all, and, or, not, parentheses "
                  "(\"Na=resname NA and not resid 1-10\"), or centres per residue or molecule "
                  "(\"W=res_com of resname SOL\"; res_cog, mol_com, mol_cog, whole_...); "
                  "species may share atoms; default for "
                  "CADISHI .h5 files: every species of the file");
  cmd->add_option("--pairs", args->job.pairs,
                  "Count only these species pairs, A-B,C-D (species names); default: every pair "
                  "A-A, A-B, B-B, ...")
      ->delimiter(',');
}

/// What is counted: the bins, units, precision, and which atoms and pairs.
void add_histogram_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--rmax", args->job.r_max,
                  "Largest distance histogrammed (in --units); default (or 0): as large as the "
                  "box of every frame read allows (half its shortest lattice vector)");
  cmd->add_option("--rmin", args->job.r_min,
                  "Smallest distance histogrammed (in --units; default 0): the bins span "
                  "[rmin, rmax), pairs closer are not counted and n(r) counts from rmin, as "
                  "MDAnalysis's range and freud's r_min");
  cmd->add_option("--nbins", args->job.nbins, "Number of bins from rmin to rmax (or give --bin)")
      ->check(option_rule::bins());
  cmd->add_option("--bin", args->bin_width,
                  "Bin width (in --units), instead of --nbins; pairs are counted below --rmax "
                  "exactly: where it is not a multiple of the width, the last bin is partial, "
                  "as in gmx rdf (default without --nbins: 0.002 nm, as gmx rdf)");
  cmd->add_option("--config", args->config,
                  "YAML settings (keys = these flags' long names, or CADISHI's histograms.yaml); "
                  "flags on the command line win");
  cmd->add_option("--units", args->job.units, "Length unit of --rmax and of the output")
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "Kernel precision")->capture_default_str();
  cmd->add_option("--volume", args->job.volume,
                  "Volume (in --units cubed) to normalise g(r) by when the trajectory has no "
                  "periodic box; without it such runs write counts only");
  cmd->add_option("--sphere", args->job.sphere,
                  "SELECTION,R: per frame only the atoms within R (--units) of the selection's "
                  "centre (of mass with a .tpr's masses, else of geometry; the selection made "
                  "whole), at their minimum image around it, counted without a box (a solute "
                  "with its solvent layer for SAXS/WAXS); R at most half the shortest box vector; "
                  "default --rmax: 2R; R alone with --sphere-centre box or X,Y,Z");
  cmd->add_option("--sphere-centre", args->job.sphere_centre,
                  "Centre of --sphere: mass or geometry (of its selection; default mass where the "
                  "topology has masses), box (each frame's box centre) or a fixed point X,Y,Z "
                  "(--units): a solvent run then needs no solute atom");
  cmd->add_option("--index,-n", args->job.index_file,
                  "GROMACS index file (.ndx) for 'group NAME' in species selections");
  cmd->add_option("--exclude", args->job.exclude,
                  "Pairs left out of the histograms and their normalisation: none, residue "
                  "(atoms of the same residue) or topology (the exclusions of a .tpr topology, "
                  "as gmx rdf -excl)")
      ->capture_default_str();
}

/// How the counts are normalised and written.
void add_output_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--norm", args->job.norm,
                  "Normalisation (MDAnalysis's): rdf = g(r); density = pairs per frame per shell "
                  "volume; none = pairs per frame (same-species pairs counted as ordered pairs, "
                  "like MDAnalysis)")
      ->capture_default_str();
  cmd->add_option("--interval", args->job.interval,
                  "Write a histogram block every N frames (CADISHI's 'sum'), the last one partial; "
                  "each is written as soon as it completes (0: one block for the whole run)")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->controls.output,
                  "Output directory (rdf.csv, rdf.xvg, cn.xvg, pairhist.h5 are written in it)")
      ->capture_default_str();
}

/// Which frames.
void add_frame_options(CLI::App* cmd, RunArgs* args) {
  // --first, --last and --step are checked with the other arguments (argument_problems); nan for
  // a time is only seen in its text (an unset time is nan).
  cmd->add_option("--first", args->job.first, "First frame (0-based)")->capture_default_str();
  cmd->add_option("--last", args->job.last, "Last frame, inclusive (-1: end)")
      ->capture_default_str();
  cmd->add_option("--step", args->job.step, "Use every step-th frame")->capture_default_str();
  cmd->add_option("--begin,-b", args->job.begin_time,
                  "Skip frames before this time (ps), like gmx -b")
      ->check(option_rule::finite());
  cmd->add_option("--end,-e", args->job.end_time, "Stop after this time (ps), like gmx -e")
      ->check(option_rule::finite());
}

/// How tasks are scheduled and pairs found.
void add_algorithm_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--sched", args->job.scheduler,
                  "StarPU scheduler (lws, eager, dmda, dmdas, random, ...); default: "
                  "$STARPU_SCHED or StarPU's default");
  cmd->add_option("--schedule", args->schedule,
                  "tasks: one task per (frame, pair, row tile), placed by StarPU; static: one task "
                  "per whole frame from a shared queue (CADISHI's design, for comparison)")
      ->capture_default_str();
  cmd->add_option("--algorithm", args->algorithm,
                  "How pairs are found: all-pairs (every pair), cell-list (only pairs of "
                  "neighbouring cells of a grid about r_max wide: fast when r_max is much smaller "
                  "than the box), or auto (a cost model per species pair, on the first frame); "
                  "the counts are identical")
      ->capture_default_str();
  cmd->add_option("--cell-reach", args->job.cell_reach,
                  "Cell lists: cells of r_max / N, searched N cells to each side (1..3; 0: the "
                  "measured default)")
      ->capture_default_str();
  cmd->add_option("--cell-order", args->job.cell_order,
                  "Cell lists: order of the cells and points, row-major, morton or hilbert "
                  "(default: the measured fastest)");
  cmd->add_flag("--cell-prune", args->job.cell_prune,
                "Cell lists on the CPU: each point skips the stencil cells whose points' "
                "bounding box lies beyond r_max (fewer pairs examined, the same counts; "
                "docs/design.md)");
}

/// Workers, memory and decoding threads.
void add_worker_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--ncpu", args->job.ncpu,
                  "CPU workers (-1: planned: all cores without GPUs; beside GPUs the cores the "
                  "decoding threads leave, at most 16, none where a core's task would outlast "
                  "two frames of the GPUs' time)")
      ->capture_default_str();
  cmd->add_option("--ncuda", args->job.ncuda, "CUDA workers (-1: all GPUs)")->capture_default_str();
  cmd->add_option("--frames-in-flight", args->job.frames_in_flight,
                  "Frames whose coordinates are held at once (0: as many as --memory-budget "
                  "allows, 2 to 64)")
      ->capture_default_str();
  cmd->add_option("--reserve-cores", args->job.reserve_cores,
                  "Cores left free of CPU workers for reading and feeding the GPUs (-1: one, plus "
                  "one per decoding thread, when there are GPUs and --ncpu is -1)")
      ->capture_default_str();
  cmd->add_option("--memory-budget", args->job.memory_budget_mib,
                  "MiB of pinned memory for the frames in flight (0: planned: 64 MiB, or two "
                  "frames per GPU and two more where that is more, within 1/16 of the node's "
                  "memory)")
      ->capture_default_str();
  cmd->add_option("--decode-threads", args->job.decode_threads,
                  "Threads decoding XTC frames ahead (0: automatic: 1 below 20000 atoms, else "
                  "min(4, cores/4) growing on the first frame to keep the GPUs fed; 1: serial)")
      ->capture_default_str();
}

/// Reports and measurements of the run itself.
void add_measurement_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--report", args->controls.report,
                  "Also write the run summary and per-worker activity as JSON to this file");
  cmd->add_option("--reduction", args->reduction,
                  "How partial histograms are summed: redux (StarPU per-worker copies, folded "
                  "once) or sum (a zeroed partial per task and an explicit sum task)")
      ->capture_default_str();
  cmd->add_flag("--lp-bound", args->lp_bound,
                "Compute LP lower bounds of the makespan (summary, --report): from this run's "
                "measured task times (needs GLPK), and StarPU's (--activity-svg too), which "
                "needs calibrated perfmodels (pairhist calibrate, --sched dmda)");
  cmd->add_option("--lp-file", args->controls.lp_file,
                  "Also write StarPU's LP (lp_solve format, implies --lp-bound) and a table of "
                  "the task kinds' measurements per worker kind to this file");
  cmd->add_option("--activity-svg", args->controls.activity_svg,
                  "Also draw the worker activity over time (one lane per worker) as SVG");
  cmd->add_option("--task-trace", args->controls.task_trace,
                  "Also write every histogram task (submission order, frame, worker, GPU, start, "
                  "end, pairs) as CSV; scripts/scaling_model.py replays it on other GPU counts");
  cmd->add_option("--reading-trace", args->controls.reading_trace,
                  "Also write every frame the XTC decoding threads delivered (thread, claimed, "
                  "decoded, ready, delivered, on the task trace's clock) as CSV");
  cmd->add_option("--task-pairs", args->job.task_pairs,
                  "Pairs per row tile of a large species pair (0: chosen from the machine; see "
                  "docs/design.md, decomposition policy)")
      ->capture_default_str();
}

/// Resuming, checkpoints, distributed frames and what is printed.
void add_run_control_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_flag("--resume", args->controls.resume,
                "Continue the interrupted run whose checkpoint is in the output directory (same "
                "arguments); the result is the same, bit for bit, as an uninterrupted run's; "
                "without a checkpoint there, start from the first frame");
  cmd->add_flag("--overwrite", args->controls.overwrite,
                "Replace the results (and checkpoint) of an earlier run in the output directory");
  cmd->add_option("--checkpoint-seconds", args->controls.checkpoint_seconds,
                  "Keep a checkpoint in the output directory at least this often while frames "
                  "are counted, besides one at every completed interval (0: only at intervals)")
      ->capture_default_str();
  cmd->add_option("--frame-parts", args->job.distributed.frame_parts,
                  "Under mpirun/srun: split every frame into this many parts handed out "
                  "separately (0: automatic, when there are fewer than 8 frames per rank)")
      ->capture_default_str();
  cmd->add_flag("--progress", args->controls.progress,
                "Show progress even when stderr is not a terminal");
  cmd->add_flag("-q,--quiet", args->controls.quiet, "No summary, no progress");
  cmd->add_flag("-v,--verbose", args->controls.verbose,
                "The summary also gives the scheduler's detail: throughput, tasks, workers, "
                "makespan (always in --report)");
}

}  // namespace

void add_run_scattering_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("--scattering", args->scattering.radiation,
                  "xray or neutron: at the end of the run also write the scattering intensity "
                  "(intensity.csv, .xvg, .h5), as `pairhist scattering OUTPUT` would");
  add_scattering_options(cmd, args->scattering, true);
}

/// The options of `run`, shared by `calibrate`, which runs the same job on its first frames.
void add_run_options(CLI::App* cmd, RunArgs* args) {
  add_input_options(cmd, args);
  add_histogram_options(cmd, args);
  add_output_options(cmd, args);
  add_frame_options(cmd, args);
  add_algorithm_options(cmd, args);
  add_worker_options(cmd, args);
  add_measurement_options(cmd, args);
  add_run_control_options(cmd, args);
}

RunRequest resolve_run_arguments(const RunArgs& a) {
  RunRequest r;
  r.job = a.job;
  r.controls = a.controls;
  JobOptions& job = r.job;
  std::vector<std::string> problems = argument_problems(a, job);
  const io::CommandFiles files = run_files(a, job);
  for (const std::string& line : files.problems(r.controls.overwrite)) problems.push_back(line);
  // Check the inputs exist before any work, so a typo costs nothing and leaves nothing behind.
  std::vector<std::string> missing;
  for (const auto& f :
       {job.trajectory, job.topology, job.index_file, a.scattering.q_file, a.scattering.table})
    if (!f.empty())
      if (const std::string problem = io::input_file_problem(f); !problem.empty())
        missing.push_back(f + ": " + problem);
  if (!problems.empty()) {
    problems.insert(problems.end(), missing.begin(), missing.end());
    throw UsageError(joined(problems));
  }
  if (!missing.empty()) throw InputError(joined(missing));
  // An .mdcrd takes its atom count from the topology, before anything opens it.
  if (!job.topology.empty()) io::state_trajectory_topology(job.trajectory, job.topology);
  if (!r.controls.overwrite) files.keep_backups();  // of the other files it replaces
  // The q file and table read once here; the scatterers need the topology: the run decides them
  // once it has defined its species over it (run_command.cpp), before it counts.
  if (!a.scattering.radiation.empty()) {
    ScatteringOptions o = a.scattering;
    o.input = r.controls.output;  // the sums read the run's pairhist.h5 written there
    r.scattering = resolve_scattering(o);
  }
  job.precision = a.precision == "double" ? Precision::double_ : Precision::single;
  job.whole_frames = a.schedule == "static";
  job.algorithm = parse_algorithm(a.algorithm);
  job.sum_tasks = a.reduction == "sum";
  // Solved once at the end from the history models; StarPU warns about every uncalibrated task
  // kind while doing so (always, under schedulers that record no models), so only when asked.
  job.lp_bound = a.lp_bound || !r.controls.lp_file.empty();
  job.lp_bound_text = !r.controls.lp_file.empty();
  // What the outputs asked for need from the job: every rank's task trace, the reading timeline.
  job.distributed.gather_traces = !r.controls.task_trace.empty();
  job.reading_timeline = !r.controls.reading_trace.empty();
  job.distributed.output_place = " in " + r.controls.output;
  resolve_bins(job, a.bin_width);
  if (r.scattering)
    if (const std::string problem = scattering_size_problem(r.scattering->q.size(), job.nbins);
        !problem.empty())
      throw UsageError("--scattering: " + problem);
  return r;
}

RunRequest resolve_run_command(CLI::App& cmd, RunArgs& args) {
  if (!args.config.empty()) apply_run_config(cmd, args.config);
  args.scattering_flags = scattering_flags_given(cmd);
  return resolve_run_arguments(args);
}

}  // namespace pairhist
