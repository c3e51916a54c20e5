#include "drivers/distributed/distributed_count_sink.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "drivers/job/engine_settings.hpp"
#include "drivers/job/frame_stream.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/report/task_trace.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

nlohmann::json to_json(const RankActivity& r, uint64_t pairs_examined) {
  return {{"units", r.units},
          {"tasks", r.tasks},
          {"cpu_workers", r.cpu_workers},
          {"cuda_workers", r.cuda_workers},
          {"busy_seconds", r.busy_seconds},
          {"first_task_start_seconds", r.first_task_start},
          {"last_task_end_seconds", r.last_task_end},
          {"claim_seconds", r.claim_seconds},
          {"reduction_seconds", r.reduction_seconds},
          {"start_marks", {r.run_defined, r.counting, r.engine_started}},
          {"after_launcher_seconds", r.after_launcher},
          {"pairs_examined", pairs_examined}};
}

RankActivity from_json(const nlohmann::json& j, int rank, const std::string& host) {
  RankActivity r;
  r.rank = rank;
  r.host = host;
  r.units = j.at("units");
  r.tasks = j.at("tasks");
  r.pairs = j.at("pairs_examined");
  r.cpu_workers = j.at("cpu_workers");
  r.cuda_workers = j.at("cuda_workers");
  r.busy_seconds = j.at("busy_seconds");
  r.first_task_start = j.at("first_task_start_seconds");
  r.last_task_end = j.at("last_task_end_seconds");
  r.claim_seconds = j.at("claim_seconds");
  r.reduction_seconds = j.at("reduction_seconds");
  const auto& marks = j.at("start_marks");
  r.run_defined = marks.at(0), r.counting = marks.at(1), r.engine_started = marks.at(2);
  r.after_launcher = j.at("after_launcher_seconds");
  return r;
}

}  // namespace

DistributedCountSink::DistributedCountSink(Distribution& dist, const RunDefinition& run,
                                           const JobClock& clock, BoxKind kind, int frame_parts,
                                           int64_t resumed_frames,
                                           std::chrono::steady_clock::time_point origin)
    // This rank's counts are only those since its last hand-over: no intervals, no seed.
    : CountSink(run, clock, kind, 0, JobState{}),
      dist_(dist),
      frame_parts_(frame_parts),
      origin_(origin),
      // A dynamic species: every frame's sizes go to rank 0 with its record.
      exchange_(dist, run.pairs.size(), run.options.nbins, run.options.interval, resumed_frames,
                run.has_dynamic() ? run.atoms.size() : 0) {
  if (frame_parts > 1) counts_.allow_wrapping();
  // Rank 0's state has no self or excluded pairs to take out: the ranks took them out.
  if (dist.rank() == 0)
    global_ = std::make_unique<JobAccumulator>(run.pairs.size(), run.options.nbins,
                                               std::vector<uint64_t>(run.pairs.size(), 0),
                                               run.options.interval, run.seed);
}

void DistributedCountSink::set_box_kind(BoxKind kind, bool periodic_images) {
  CountSink::set_box_kind(kind, periodic_images);
  if (global_) {
    global_->set_box_kind(static_cast<int>(kind));
    global_->set_periodic_images(periodic_images);
  }
}

void DistributedCountSink::unit_coming(const WorkUnit& unit, HistogramEngine& engine) {
  const int64_t interval = exchange_.interval_of(unit.ordinal);
  if (interval == exchange_.current()) return;
  take_histograms(engine);
  exchange_.hand_over(counts_, interval);
}

void DistributedCountSink::submitted(const WorkUnit& unit, const FrameRecord& frame,
                                     SparseBins excluded) {
  CountSink::submitted(unit, frame, std::move(excluded));
  exchange_.submitted(unit);
}

bool DistributedCountSink::after_unit(HistogramEngine&) {
  if (global_)
    exchange_.collect(*global_, nullptr, INT64_MAX, false, [this] { interval_closed(); });
  return true;
}

void DistributedCountSink::interval_closed() {
  const JobOptions& o = run_.options;
  checkpoint();
  if (o.hooks.on_interval) o.hooks.on_interval(snapshot(*global_, "in progress"));
  dist_.note_kept(std::to_string(global_->state().intervals.size()) + " complete intervals (" +
                  std::to_string(global_->state().frames()) + " frames) are kept" +
                  o.distributed.output_place);
  if (o.hooks.progress) o.hooks.progress(static_cast<int64_t>(global_->state().frames()));
}

void DistributedCountSink::checkpoint() {
  if (run_.options.hooks.on_checkpoint) run_.options.hooks.on_checkpoint(global_->state());
}

JobOutcome DistributedCountSink::finish(JobOutcome out, const HistogramEngine* engine,
                                        const FrameStream& frames) {
  try {
    return finish_run(std::move(out), *engine, frames.cut_short());
  } catch (const InputError&) {
    throw;  // the run's bad frame, on rank 0, after every rank finished
  } catch (const RankFailure&) {
    throw;
  } catch (const std::exception& e) {
    // Rank 0 could not write, or a rank failed at the end: the others wait in the collective
    // end, so every rank is ended now.
    dist_.fail(e.what());
    throw;  // not reached: fail() ends the process
  }
}

