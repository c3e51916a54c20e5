#include "drivers/cli/run_command.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <sstream>

#include "drivers/cli/config_file.hpp"
#include "drivers/cli/run_options.hpp"
#include "drivers/cli/run_scattering.hpp"
#include "drivers/cli/scattering_command.hpp"
#include "drivers/distributed/distributed_frame_stream.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "drivers/job/checkpoint.hpp"
#include "drivers/job/output_lock.hpp"
#include "drivers/job/run_outputs.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "drivers/report/activity_report.hpp"
#include "drivers/report/activity_svg.hpp"
#include "drivers/report/run_summary.hpp"
#include "drivers/report/task_trace.hpp"
#include "io/common/atomic_file.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist {
namespace {

std::string effective_config(const RunRequest& a) {
  std::ostringstream s;
  s.precision(17);
  s << "trajectory = \"" << a.job.trajectory << "\"\n";
  s << "topology = \"" << a.job.topology << "\"\n";
  for (const auto& sp : a.job.species)
    s << "species." << sp.name << " = \"" << sp.selection << "\"\n";
  if (!a.job.pairs.empty()) {
    s << "pairs = \"";
    for (size_t i = 0; i < a.job.pairs.size(); ++i) s << (i ? "," : "") << a.job.pairs[i];
    s << "\"\n";
  }
  s << "interval = " << a.job.interval << "\n";
  s << "algorithm = \"" << algorithm_name(a.job.algorithm) << "\"\n";
  if (!a.job.index_file.empty()) s << "index = \"" << a.job.index_file << "\"\n";
  if (!a.job.sphere.empty()) s << "sphere = \"" << a.job.sphere << "\"\n";
  if (!a.job.sphere_centre.empty()) s << "sphere-centre = \"" << a.job.sphere_centre << "\"\n";
  s << "exclude = \"" << a.job.exclude << "\"\nnorm = \"" << a.job.norm << "\"\n";
  s << "rmax = " << a.job.r_max << "\nnbins = " << a.job.nbins << "\nunits = \"" << a.job.units
    << "\"\nprecision = \"" << (a.job.precision == Precision::double_ ? "double" : "single")
    << "\"\nfirst = " << a.job.first << "\nlast = " << a.job.last << "\nstep = " << a.job.step
    << "\n";
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

/// With --scattering, what `pairhist scattering` computes from the pairhist.h5 just written into
/// a.controls.output (`result` with `config`: taken from memory, not read back), its files added to
/// `files`; with the kernels computed while the run counted, where they are done. At a completed
/// interval, when a bad frame ends the run with its completed intervals (`report` false) and when a
/// signal stopped it (`strict` false), a failure only warns, once: the counts are safe, and the
/// error or signal that ends the run must stay what it reports. At the end of a finished run
/// (`strict`) it is the run's error. `scatterers`: those the run decided as it defined its
/// species (empty where it never loaded its topology).
void scatter_outputs(const RunRequest& a, const HistogramResult& result, const std::string& config,
                     const std::shared_future<ScatteringKernels>& kernels,
                     const analysis::ScattererAssignment& scatterers,
                     std::vector<std::string>& files, bool report, bool strict) {
  if (!a.scattering) return;
  const ScatteringKernels* ahead = nullptr;
  try {
    if (kernels.valid()) ahead = &kernels.get();
  } catch (const std::exception&) {
    // The sums compute their own kernels, and meet the problem again where it is theirs.
  }
  try {
    // Empty only where the run never loaded its topology (then there are no counts either).
    const bool decided = !scatterers.species.empty();
    // The path read_histogram_result() gives a directory's pairhist.h5, named in the headers.
    const io::StoredRun run = io::stored_run(
        (std::filesystem::path(a.controls.output) / "pairhist.h5").string(), result, config);
    const std::vector<ScatteringResult> written =
        write_run_scattering(*a.scattering, decided ? &scatterers : nullptr, run, ahead);
    if (report) report_scattering("run", written, !a.controls.quiet);
    for (const ScatteringResult& r : written) files.insert(files.end(), {r.csv, r.xvg, r.h5});
  } catch (const std::exception& e) {
    const std::string why = "scattering failed after the counting (the counts are safe in " +
                            (std::filesystem::path(a.controls.output) / "pairhist.h5").string() +
                            "; `pairhist scattering` computes from them): " + e.what();
    if (strict) {
      if (dynamic_cast<const UsageError*>(&e)) throw UsageError(why);
      if (dynamic_cast<const InputError*>(&e)) throw InputError(why);
      if (dynamic_cast<const OutputError*>(&e)) throw OutputError(why);
      throw;
    }
    static bool warned = false;
    if (!warned) std::fprintf(stderr, "pairhist: warning: %s\n", why.c_str());
    warned = true;
  }
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

/// Rank 0 takes the output directory (its lock, held until the last file is written) and finds
/// a checkpoint to resume from, or with --overwrite the earlier run's files its results replace;
/// where it cannot, the other ranks of a distributed run end too.
void claim_output_directory(const RunRequest& a, Distribution* distribution,
                            const RunIdentity& identity, std::optional<Checkpoint>& resumed,
                            std::optional<OutputLock>& lock, EarlierRun& earlier) {
  try {
    // The arguments were checked (resolve_run_arguments()); the directory is checked again as
    // it is now, before the lock makes it.
    check_output_directory(a.controls.output);
    lock.emplace(a.controls.output);
    resumed = prepare_output_directory(a.controls.output, a.controls.resume, a.controls.overwrite,
                                       identity);
    if (a.controls.overwrite) earlier.record(a.controls.output);
  } catch (const std::exception& e) {
    if (distribution) share_setup_failure(*distribution, e);  // the other ranks end too
    throw;
  }
}

/// What rank 0 does while the job runs: checkpoints, each completed interval's files, and the
/// scatterers decided from the topology as it loads. The callbacks keep references to the
/// arguments: they must outlive the job.
void install_callbacks(RunRequest& a, bool root, const RunIdentity& identity,
                       const std::string& checkpoint, const std::string& config,
                       const std::shared_future<ScatteringKernels>& kernels,
                       const std::shared_ptr<analysis::ScattererAssignment>& scatterers,
                       EarlierRun& earlier) {
  a.job.hooks.checkpoint_seconds = a.controls.checkpoint_seconds;
  if (root) {
    a.job.hooks.on_checkpoint = [&](const JobState& state) {
      std::filesystem::create_directories(a.controls.output);
      write_checkpoint(checkpoint, {identity, state});
    };
    // Completed intervals are written as they complete, so a later fault loses nothing before
    // it.
    a.job.hooks.on_interval = [&](const HistogramResult& so_far) {
      std::vector<std::string> files = write_results(a.controls.output, so_far, config);
      earlier.retire();
      scatter_outputs(a, so_far, config, kernels, *scatterers, files, false, false);
      if (so_far.stopped_by != "in progress")
        std::fprintf(stderr, "pairhist: kept %zu complete intervals (%zu frames) in %s\n",
                     so_far.intervals.size(), so_far.frame_indices.size(),
                     a.controls.output.c_str());
    };
  }
  if (a.scattering) {
    // Decided from the topology and species' atoms the run defines: not read again.
    a.job.hooks.on_defined = [&resolved = *a.scattering, decided = scatterers](
                                 const RunDefinition& run, const analysis::Topology& topology) {
      *decided = decide_run_scatterers(resolved, run, topology);
    };
  }
}

/// The job itself. Bad input removes the checkpoint (going on from it would meet the input
/// again; not an earlier run's that --overwrite has not replaced yet) and the directory if the
/// run made it and nothing else is in it; an output error says whether the checkpoint is left to
/// resume from.
JobOutcome count(const RunRequest& a, bool root, const std::string& checkpoint,
                 const EarlierRun& earlier) {
  try {
    return run_trajectory_job(a.job);
  } catch (const InputError&) {
    if (!root) throw;
    std::error_code ec;
    if (!earlier.holds(checkpoint)) std::filesystem::remove(checkpoint, ec);
    std::filesystem::remove(a.controls.output, ec);  // only if empty: the run's own directory
    throw;
  } catch (const OutputError& e) {
    if (!std::filesystem::exists(checkpoint)) throw;
    throw OutputError(std::string(e.what()) + " (the checkpoint " + checkpoint +
                      " is intact: make room and add --resume)");
  }
}

/// The results hold the counts now; the checkpoint keeps what they were computed from.
void mark_finished(const HistogramResult& result, const RunIdentity& identity,
                   const std::string& checkpoint) {
  Checkpoint finished{identity, {}, true};
  finished.state.frame_indices = result.frame_indices;
  finished.state.frame_times = result.frame_times;
  finished.state.volumes = result.volumes;
  finished.state.open_counts.assign(result.pairs.size(),
                                    std::vector<uint64_t>(static_cast<size_t>(result.nbins)));
  write_checkpoint(checkpoint, finished);
}

/// --report, --lp-file, --activity-svg, --task-trace.
void write_run_extras(const RunRequest& a, const JobOutcome& out, std::vector<std::string>& files) {
  const auto write_extra = [&files](const std::string& path, const std::string& contents,
                                    const std::string& what) {
    io::write_text_atomically(path, contents, what);
    files.push_back(path);
  };
  if (!a.controls.report.empty())
    write_extra(a.controls.report, activity_json(out).dump(2) + '\n', "the report");
  if (!a.controls.lp_file.empty()) write_extra(a.controls.lp_file, out.activity.lp_text, "the LP");
  if (!a.controls.activity_svg.empty())
    write_extra(a.controls.activity_svg,
                activity_svg(out.activity, "pairhist run " + a.job.trajectory + ": " +
                                               std::to_string(out.cpu_workers) + " CPU + " +
                                               std::to_string(out.cuda_workers) +
                                               " CUDA workers, " + out.scheduler),
                "the activity picture");
  if (!a.controls.task_trace.empty())
    write_extra(a.controls.task_trace,
                out.ranks > 1 ? kTaskTraceHeader + out.rank_traces : task_trace_csv(out.activity),
                "the task trace");
  if (!a.controls.reading_trace.empty())
    write_extra(a.controls.reading_trace, reading_trace_csv(out.reading_timeline),
                "the reading trace");
}

/// The run `a` asks for, resolved from the arguments (resolve_run_arguments()): the job, with
/// the hooks of its checkpoints, outputs and scattering installed here, and its outputs. It
/// stops on `stop` (run_writing_outputs), or without one on the signals StopSignals handles.
JobOutcome run(RunRequest a, const std::atomic<int>* stop = nullptr) {
  // Under mpirun/srun with several ranks: rank 0 alone owns the output directory and writes.
  const std::unique_ptr<Distribution> distribution = make_distribution();
  const bool root = !distribution || distribution->rank() == 0;
  // This process's frames: read here, or handed out by rank 0 of a distributed run.
  if (distribution) {
    a.job.distributed.on_ranks = true;
    a.job.open_frame_stream = [&d = *distribution](const FramePlan& frames, const JobOptions& job) {
      return std::unique_ptr<FrameStream>(
          std::make_unique<DistributedFrameStream>(d, frames, job.trajectory));
    };
  }
  const RunIdentity identity = run_identity(a.job);
  std::optional<Checkpoint> resumed;
  std::optional<OutputLock> lock;  // held until the last file is written
  EarlierRun earlier;              // with --overwrite: replaced once this run has results
  if (root) claim_output_directory(a, distribution.get(), identity, resumed, lock, earlier);
  if (root && a.controls.resume && !resumed && !a.controls.quiet)
    std::fprintf(stderr, "pairhist: nothing to resume in %s: starting from the first frame\n",
                 a.controls.output.c_str());
  if (resumed && resumed->finished) {
    // A job script that resumes whatever happened: the run was done before it was stopped.
    std::fprintf(stderr,
                 "pairhist: %s holds this run's finished results (%zu frames): nothing "
                 "to resume\n",
                 a.controls.output.c_str(), resumed->state.frames());
    if (distribution) share_setup_failure(*distribution, RankFailure(0));
    return JobOutcome{};
  }
  if (resumed) a.job.resume = &resumed->state;
  if (!a.controls.quiet && root) a.job.hooks.progress = make_progress(a.controls.progress);

  const std::string checkpoint = checkpoint_path(a.controls.output);
  const std::string config = effective_config(a);
  // The kernels of the scattering sums depend on the q grid and the bins only: computed on a
  // thread of their own while the run counts (the sine integrals of the exact within-bin rule,
  // ~0.05 s of a core for 501 q and 240 bins), so that after it the sums are products only.
  std::shared_future<ScatteringKernels> kernels;
  if (root && a.scattering)
    kernels = std::async(std::launch::async, [resolved = *a.scattering, r_max = a.job.r_max,
                                              nbins = a.job.nbins, unit = a.job.units] {
                return scattering_kernels(resolved, r_max, nbins, unit, 1);
              }).share();
  const auto scatterers = std::make_shared<analysis::ScattererAssignment>();
  install_callbacks(a, root, identity, checkpoint, config, kernels, scatterers, earlier);
  std::optional<StopSignals> signals;  // the command's own: a caller's stop request is its own
  if (!stop) {
    signals.emplace();
    stop = &StopSignals::requested();
  }
  a.job.hooks.stop = stop;
  JobOutcome out = count(a, root, checkpoint, earlier);
  if (!out.root) {  // another rank of a distributed run: rank 0 writes
    if (out.stopped_by_signal != 0) throw StoppedBySignal(out.stopped_by_signal);
    return out;
  }
  if (a.job.hooks.progress) std::fprintf(stderr, "\n");
  const HistogramResult& result = out.result;
  if (out.stopped_by_signal != 0 && result.frame_indices.empty()) {
    std::fprintf(stderr, "pairhist: stopped by %s before any frame was counted: nothing written\n",
                 signal_name(out.stopped_by_signal).c_str());
    throw StoppedBySignal(out.stopped_by_signal);
  }

  std::vector<std::string> files = write_results(a.controls.output, result, config);
  // A trajectory that ends inside a frame is read to its end: the results hold all there is.
  if (result.complete || !out.incomplete_frame.empty()) mark_finished(result, identity, checkpoint);
  earlier.retire();
  scatter_outputs(a, result, config, kernels, *scatterers, files, true, out.stopped_by_signal == 0);
  out.end_marks.outputs_written = process_seconds();
  write_run_extras(a, out, files);
  if (!a.controls.quiet) print_run_summary(a.job, out, files, a.controls.verbose);
  if (out.stopped_by_signal != 0) {
    if (signals) print_stop_report(out, a.controls.output, checkpoint);  // a command line's
    throw StoppedBySignal(out.stopped_by_signal);
  }
  return out;
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
  env_set("STARPU_CALIBRATE", "1");
  if (a.job.scheduler.empty()) a.job.scheduler = "dmda";
  a.job.last = a.job.first + static_cast<int64_t>(frames - 1) * a.job.step;
  a.lp_bound = true;  // records the task kinds, and which still lack measurements where
  a.controls.lp_file.clear();
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/pairhist-calibrate-XXXXXX";
  if (!mkdtemp(tmpl)) throw OutputError("cannot create a temporary directory in /tmp");
  a.controls.output = (fs::path(tmpl) / "out").string();
  a.controls.quiet = true;
  a.controls.overwrite = true;  // each pass writes the same scratch directory
  a.controls.resume = false;
  RunActivity last;
  int pass = 0;
  try {
    // Resolved once: every pass runs the same request (a copy: run() installs its hooks).
    const RunRequest request = resolve_run_arguments(a);
    while (pass < passes) {
      last = run(request).activity;
      ++pass;
      if (last.lp_kinds_uncalibrated == 0 && last.lp_kinds_partly_calibrated == 0) break;
    }
  } catch (...) {
    fs::remove_all(tmpl);
    throw;
  }
  fs::remove_all(tmpl);
  std::string dir;
  if (const char* d = env_get("STARPU_PERF_MODEL_DIR"))
    dir = d;
  else if (const char* h = env_get("STARPU_HOME"))
    dir = std::string(h) + "/.starpu/sampling";
  else if (const char* h = env_get("HOME"))
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

JobOutcome run_writing_outputs(const RunRequest& request, const std::atomic<int>* stop) {
  return run(request, stop);
}

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Pair-distance histograms and g(r) of every species pair of a trajectory");
  add_run_options(cmd, args.get());
  add_run_scattering_options(cmd, args.get());
  cmd->callback([args, cmd]() { run(resolve_run_command(*cmd, *args)); });

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
