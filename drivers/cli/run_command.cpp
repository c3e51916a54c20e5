#include "drivers/cli/run_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "drivers/cli/config_file.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "drivers/job/checkpoint.hpp"
#include "drivers/job/output_lock.hpp"
#include "drivers/job/run_outputs.hpp"
#include "drivers/job/run_summary.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "drivers/report/activity_report.hpp"
#include "drivers/report/activity_svg.hpp"
#include "drivers/report/task_trace.hpp"
#include "io/atomic_file.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist {
namespace {

struct RunArgs {
  JobOptions job;
  std::vector<std::string> species;
  std::string output = "pairhist-out";
  std::string precision = "single";
  std::string report;
  std::string activity_svg;
  std::string task_trace;
  bool lp_bound = false;
  std::string lp_file;
  std::string reduction = "redux";
  std::string schedule = "tasks";
  std::string algorithm = "auto";
  std::string config;
  bool progress = false;
  bool quiet = false;
  bool resume = false;
  bool overwrite = false;
  double checkpoint_seconds = 60;
};

std::string effective_config(const RunArgs& a) {
  std::ostringstream s;
  s.precision(17);
  s << "trajectory = \"" << a.job.trajectory << "\"\n";
  s << "topology = \"" << a.job.topology << "\"\n";
  for (const auto& sp : a.job.species)
    s << "species." << sp.name << " = \"" << sp.selection << "\"\n";
  s << "interval = " << a.job.interval << "\n";
  s << "algorithm = \"" << a.algorithm << "\"\n";
  if (!a.job.index_file.empty()) s << "index = \"" << a.job.index_file << "\"\n";
  s << "exclude = \"" << a.job.exclude << "\"\nnorm = \"" << a.job.norm << "\"\n";
  s << "rmax = " << a.job.r_max << "\nnbins = " << a.job.nbins << "\nunits = \"" << a.job.units
    << "\"\nprecision = \"" << a.precision << "\"\nfirst = " << a.job.first
    << "\nlast = " << a.job.last << "\nstep = " << a.job.step << "\n";
  if (!std::isnan(a.job.begin_time)) s << "begin = " << a.job.begin_time << "\n";
  if (!std::isnan(a.job.end_time)) s << "end = " << a.job.end_time << "\n";
  return s.str();
}

/// A progress line on stderr at most once a second, only where a person is watching.
std::function<void(int64_t)> make_progress(bool forced) {
  if (!forced && !isatty(STDERR_FILENO)) return nullptr;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  auto start =
      std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [last, start](int64_t frames) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::seconds(1)) return;
    *last = now;
    const double s = std::chrono::duration<double>(now - *start).count();
    std::fprintf(stderr, "\rpairhist: %lld frames submitted (%.1f frames/s)",
                 static_cast<long long>(frames), s > 0 ? frames / s : 0.0);
    std::fflush(stderr);
  };
}

/// Rank 0 of a distributed run cannot start it: the other ranks, waiting for its plan, get the
/// failure instead and end with it (quietly: rank 0 reports it).
void share_setup_failure(Distribution& d, const std::exception& e) {
  DistributedPlan failed;
  failed.error = e.what();
  failed.error_kind = dynamic_cast<const InputError*>(&e)   ? 1
                      : dynamic_cast<const UsageError*>(&e) ? 2
                      : dynamic_cast<const RankFailure*>(&e)
                          ? 4 + static_cast<const RankFailure&>(e).code()
                          : 3;
  d.share_plan(&failed, nullptr);
}