JobOutcome DistributedCountSink::finish_run(JobOutcome out, const HistogramEngine& engine,
                                            const std::string& cut_short) {
  // Every rank has read or given up the frames it was handed: the same end everywhere.
  const RunEnd end = dist_.run_end();
  exchange_.set_frames(end.frames);
  const int64_t last = exchange_.last_interval(end);
  exchange_.hand_over(counts_, last + 1);
  if (global_) exchange_.collect(*global_, &end, last, true, [this] { interval_closed(); });

  JobOutcome mine = out;
  mine.result = run_.header;
  describe_engine(engine, 0, mine);
  const std::vector<RankReport> reports = gather_activity(mine, engine);
  dist_.finish();  // StarPU-MPI stops here, before StarPU (the engine's)

  if (dist_.rank() != 0) {
    mine.root = false;
    if (end.why == RunEnd::Why::input_error) throw RankFailure(1);
    mine.stopped_by_signal = end.why == RunEnd::Why::stopped ? end.signo : 0;
    return mine;
  }
  out.seconds = clock_.seconds_since_start();
  out.result = global_->result(header(), true);
  add_ranks(out, mine, reports);

  if (end.why == RunEnd::Why::input_error) {
    // Keep what completed intervals hold, marked incomplete, then report the bad frame.
    if (!global_->state().intervals.empty() && run_.options.hooks.on_interval)
      run_.options.hooks.on_interval(snapshot(*global_, end.message));
    throw InputError(end.message);
  }
  if (end.why == RunEnd::Why::stopped) {
    out.stopped_by_signal = end.signo;
    out.result.complete = false;
    out.result.stopped_by = signal_name(end.signo);
    if (global_->state().frames() > 0) checkpoint();
  } else if (out.result.frame_indices.empty() && out.frames_resumed == 0) {
    throw InputError(run_.options.trajectory + ": no frame selected");
  } else if (!cut_short.empty()) {
    out.incomplete_frame = cut_short;
    out.result.complete = false;
    out.result.stopped_by = cut_short;
  }
  return out;
}

std::vector<RankReport> DistributedCountSink::gather_activity(const JobOutcome& mine,
                                                              const HistogramEngine& engine) {
  RankActivity me;
  me.rank = dist_.rank();
  me.units = engine.frames_submitted();
  me.tasks = mine.tasks;
  me.cpu_workers = mine.cpu_workers;
  me.cuda_workers = mine.cuda_workers;
  const double offset = seconds_between(origin_, clock_.engine_started);
  bool any = false;
  for (const TaskSpan& t : mine.activity.timeline) {
    me.first_task_start = any ? std::min(me.first_task_start, t.start + offset) : t.start + offset;
    me.last_task_end = std::max(me.last_task_end, t.end + offset);
    any = true;
  }
  for (const WorkerActivity& w : mine.activity.workers) me.busy_seconds += w.busy_seconds;
  me.claim_seconds = dist_.claim_seconds();
  me.reduction_seconds = dist_.reduction_seconds();
  me.run_defined = mine.start_marks.run_defined;
  me.counting = mine.start_marks.counting;
  me.engine_started = mine.start_marks.engine_started;
  me.after_launcher = seconds_after_parent();
  // All-pairs pairs as the engine planned them (its parts of frames), cell lists' candidates.
  uint64_t examined = 0;
  for (const PairWork& w : mine.activity.pair_work) examined += w.candidates;
  RankReport report;
  report.rank = dist_.rank();
  nlohmann::json j = to_json(me, examined);
  if (run_.options.distributed.gather_traces)
    j["trace"] = task_trace_csv(mine.activity, dist_.rank(), offset, false);
  report.json = j.dump();
  return dist_.gather_reports(report);
}

void DistributedCountSink::add_ranks(JobOutcome& out, const JobOutcome& mine,
                                     const std::vector<RankReport>& reports) {
  out.activity = mine.activity;
  out.cpu_workers = mine.cpu_workers;
  out.cuda_workers = mine.cuda_workers;
  out.scheduler = mine.scheduler;
  out.frames_in_flight = mine.frames_in_flight;
  out.frame_bytes = mine.frame_bytes;
  out.ranks = dist_.ranks();
  out.frame_parts = frame_parts_;
  out.tasks = 0;
  out.pairs_examined = 0;
  double first_end = 0;
  bool first = true;
  for (const RankReport& r : reports) {
    const nlohmann::json rj = nlohmann::json::parse(r.json);
    RankActivity a = from_json(rj, r.rank, r.host);
    out.tasks += a.tasks;
    out.pairs_examined += rj.at("pairs_examined").get<uint64_t>();
    out.ranks_makespan_seconds = std::max(out.ranks_makespan_seconds, a.last_task_end);
    if (a.tasks > 0) first_end = first ? a.last_task_end : std::min(first_end, a.last_task_end);
    if (a.tasks > 0) first = false;
    if (rj.contains("trace")) out.rank_traces += rj.at("trace").get<std::string>();
    out.rank_activity.push_back(a);
  }
  out.ranks_tail_idle_seconds = first ? 0 : out.ranks_makespan_seconds - first_end;
}

}  // namespace pairhist
