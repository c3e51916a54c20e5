// The arguments of `pairhist run` (and `calibrate`, which takes the same): the options, and
// their checks, all reported at once, before any file is read beyond the boxes r_max needs.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/cli/scattering_inputs.hpp"
#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// What `run` does around the job, as given (checked by resolve_run_arguments()): where it
/// writes, what else it writes, what it prints, and how it treats an earlier run's directory.
struct RunControls {
  std::string output = "pairhist-out";
  std::string report;
  std::string activity_svg;
  std::string task_trace;
  std::string reading_trace;
  std::string lp_file;
  bool progress = false;
  bool quiet = false;
  bool verbose = false;  // the scheduler's detail in the summary
  bool resume = false;
  bool overwrite = false;
  double checkpoint_seconds = 60;
};

/// The arguments of `run` as given (flags, and the --config file's settings applied onto them):
/// raw, for resolve_run_arguments() alone to read.
struct RunArgs {
  JobOptions job;
  RunControls controls;
  std::vector<std::string> species;
  double bin_width = 0;  // --bin; 0: not given
  std::string precision = "single";
  bool lp_bound = false;
  std::string reduction = "redux";
  std::string schedule = "tasks";
  std::string algorithm = "auto";
  std::string config;
  // --scattering RADIATION (radiation "" without it) and the options it shares with `pairhist
  // scattering`; scattering_flags: those of them given (resolve_run_command() fills it in).
  ScatteringOptions scattering = [] {
    ScatteringOptions o;
    o.radiation.clear();
    return o;
  }();
  std::vector<std::string> scattering_flags;
};

/// `run` resolved from its arguments, once: the job's typed spec (RunSpec, with the distributed
/// part's settings; the hooks are the command's to install), what the command does around it,
/// and the scattering at its end with its options checked and their files read. Nothing after
/// resolve_run_arguments() reads RunArgs or checks an argument again.
struct RunRequest {
  JobOptions job;
  RunControls controls;
  std::optional<ResolvedScattering> scattering;  // with --scattering
};

/// Adds the options of `run` to cmd, storing into args.
void add_run_options(CLI::App* cmd, RunArgs* args);

/// Adds --scattering and the options it shares with `pairhist scattering` (run only: calibrate
/// writes nothing).
void add_run_scattering_options(CLI::App* cmd, RunArgs* args);

/// Checks every argument and yields the run's typed spec from them all: the species, the
/// precision, the schedule, algorithm, reduction and LP bound, the pairs, r_max
/// (without --rmax: the smallest minimum-image limit over the frames read, drivers/job/
/// box_limit.hpp) and nbins (from --bin or its default). Every problem of the arguments is one
/// line of a single UsageError (missing input files one line each of an InputError when the
/// arguments are otherwise fine). With --scattering, everything the scattering at the end of the
/// run will need but the counts is checked too (run_scattering_problems()) and its q file and
/// table are read (resolve_scattering()), before r_max is looked for in the frames.
RunRequest resolve_run_arguments(const RunArgs& args);

/// resolve_run_arguments() of what `run` (cmd, whose options store into args) was given: first
/// the --config file's settings onto the options the command line left unset
/// (apply_run_config()), then which scattering options were given at all. The one pass from
/// `run`'s command line to its typed request.
RunRequest resolve_run_command(CLI::App& cmd, RunArgs& args);

/// r_max and nbins as the run counts them (o's units): without r_max (0) the largest the frames
/// allow (a --sphere's diameter); with bin_width (or neither it nor nbins: 0.002 nm, gmx rdf's)
/// nbins bins of exactly that width, r_max the largest multiple of it not above r_max.
/// UsageError for a width wider than r_max or making over 1e8 bins.
void resolve_bins(JobOptions& o, double bin_width);

}  // namespace pairhist