JobOutcome run(RunArgs& a) {
  if (a.job.trajectory.empty())
    throw UsageError("no trajectory given (an argument, or trajectory/input.file in --config)");
  if (a.job.r_max == 0) throw UsageError("--rmax is required (or rmax in --config)");
  if (a.job.nbins == 0) throw UsageError("--nbins is required (or nbins in --config)");
  for (const auto& s : a.species) a.job.species.push_back(parse_species(s));
  if (a.precision == "single")
    a.job.precision = Precision::single;
  else if (a.precision == "double")
    a.job.precision = Precision::double_;
  else
    throw UsageError("--precision must be single or double");
  // Check the inputs exist before any work, so a typo costs nothing and leaves nothing behind.
  std::vector<std::string> inputs = {a.job.trajectory, a.job.topology};
  if (!a.job.index_file.empty()) inputs.push_back(a.job.index_file);
  for (const auto& f : inputs)
    if (!f.empty() && !std::filesystem::is_regular_file(f)) throw InputError(f + ": no such file");
  a.job.whole_frames = a.schedule == "static";
  a.job.algorithm = parse_algorithm(a.algorithm);
  if (a.job.whole_frames && a.job.algorithm == Algorithm::cell_list)
    throw UsageError(
        "--schedule static counts all pairs of whole frames: use --algorithm auto "
        "or all-pairs with it");
  a.job.sum_tasks = a.reduction == "sum";
  // Solved once at the end from the history models; StarPU warns about every uncalibrated task
  // kind while doing so (always, under schedulers that record no models), so only when asked.
  a.job.lp_bound = a.lp_bound || !a.lp_file.empty();
  a.job.lp_bound_text = !a.lp_file.empty();
  if (!(a.checkpoint_seconds >= 0)) throw UsageError("--checkpoint-seconds must be >= 0");
  // Under mpirun/srun with several ranks: rank 0 alone owns the output directory and writes.
  const std::unique_ptr<Distribution> distribution = make_distribution();
  const bool root = !distribution || distribution->rank() == 0;
  a.job.distribution = distribution.get();
  a.job.gather_traces = !a.task_trace.empty();
  a.job.output_place = " in " + a.output;
  const RunIdentity identity = run_identity(a.job);
  std::optional<Checkpoint> resumed;
  std::optional<OutputLock> lock;  // held until the last file is written
  if (root) {
    try {
      if (a.resume && a.overwrite) throw UsageError("--resume and --overwrite exclude each other");
      check_output_directory(a.output);
      lock.emplace(a.output);
      resumed = prepare_output_directory(a.output, a.resume, a.overwrite, identity);
    } catch (const std::exception& e) {
      if (distribution) share_setup_failure(*distribution, e);  // the other ranks end too
      throw;
    }
  }
  if (root && a.resume && !resumed && !a.quiet)
    std::fprintf(stderr, "pairhist: nothing to resume in %s: starting from the first frame\n",
                 a.output.c_str());
  if (resumed && resumed->finished) {
    // A job script that resumes whatever happened: the run was done before it was stopped.
    std::fprintf(stderr,
                 "pairhist: %s holds this run's finished results (%zu frames): nothing "
                 "to resume\n",
                 a.output.c_str(), resumed->state.frames());
    if (distribution) share_setup_failure(*distribution, RankFailure(0));
    return JobOutcome{};
  }
  if (resumed) a.job.resume = &resumed->state;
  if (!a.quiet && root) a.job.progress = make_progress(a.progress);

  const std::string checkpoint = checkpoint_path(a.output);
  const std::string config = effective_config(a);
  a.job.checkpoint_seconds = a.checkpoint_seconds;
  if (root) {
    a.job.on_checkpoint = [&](const JobState& state) {
      std::filesystem::create_directories(a.output);
      write_checkpoint(checkpoint, {identity, state});
    };
    // Completed intervals are written as they complete, so a later fault loses nothing before
    // it.
    a.job.on_interval = [&](const HistogramResult& so_far) {
      write_results(a.output, so_far, config);
      if (so_far.stopped_by != "in progress")
        std::fprintf(stderr, "pairhist: kept %zu complete intervals (%zu frames) in %s\n",
                     so_far.intervals.size(), so_far.frame_indices.size(), a.output.c_str());
    };
  }
  const StopSignals signals;
  a.job.stop = &StopSignals::requested();
  JobOutcome out;
  try {
    out = run_trajectory_job(a.job);
    if (!out.root) {  // another rank of a distributed run: rank 0 writes
      if (out.stopped_by_signal != 0) throw StoppedBySignal(out.stopped_by_signal);
      return out;
    }
  } catch (const InputError&) {
    if (!root) throw;
    // The input itself is at fault: going on from the checkpoint would meet it again.
    std::error_code ec;
    std::filesystem::remove(checkpoint, ec);
    std::filesystem::remove(a.output, ec);  // only if empty: the run's own directory
    throw;
  } catch (const OutputError& e) {
    if (!std::filesystem::exists(checkpoint)) throw;
    throw OutputError(std::string(e.what()) + " (the checkpoint " + checkpoint +
                      " is intact: make room and add --resume)");
  }
  if (a.job.progress) std::fprintf(stderr, "\n");
  const HistogramResult& result = out.result;
  if (out.stopped_by_signal != 0 && result.frame_indices.empty()) {
    std::fprintf(stderr, "pairhist: stopped by %s before any frame was counted: nothing written\n",
                 signal_name(out.stopped_by_signal).c_str());
    throw StoppedBySignal(out.stopped_by_signal);
  }

  std::vector<std::string> files = write_results(a.output, result, config);
  if (result.complete) {
    // The results hold the counts now; the checkpoint keeps what they were computed from.
    Checkpoint finished{identity, {}, true};
    finished.state.frame_indices = result.frame_indices;
    finished.state.frame_times = result.frame_times;
    finished.state.volumes = result.volumes;
    finished.state.open_counts.assign(result.pairs.size(),
                                      std::vector<uint64_t>(static_cast<size_t>(result.nbins)));
    write_checkpoint(checkpoint, finished);
  }
  const auto write_extra = [&files](const std::string& path, const std::string& contents,
                                    const std::string& what) {
    io::write_text_atomically(path, contents, what);
    files.push_back(path);
  };
  if (!a.report.empty()) write_extra(a.report, activity_json(out).dump(2) + '\n', "the report");
  if (!a.lp_file.empty()) write_extra(a.lp_file, out.activity.lp_text, "the LP");
  if (!a.activity_svg.empty())
    write_extra(a.activity_svg,
                activity_svg(out.activity, "pairhist run " + a.job.trajectory + ": " +
                                               std::to_string(out.cpu_workers) + " CPU + " +
                                               std::to_string(out.cuda_workers) +
                                               " CUDA workers, " + out.scheduler),
                "the activity picture");
  if (!a.task_trace.empty())
    write_extra(a.task_trace,
                out.ranks > 1 ? kTaskTraceHeader + out.rank_traces : task_trace_csv(out.activity),
                "the task trace");
  if (!a.quiet) print_run_summary(a.job, out, files);
  if (out.stopped_by_signal != 0) {
    print_stop_report(out, a.output, checkpoint);
    throw StoppedBySignal(out.stopped_by_signal);
  }
  return out;
}

