// The arguments of `pairhist run` (and `calibrate`, which takes the same): the options, and
// their checks, all reported at once, before any file is read beyond the boxes r_max needs.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "drivers/cli/scattering_inputs.hpp"
#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

struct RunArgs {
  JobOptions job;
  std::vector<std::string> species;
  double bin_width = 0;  // --bin; 0: not given
  std::string output = "pairhist-out";
  std::string precision = "single";
  std::string report;
  std::string activity_svg;
  std::string task_trace;
  std::string reading_trace;
  bool lp_bound = false;
  std::string lp_file;
  std::string reduction = "redux";
  std::string schedule = "tasks";
  std::string algorithm = "auto";
  std::string config;
  bool progress = false;
  bool quiet = false;
  bool verbose = false;  // the scheduler's detail in the summary
  bool resume = false;
  bool overwrite = false;
  double checkpoint_seconds = 60;
  // --scattering RADIATION (radiation "" without it) and the options it shares with `pairhist
  // scattering`; scattering_flags: those of them given (add_run_command fills it in).
  ScatteringOptions scattering = [] {
    ScatteringOptions o;
    o.radiation.clear();
    return o;
  }();
  std::vector<std::string> scattering_flags;
  // With --scattering: every species' scatterer, decided once the run has defined its species
  // over the topology (JobHooks::on_defined), for the sums after it.
  std::shared_ptr<analysis::ScattererAssignment> scatterers;
};

/// Adds the options of `run` to cmd, storing into args.
void add_run_options(CLI::App* cmd, RunArgs* args);

/// Adds --scattering and the options it shares with `pairhist scattering` (run only: calibrate
/// writes nothing).
void add_run_scattering_options(CLI::App* cmd, RunArgs* args);

/// Checks every argument and fills in args->job, the run's spec, from them all: the species, the
/// precision, the schedule, algorithm, reduction and LP bound, the pairs, r_max
/// (without --rmax: the smallest minimum-image limit over the frames read, drivers/job/
/// box_limit.hpp) and nbins (from --bin or its default). Every problem of the arguments is one
/// line of a single UsageError (missing input files one line each of an InputError when the
/// arguments are otherwise fine). With --scattering, everything the scattering at the end of the
/// run will need but the counts is checked too (check_scattering_for_job), before r_max is
/// looked for in the frames.
void resolve_run_arguments(RunArgs& args);

/// r_max and nbins as the run counts them (o's units): without r_max (0) the largest the frames
/// allow (a --sphere's diameter); with bin_width (or neither it nor nbins: 0.002 nm, gmx rdf's)
/// nbins bins of exactly that width, r_max the largest multiple of it not above r_max.
/// UsageError for a width wider than r_max or making over 1e8 bins.
void resolve_bins(JobOptions& o, double bin_width);

}  // namespace pairhist
