#include "drivers/report/run_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/positions.hpp"
#include "analysis/rdf.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/report/activity_report.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {
namespace {

/// The command line as given, to print the command that resumes a stopped run.
std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}

/// A word as a POSIX shell reads it back.
std::string shell_word(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./=:,+@%") == std::string::npos)
    return w;
  std::string quoted = "'";
  for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// This run's command with --resume (and without --overwrite).
std::string resume_command() {
  std::string cmd;
  bool has_resume = false;
  for (const std::string& w : command_line()) {
    if (w == "--overwrite") continue;
    has_resume |= w == "--resume";
    cmd += (cmd.empty() ? "" : " ") + shell_word(w);
  }
  return has_resume ? cmd : cmd + " --resume";
}

constexpr double kLauncherNoteSeconds = 0.25;

/// A distributed run whose last rank began long after its launcher: what the launcher did
/// meanwhile.
void print_launcher_note(const JobOutcome& out) {
  double launcher = 0;
  for (const RankActivity& r : out.rank_activity) launcher = std::max(launcher, r.after_launcher);
  // mpirun discovering the machine (its I/O devices: 0.5 s on a 2-GPU node, 1.2 s on a 4-GPU
  // one) before any rank exists: outside every rank's clock, yet in the job's wall time.
  if (launcher >= kLauncherNoteSeconds)
    std::printf(
        "  launcher      : the last rank began %.2f s after its launcher (mpirun: mostly its "
        "discovery of the machine; given the machine as XML, HWLOC_XMLFILE, it starts the ranks "
        "in ~0.03 s: docs/usage.md)\n",
        launcher);
}

/// A distributed run: the ranks together, then each (its own workers are rank 0's lines above).
void print_ranks(const JobOutcome& out) {
  double communication = 0;
  for (const RankActivity& r : out.rank_activity)
    communication += r.claim_seconds + r.reduction_seconds;
  const double span = out.ranks_makespan_seconds;
  std::printf(
      "  ranks         : %d (frames handed out by rank 0%s), makespan %.3f s, tail idle across "
      "ranks %.3f s (%.1f%%), communication %.3f s (all ranks)\n",
      out.ranks,
      out.frame_parts > 1 ? (", each in " + std::to_string(out.frame_parts) + " parts").c_str()
                          : "",
      span, out.ranks_tail_idle_seconds, span > 0 ? 100 * out.ranks_tail_idle_seconds / span : 0.0,
      communication);
  for (const RankActivity& r : out.rank_activity) {
    const int workers = r.cpu_workers + r.cuda_workers;
    const double idle =
        std::max(0.0, workers * (r.last_task_end - r.first_task_start) - r.busy_seconds);
    std::printf(
        "    rank %-3d %-14s %6llu %s %7llu tasks  %d CPU + %d CUDA  busy %8.3f s  idle %7.3f s  "
        "tail %6.3f s  claims %.3f s  reductions %.3f s\n",
        r.rank, r.host.c_str(), static_cast<unsigned long long>(r.units),
        out.frame_parts > 1 ? "units " : "frames", static_cast<unsigned long long>(r.tasks),
        r.cpu_workers, r.cuda_workers, r.busy_seconds, idle,
        r.tasks > 0 ? span - r.last_task_end : span, r.claim_seconds, r.reduction_seconds);
  }
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  command_line().assign(argv, argv + argc);
}

namespace {

/// What the histograms hold, in words: the quantity the outputs give per pair.
std::string quantity(const HistogramResult& r) {
  if (!analysis::can_normalise(r)) return "pair counts";
  if (r.norm == "rdf") return "g(r)";
  if (r.norm == "density") return "pair densities";
  return "pair counts per frame";
}

// What was computed and where it went, then the frames, species, bins and the time.
void print_counted(const JobOptions& job, const JobOutcome& out,
                   const std::vector<std::string>& files) {
  const auto& r = out.result;
  std::string pairs;
  for (size_t p = 0; p < r.pairs.size() && p < 8; ++p)
    pairs += (p ? ", " : "") + r.species[static_cast<size_t>(r.pairs[p].a)].name + "-" +
             r.species[static_cast<size_t>(r.pairs[p].b)].name;
  if (r.pairs.size() > 8) pairs += ", ... (" + std::to_string(r.pairs.size()) + " pairs)";
  std::printf("pairhist run: %s of %s from %s\n", quantity(r).c_str(), pairs.c_str(),
              job.trajectory.c_str());
  std::printf("  output        :");
  for (const auto& f : files) std::printf(" %s", f.c_str());
  std::printf("\n");
  const std::string box = r.box_kind == "none" ? "no box" : r.box_kind + " box";
  std::printf("  frames        : %zu", r.frame_indices.size());
  if (!r.frame_times.empty())
    std::printf(" (%g to %g ps)", r.frame_times.front(), r.frame_times.back());
  std::printf(", %s, %s precision", box.c_str(), r.precision.c_str());
  if (out.frames_resumed > 0)
    std::printf(", %zu of them from the checkpoint of an earlier run", out.frames_resumed);
  std::printf("\n");
  if (!out.incomplete_frame.empty())
    std::printf("  ends early    : %s; the outputs say complete = 0\n",
                out.incomplete_frame.c_str());
  if (out.activity.periodic_images)
    std::printf(
        "  images        : every periodic image within r_max (r_max beyond half the box): up to "
        "%d lattice translations a frame, %lld image points in the last\n",
        out.activity.most_image_translations, static_cast<long long>(out.activity.image_points));
  std::printf("  species       :");
  // Centres are named by their kind; with none, one word for all as before.
  std::vector<std::string> kinds;
  for (const auto& s : r.species) {
    try {
      const analysis::PositionType t = analysis::split_position_type(s.selection).type;
      kinds.push_back(t.is_atom() ? "atoms" : analysis::position_type_name(t) + " centres");
    } catch (const UsageError&) {
      kinds.push_back("atoms");
    }
  }
  const bool centres =
      std::any_of(kinds.begin(), kinds.end(), [](const std::string& k) { return k != "atoms"; });
  for (size_t i = 0; i < r.species.size(); ++i)
    std::printf(" %s=%lld%s%s", r.species[i].name.c_str(),
                static_cast<long long>(r.species[i].count), centres ? " " : "",
                centres ? (kinds[i] + (i + 1 < kinds.size() ? "," : "")).c_str() : "");
  const double width = (r.r_max - r.r_min) / r.nbins;
  char from[64] = "up to";
  if (r.r_min > 0) std::snprintf(from, sizeof from, "from %g to", r.r_min);
  std::printf("%s\n  histograms    : %zu pair%s, %d bins %s %g %s (%g %s wide)\n",
              centres ? "" : " atoms", r.pairs.size(), r.pairs.size() == 1 ? "" : "s", r.nbins,
              from, r.r_max, r.length_unit.c_str(), width, r.length_unit.c_str());
  if (r.r_min > 0)
    std::printf(
        "  first bin     : from --rmin %g %s: closer pairs are not counted, n(r) counts "
        "from there (as MDAnalysis's range and freud's r_min)\n",
        r.r_min, r.length_unit.c_str());
  if (job.r_cut > 0)
    std::printf(
        "  last bin      : partial: --rmax %g %s is not a multiple of the bin width, so "
        "the last bin [%g, %g) counts only the pairs below %g %s and is written as "
        "counted, normalised as a whole bin (as gmx rdf does)\n",
        job.r_cut, r.length_unit.c_str(), r.r_max - width, r.r_max, job.r_cut,
        r.length_unit.c_str());
  // Excluded pairs over all frames; with a dynamic species each frame's own, except for a cross
  // pair of species sharing atoms (HistogramResult::excluded_pairs_total): its most per frame.
  uint64_t excluded = 0;
  std::string bounded;
  for (size_t p = 0; p < r.pairs.size(); ++p) {
    uint64_t total = 0;
    if (r.excluded_pairs_total(p, total)) {
      excluded += total;
      continue;
    }
    const PairHistogram& h = r.pairs[p];
    bounded += ", and of " + r.species[static_cast<size_t>(h.a)].name + "-" +
               r.species[static_cast<size_t>(h.b)].name + " at most " +
               std::to_string(h.excluded_pairs) +
               " per frame (its species share atoms, whose number per frame is not kept)";
  }
  std::printf("  analysis      : norm %s, exclude %s (%llu excluded pairs%s)\n", r.norm.c_str(),
              r.exclude.c_str(), static_cast<unsigned long long>(excluded), bounded.c_str());
  if (!r.sphere.empty()) {
    const std::string& c = r.sphere_centre;
    const std::string centre = c == "mass" || c == "geometry" ? "centre of " + c
                               : c == "box"                   ? "centre of the box"
                                                              : "centre at the " + c;
    std::printf("  sphere        : %s, %s, no box; atoms per frame (mean):", r.sphere.c_str(),
                centre.c_str());
    for (size_t i = 0; i < r.species.size(); ++i)
      std::printf(" %s=%.1f", r.species[i].name.c_str(), r.mean_species_count(static_cast<int>(i)));
    std::printf("\n");
  }
  std::printf("  time          : %.3f s\n", out.seconds);
}

// The pairs examined and the throughput (--verbose).
void print_throughput(const JobOutcome& out) {
  const auto& r = out.result;
  uint64_t counted = 0;
  for (const auto& p : r.pairs)
    for (uint64_t c : p.counts) counted += c;
  if (out.frames_resumed > 0)
    std::printf("  pairs         : %llu examined in this run, %llu within r_max in all\n",
                static_cast<unsigned long long>(out.pairs_examined),
                static_cast<unsigned long long>(counted));
  else
    std::printf("  pairs         : %llu examined, %llu within r_max, %llu beyond (not counted)\n",
                static_cast<unsigned long long>(out.pairs_examined),
                static_cast<unsigned long long>(counted),
                static_cast<unsigned long long>(out.pairs_examined - counted));
  std::printf("  throughput    : %.3f bapps (billions of atom pairs per second), %llu tasks\n",
              out.seconds > 0 ? out.pairs_examined / out.seconds * 1e-9 : 0.0,
              static_cast<unsigned long long>(out.tasks));
}

// How it was counted: algorithm, cell grid, workers, reading, tasks, makespan, LP bound, and
// each worker's share.
void print_execution(const JobOptions& job, const JobOutcome& out) {
  const auto& r = out.result;
  const RunActivity& act = out.activity;
  std::printf("  algorithm     : %s\n", pair_algorithms_text(out).c_str());
  if (act.cell_reach > 0) {
    const double unit = r.length_unit == "nm" ? 1.0 : 10.0;
    std::printf(
        "  cell grid     : %dx%dx%d cells at least %.4g %s wide (search radius %.6g, reach "
        "%d, %s order)\n",
        act.cell_grid[0], act.cell_grid[1], act.cell_grid[2], act.cell_cut / act.cell_reach * unit,
        r.length_unit.c_str(), act.cell_cut * unit, act.cell_reach, act.cell_order.c_str());
  }
  std::printf("  workers       : %d CPU", out.cpu_workers);
  if (!out.activity.cpu_kernels.empty())
    std::printf(" (%s kernels)", out.activity.cpu_kernels.c_str());
  std::printf(", %d CUDA, scheduler %s\n", out.cuda_workers, out.scheduler.c_str());
  if (out.decode_threads > 0) {
    std::printf("  reading       : %d decoding threads", out.decode_threads);
    if (out.gpu_seconds > 0 && out.cuda_workers > 0)
      std::printf(" (a frame took a thread %.1f ms, the GPUs need ~%.1f ms%s)",
                  out.prepare_seconds * 1e3, out.gpu_seconds * 1e3,
                  out.feed_bound ? ": the starting threads could not keep pace" : "");
    std::printf("\n");
  }
  if (out.feeding_planned)
    std::printf("  plan          : %s\n",
                describe_feeding(out.feeding_inputs, out.feeding_plan).c_str());
  std::printf("  tasks         : %llu CPU, %llu CUDA shared-memory, %llu CUDA global-memory",
              static_cast<unsigned long long>(act.tasks_cpu),
              static_cast<unsigned long long>(act.tasks_cuda_shared),
              static_cast<unsigned long long>(act.tasks_cuda_global));
  if (act.tasks_cell_cpu + act.tasks_cell_cuda > 0)
    std::printf(", %llu CPU cell-list, %llu CUDA cell-list",
                static_cast<unsigned long long>(act.tasks_cell_cpu),
                static_cast<unsigned long long>(act.tasks_cell_cuda));
  std::printf("\n");
  std::printf("  makespan      : %.3f s of tasks, tail idle %.3f s (%.1f%%)\n",
              act.makespan_seconds, act.tail_idle_seconds,
              act.makespan_seconds > 0 ? 100 * act.tail_idle_seconds / act.makespan_seconds : 0.0);
  if (out.cpu_workers > 0 && out.cuda_workers > 0)
    std::printf("  cpu share     : %s\n", cpu_share_text(act).c_str());
  if (job.lp_bound) std::printf("  LP bound      : %s\n", lp_bound_text(act).c_str());
  if (act.lp_bound_seconds > 0 && act.lp_kinds_partly_calibrated > 0)
    std::printf(
        "  LP bound note : %llu of %llu task kinds lack measurements on a worker kind that "
        "can run them (counted as 1e9 ms there: the bound may be too high)\n",
        static_cast<unsigned long long>(act.lp_kinds_partly_calibrated),
        static_cast<unsigned long long>(act.lp_task_kinds));
  for (const auto& w : act.workers) {
    if (w.tasks == 0) continue;
    std::printf("    %-28s %6llu tasks %14llu pairs  busy %7.3f s  idle %7.3f s\n", w.name.c_str(),
                static_cast<unsigned long long>(w.tasks), static_cast<unsigned long long>(w.pairs),
                w.busy_seconds, std::max(0.0, act.makespan_seconds - w.busy_seconds));
  }
  if (out.ranks > 1) print_ranks(out);
}

}  // namespace

void print_run_summary(const JobOptions& job, const JobOutcome& out,
                       const std::vector<std::string>& files, bool verbose) {
  print_counted(job, out, files);
  if (verbose) {
    print_throughput(out);
    print_execution(job, out);
  }
  if (out.ranks > 1) print_launcher_note(out);
  const auto& r = out.result;
  if (!analysis::can_normalise(r))
    std::printf("  note          : no periodic box and no --volume: counts only, no g(r)\n");
}

void print_stop_report(const JobOutcome& out, const std::string& output,
                       const std::string& checkpoint) {
  const HistogramResult& result = out.result;
  const std::string name = signal_name(out.stopped_by_signal);
  std::fprintf(
      stderr,
      "pairhist: stopped by %s after %zu frame%s (trajectory frames %lld to %lld, up to "
      "%g ps)%s\n",
      name.c_str(), result.frame_indices.size(), result.frame_indices.size() == 1 ? "" : "s",
      static_cast<long long>(result.frame_indices.front()),
      static_cast<long long>(result.frame_indices.back()), result.frame_times.back(),
      out.frames_dropped > 0
          ? ("; " + std::to_string(out.frames_dropped) + " frames in flight dropped").c_str()
          : "");
  std::fprintf(stderr,
               "pairhist: the outputs in %s say complete = 0, stopped_by = %s; checkpoint %s\n",
               output.c_str(), name.c_str(), checkpoint.c_str());
  if (out.ranks > 1)
    std::fprintf(stderr,
                 "pairhist: resume under mpirun/srun again (any number of ranks) or alone: %s\n",
                 resume_command().c_str());
  else
    std::fprintf(stderr, "pairhist: resume with: %s\n", resume_command().c_str());
}

}  // namespace pairhist