/// The options of `run`, shared by `calibrate`, which runs the same job on its first frames.
void add_run_options(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("trajectory", args->job.trajectory,
                  "Trajectory (.xtc, .trr, .pdb, .dcd, .xyz/.extxyz, .lammpstrj/.lammpsdump/.dump, "
                  ".h5md, CADISHI .h5/.hdf5)");
  cmd->add_option("--top,-s", args->job.topology,
                  "Topology with atom names (.gro, .pdb, .xyz/.extxyz, LAMMPS dump: types as "
                  "names); not needed for CADISHI .h5 files, which carry their species");
  cmd->add_option("--species", args->species,
                  "NAME=SELECTION, repeatable; SELECTION is comma-separated atom-name globs "
                  "(O=OW, H=HW1,HW2) or an expression with name, resname, resid, index, group, "
                  "element (.pdb/.xyz), type (LAMMPS), all, and, or, not, parentheses "
                  "(\"Na=resname NA and not resid 1-10\"); species may share atoms; default for "
                  "CADISHI .h5 files: every species of the file");
  cmd->add_option("--rmax", args->job.r_max, "Largest distance histogrammed (in --units)");
  cmd->add_option("--nbins", args->job.nbins, "Number of bins from 0 to rmax");
  cmd->add_option("--config", args->config,
                  "YAML settings (keys = these flags' long names, or CADISHI's histograms.yaml); "
                  "flags on the command line win");
  cmd->add_option("--units", args->job.units, "Length unit of --rmax and of the output")
      ->check(CLI::IsMember({"nm", "angstrom"}))
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "Kernel precision")
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();
  cmd->add_option("--volume", args->job.volume,
                  "Volume (in --units cubed) to normalise g(r) by when the trajectory has no "
                  "periodic box; without it such runs write counts only");
  cmd->add_option("--index,-n", args->job.index_file,
                  "GROMACS index file (.ndx) for 'group NAME' in species selections");
  cmd->add_option("--exclude", args->job.exclude,
                  "Pairs left out of the histograms and their normalisation: none, or residue "
                  "(atoms of the same residue)")
      ->check(CLI::IsMember({"none", "residue"}))
      ->capture_default_str();
  cmd->add_option("--norm", args->job.norm,
                  "Normalisation (MDAnalysis's): rdf = g(r); density = pairs per frame per shell "
                  "volume; none = pairs per frame (same-species pairs counted as ordered pairs, "
                  "like MDAnalysis)")
      ->check(CLI::IsMember({"rdf", "density", "none"}))
      ->capture_default_str();
  cmd->add_option("--interval", args->job.interval,
                  "Write a histogram block every N frames (CADISHI's 'sum'), the last one partial; "
                  "each is written as soon as it completes (0: one block for the whole run)")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Output directory")->capture_default_str();
  cmd->add_option("--first", args->job.first, "First frame (0-based)")->capture_default_str();
  cmd->add_option("--last", args->job.last, "Last frame, inclusive (-1: end)")
      ->capture_default_str();
  cmd->add_option("--step", args->job.step, "Use every step-th frame")->capture_default_str();
  cmd->add_option("--begin,-b", args->job.begin_time,
                  "Skip frames before this time (ps), like gmx -b");
  cmd->add_option("--end,-e", args->job.end_time, "Stop after this time (ps), like gmx -e");
  cmd->add_option("--sched", args->job.scheduler,
                  "StarPU scheduler (lws, eager, dmda, dmdas, random, ...); default: "
                  "$STARPU_SCHED or StarPU's default");
  cmd->add_option("--schedule", args->schedule,
                  "tasks: one task per (frame, pair, row tile), placed by StarPU; static: one task "
                  "per whole frame from a shared queue (CADISHI's design, for comparison)")
      ->check(CLI::IsMember({"tasks", "static"}))
      ->capture_default_str();
  cmd->add_option("--algorithm", args->algorithm,
                  "How pairs are found: all-pairs (every pair), cell-list (only pairs of "
                  "neighbouring cells of a grid about r_max wide: fast when r_max is much smaller "
                  "than the box), or auto (a cost model per species pair, on the first frame); "
                  "the counts are identical")
      ->check(CLI::IsMember({"auto", "all-pairs", "cell-list"}))
      ->capture_default_str();
  cmd->add_option("--cell-reach", args->job.cell_reach,
                  "Cell lists: cells of r_max / N, searched N cells to each side (1..3; 0: the "
                  "measured default)")
      ->check(CLI::Range(0, kMaxCellReach))
      ->capture_default_str();
  cmd->add_option("--cell-order", args->job.cell_order,
                  "Cell lists: order of the cells and points, row-major, morton or hilbert "
                  "(default: the measured fastest)")
      ->check(CLI::IsMember({"row-major", "morton", "hilbert"}));
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
                  "Threads decoding XTC frames ahead (0: automatic: 1 below 50000 atoms, else "
                  "min(4, cores/4) growing on the first frame to keep the GPUs fed; 1: serial)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--report", args->report,
                  "Also write the run summary and per-worker activity as JSON to this file");
  cmd->add_option("--reduction", args->reduction,
                  "How partial histograms are summed: redux (StarPU per-worker copies, folded "
                  "once) or sum (a zeroed partial per task and an explicit sum task)")
      ->check(CLI::IsMember({"redux", "sum"}))
      ->capture_default_str();
  cmd->add_flag("--lp-bound", args->lp_bound,
                "Compute LP lower bounds of the makespan (summary, --report): from this run's "
                "measured task times (needs GLPK), and StarPU's (--activity-svg too), which "
                "needs calibrated perfmodels (pairhist calibrate, --sched dmda)");
  cmd->add_option("--lp-file", args->lp_file,
                  "Also write StarPU's LP (lp_solve format, implies --lp-bound) and a table of "
                  "the task kinds' measurements per worker kind to this file");
  cmd->add_option("--activity-svg", args->activity_svg,
                  "Also draw the worker activity over time (one lane per worker) as SVG");
  cmd->add_option("--task-trace", args->task_trace,
                  "Also write every histogram task (submission order, frame, worker, GPU, start, "
                  "end, pairs) as CSV; scripts/scaling_model.py replays it on other GPU counts");
  cmd->add_option("--task-pairs", args->job.task_pairs,
                  "Pairs per row tile of a large species pair (0: chosen from the machine; see "
                  "docs/design.md, decomposition policy)")
      ->capture_default_str();
  cmd->add_flag("--resume", args->resume,
                "Continue the interrupted run whose checkpoint is in the output directory (same "
                "arguments); the result is the same, bit for bit, as an uninterrupted run's; "
                "without a checkpoint there, start from the first frame");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace the results (and checkpoint) of an earlier run in the output directory");
  cmd->add_option("--checkpoint-seconds", args->checkpoint_seconds,
                  "Keep a checkpoint in the output directory at least this often while frames "
                  "are counted, besides one at every completed interval (0: only at intervals)")
      ->capture_default_str();
  cmd->add_option("--frame-parts", args->job.frame_parts,
                  "Under mpirun/srun: split every frame into this many parts handed out "
                  "separately (0: automatic, when there are fewer than 8 frames per rank)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--progress", args->progress, "Show progress even when stderr is not a terminal");
  cmd->add_flag("-q,--quiet", args->quiet, "No summary, no progress");
}

