#include "drivers/distributed/distributed_job.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

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
  return r;
}

/// The collective end of a run on every rank.
JobOutcome finish(DistributedEnd& d, JobOutcome out) {
  Distribution& dist = d.dist;
  const bool root = dist.rank() == 0;
  // Every rank has read or given up the frames it was handed: the same end everywhere.
  const RunEnd end = dist.run_end();
  d.exchange.set_frames(end.frames);
  const int64_t last = d.exchange.last_interval(end);
  d.exchange.hand_over(d.local, last + 1);
  if (d.global) d.exchange.collect(*d.global, &end, last, true, d.interval_closed);

  // This rank's activity, on the common clock.
  JobOutcome mine = out;
  mine.result = d.header;
  describe_engine(d.engine, 0, mine);
  RankActivity me;
  me.rank = dist.rank();
  me.units = d.engine.frames_submitted();
  me.tasks = mine.tasks;
  me.cpu_workers = mine.cpu_workers;
  me.cuda_workers = mine.cuda_workers;
  const double offset = seconds_between(d.origin, d.engine_started);
  bool any = false;
  for (const TaskSpan& t : mine.activity.timeline) {
    me.first_task_start = any ? std::min(me.first_task_start, t.start + offset) : t.start + offset;
    me.last_task_end = std::max(me.last_task_end, t.end + offset);
    any = true;
  }
  for (const WorkerActivity& w : mine.activity.workers) me.busy_seconds += w.busy_seconds;
  me.claim_seconds = dist.claim_seconds();
  me.reduction_seconds = dist.reduction_seconds();
  // All-pairs pairs as the engine planned them (its parts of frames), cell lists' candidates.
  uint64_t examined = 0;
  for (const PairWork& w : mine.activity.pair_work) examined += w.candidates;
  RankReport report;
  report.rank = dist.rank();
  nlohmann::json j = to_json(me, examined);
  if (d.options.gather_traces)
    j["trace"] = task_trace_csv(mine.activity, dist.rank(), offset, false);
  report.json = j.dump();
  const std::vector<RankReport> reports = dist.gather_reports(report);
  dist.finish();  // StarPU-MPI stops here, before StarPU (the engine's)

  if (!root) {
    mine.root = false;
    if (end.why == RunEnd::Why::input_error) throw RankFailure(1);
    mine.stopped_by_signal = end.why == RunEnd::Why::stopped ? end.signo : 0;
    return mine;
  }
  // Rank 0: the run's outcome, its own engine's report, and every rank's part.
  out.seconds = seconds_between(d.start, std::chrono::steady_clock::now());
  d.header.box_kind = box_kind_name(d.kind);
  out.result = d.global->result(d.header, true);
  out.activity = mine.activity;
  out.cpu_workers = mine.cpu_workers;
  out.cuda_workers = mine.cuda_workers;
  out.scheduler = mine.scheduler;
  out.frames_in_flight = mine.frames_in_flight;
  out.frame_bytes = mine.frame_bytes;
  out.ranks = dist.ranks();
  out.frame_parts = d.frame_parts;
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

  if (end.why == RunEnd::Why::input_error) {
    // Keep what completed intervals hold, marked incomplete, then report the bad frame.
    if (!d.global->state().intervals.empty() && d.options.on_interval)
      d.options.on_interval(d.snapshot(end.message));
    throw InputError(end.message);
  }
  if (end.why == RunEnd::Why::stopped) {
    out.stopped_by_signal = end.signo;
    out.result.complete = false;
    out.result.stopped_by = signal_name(end.signo);
    if (d.global->state().frames() > 0) d.checkpoint();
  } else if (out.result.frame_indices.empty() && out.frames_resumed == 0) {
    throw InputError(d.options.trajectory + ": no frame selected");
  }
  return out;
}

}  // namespace

JobOutcome finish_distributed_job(DistributedEnd& d, JobOutcome out) {
  try {
    return finish(d, std::move(out));
  } catch (const InputError&) {
    throw;  // the run's bad frame, on rank 0, after every rank finished
  } catch (const RankFailure&) {
    throw;
  } catch (const std::exception& e) {
    // Rank 0 could not write, or a rank failed at the end: the others wait in the collective
    // end, so every rank is ended now.
    d.dist.fail(e.what());
    throw;  // not reached: fail() ends the process
  }
}

}  // namespace pairhist