/// `pairhist calibrate`: the run's own tasks on its first frames, with StarPU measuring every
/// task (STARPU_CALIBRATE=1) under dmda, so the history models cover the sizes the run will meet.
/// dmda sends a task kind's tasks to the worker kinds not yet calibrated for it, so a kind that
/// occurs once per frame has its measurements split between the CPU and every GPU: the frames are
/// measured again (models accumulate) until every kind has STARPU_CALIBRATE_MINIMUM measurements
/// on every worker kind that can run it, which is also what the LP bound (run --lp-bound) needs.
void calibrate(RunArgs& a, int frames, int passes) {
  if (MpiWorld::distributed())
    throw UsageError(
        "calibrate measures one node: run it without mpirun/srun, once per kind "
        "of node, and share the models (perfmodels/README.md)");
  if (frames < 1) throw UsageError("--frames must be positive");
  if (passes < 1) throw UsageError("--passes must be positive");
  setenv("STARPU_CALIBRATE", "1", 1);
  if (a.job.scheduler.empty()) a.job.scheduler = "dmda";
  a.job.last = a.job.first + static_cast<int64_t>(frames - 1) * a.job.step;
  a.lp_bound = true;  // records the task kinds, and which still lack measurements where
  a.lp_file.clear();
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/pairhist-calibrate-XXXXXX";
  if (!mkdtemp(tmpl)) throw OutputError("cannot create a temporary directory in /tmp");
  a.output = (fs::path(tmpl) / "out").string();
  a.quiet = true;
  a.overwrite = true;  // each pass writes the same scratch directory
  a.resume = false;
  RunActivity last;
  int pass = 0;
  try {
    while (pass < passes) {
      RunArgs p = a;  // run() consumes the species list
      last = run(p).activity;
      ++pass;
      if (last.lp_kinds_uncalibrated == 0 && last.lp_kinds_partly_calibrated == 0) break;
    }
  } catch (...) {
    fs::remove_all(tmpl);
    throw;
  }
  fs::remove_all(tmpl);
  std::string dir;
  if (const char* d = std::getenv("STARPU_PERF_MODEL_DIR"))
    dir = d;
  else if (const char* h = std::getenv("STARPU_HOME"))
    dir = std::string(h) + "/.starpu/sampling";
  else if (const char* h = std::getenv("HOME"))
    dir = std::string(h) + "/.starpu/sampling";
  std::printf(
      "pairhist calibrate: measured the tasks of %d frames, %d pass%s; models stored in %s\n",
      frames, pass, pass == 1 ? "" : "es", dir.c_str());
  const uint64_t lacking = last.lp_kinds_uncalibrated + last.lp_kinds_partly_calibrated;
  if (lacking == 0)
    std::printf(
        "pairhist calibrate: all %llu task kinds have at least %u measurements on every worker "
        "kind that can run them\n",
        static_cast<unsigned long long>(last.lp_task_kinds), last.lp_minimum_measurements);
  else
    std::printf(
        "pairhist calibrate: %llu of %llu task kinds still have fewer than %u "
        "measurements on a worker kind that can run them (%llu on every one); run "
        "calibrate again, or with more --frames or --passes\n",
        static_cast<unsigned long long>(lacking),
        static_cast<unsigned long long>(last.lp_task_kinds), last.lp_minimum_measurements,
        static_cast<unsigned long long>(last.lp_kinds_uncalibrated));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Pair-distance histograms and g(r) of every species pair of a trajectory");
  add_run_options(cmd, args.get());
  cmd->callback([args, cmd]() {
    if (!args->config.empty()) apply_run_config(*cmd, args->config);
    run(*args);
  });

  auto cal = std::make_shared<RunArgs>();
  auto frames = std::make_shared<int>(20);
  auto passes = std::make_shared<int>(5);
  CLI::App* c = app.add_subcommand(
      "calibrate",
      "Calibrate StarPU's performance models for a run: the same arguments as `run`; runs the "
      "tasks of its first --frames frames under dmda with STARPU_CALIBRATE=1 and stores the "
      "models in $STARPU_PERF_MODEL_DIR (default ~/.starpu/sampling); no output is written");
  add_run_options(c, cal.get());
  c->add_option("--frames", *frames, "Frames to measure")->capture_default_str();
  c->add_option("--passes", *passes,
                "Measure the frames again, up to this many times in all, until every task kind "
                "has STARPU_CALIBRATE_MINIMUM (default 10) measurements on every worker kind "
                "that can run it")
      ->capture_default_str();
  c->callback([cal, frames, passes, c]() {
    if (!cal->config.empty()) apply_run_config(*c, cal->config);
    calibrate(*cal, *frames, *passes);
  });
}

}  // namespace pairhist
