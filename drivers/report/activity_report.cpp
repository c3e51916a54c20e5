#include "drivers/report/activity_report.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "tasks/algorithm_choice.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

std::string cpu_share_text(const RunActivity& a) {
  char text[200];
  if (a.cpu_share_measured)
    std::snprintf(text, sizeof(text),
                  "%.2f%% of pairs (measured rates: cores %.2g/s, GPUs %.2g/s; GPUs ran %.0f%% of "
                  "CPU-sized pairs)",
                  100 * a.cpu_share, a.measured_cpu_rate, a.measured_gpu_rate,
                  100 * a.gpu_ran_cpu_sized);
  else if (a.cpu_share == 0)
    std::snprintf(text, sizeof(text), "none planned");
  else
    std::snprintf(text, sizeof(text), "%.2f%% of pairs (assumed rates: too few tasks measured)",
                  100 * a.cpu_share);
  return text;
}

std::string lp_bound_text(const RunActivity& a) {
  char num[160];
  std::string s;
  if (a.lp_bound_measured_seconds > 0) {
    std::snprintf(
        num, sizeof(num), "%.3f s from this run's measured task times (makespan %.1f%% above; ",
        a.lp_bound_measured_seconds, 100 * (a.makespan_seconds / a.lp_bound_measured_seconds - 1));
    s = num + std::to_string(a.lp_measured_estimated_kinds) + " of " +
        std::to_string(a.lp_measured_kinds) + " kinds estimated on an arch where they did not run";
    if (a.lp_measured_unknown_entries > 0)
      s += "; " + std::to_string(a.lp_measured_unknown_entries) +
           " kind-arch pairs left out: that arch ran no task";
    s += ")";
  } else {
    s = "n/a from this run's measured task times: " + a.lp_bound_measured_reason;
  }
  s += "; StarPU's history bound: ";
  if (a.lp_bound_seconds > 0) {
    std::snprintf(num, sizeof(num), "%.3f s (makespan / bound = %.3f)", a.lp_bound_seconds,
                  a.makespan_seconds / a.lp_bound_seconds);
    return s + num;
  }
  return s + "n/a: " + a.lp_bound_reason;
}

namespace {

std::string pair_name(const JobOutcome& out, const PairWork& w) {
  const auto& sp = out.result.species;
  return sp[static_cast<size_t>(w.species_a)].name + "-" +
         sp[static_cast<size_t>(w.species_b)].name;
}

double fraction_within(const PairWork& w) {
  return w.candidates > 0 ? static_cast<double>(w.within) / static_cast<double>(w.candidates) : 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// The thread that feeds the engine, per frame (FrameFeed): its own time in the engine (buffers,
/// copy or hand-over, ordering, submitting), its wait for a free slot (the tasks of the frame
/// that used it before), and its time from one frame's submission to the next one's (reading).
nlohmann::json feeding_json(const RunActivity& a) {
  std::vector<double> engine, wait, between;
  for (size_t f = 0; f < a.feed.size(); ++f) {
    const FrameFeed& x = a.feed[f];
    engine.push_back((x.allocated - x.begin) + (x.submitted - x.buffers_free));
    wait.push_back(x.buffers_free - x.allocated);
    if (f > 0) between.push_back(x.begin - a.feed[f - 1].submitted);
  }
  // The first frames step by step: a run's first frames have cost the feeding thread
  // 0.2-0.3 s each on a 4-GPU node, later ones milliseconds (issue 24).
  nlohmann::json first = nlohmann::json::array();
  for (size_t f = 0; f < std::min<size_t>(a.feed.size(), 4); ++f) {
    const FrameFeed& x = a.feed[f];
    first.push_back({{"buffers_seconds", x.allocated - x.begin},
                     {"slot_wait_seconds", x.buffers_free - x.allocated},
                     {"fill_seconds", x.filled - x.buffers_free},
                     {"plan_submit_seconds", x.submitted - x.filled}});
  }
  return {{"frames", a.feed.size()},
          {"frames_handed_over", a.frames_handed_over},
          {"median_engine_seconds", median(engine)},
          {"median_slot_wait_seconds", median(wait)},
          {"median_between_frames_seconds", median(between)},
          {"first_frames", first}};
}

/// The feeding plan's inputs and decision (null when no plan was made).
nlohmann::json feeding_plan_json(const JobOutcome& out) {
  if (!out.feeding_planned) return nullptr;
  const FeedingInputs& in = out.feeding_inputs;
  const FeedingPlan& plan = out.feeding_plan;
  // "rule": the plan's rules since issue 24 (the key stays for readers of older reports, where it
  // could also say "legacy").
  return {{"rule", "issue-24"},
          {"inputs",
           {{"cores", in.cores},
            {"gpus", in.gpus},
            {"prepare_seconds_per_frame", in.prepare_seconds},
            {"gpu_seconds_per_frame", in.gpu_seconds},
            {"core_seconds_per_frame", in.core_seconds},
            {"core_task_seconds", in.core_task_seconds},
            {"reader_threads", in.reader_threads},
            {"max_reader_threads", in.max_reader_threads},
            {"reader_threads_set", in.reader_threads_set},
            {"requested_cpu_workers", in.requested_cpu_workers},
            {"feeding_thread_copies", in.feeding_thread_copies},
            {"frame_bytes", in.frame_bytes},
            {"host_memory_bytes", in.host_memory_bytes},
            {"frames_in_flight_set", in.frames_in_flight_set}}},
          {"decision",
           {{"reader_threads", plan.reader_threads},
            {"cpu_workers", plan.cpu_workers},
            {"frames_in_flight", plan.frames_in_flight},
            {"feed_bound", plan.feed_bound},
            {"cores", cores_choice_name(plan.cores)}}},
          {"text", describe_feeding(in, plan)}};
}

}  // namespace

std::string pair_algorithms_text(const JobOutcome& out) {
  std::string s;
  for (const PairWork& w : out.activity.pair_work) {
    char text[160];
    std::snprintf(text, sizeof(text), "%s%s %s (%.3g candidates, %.1f%% within r_max)",
                  s.empty() ? "" : ", ", pair_name(out, w).c_str(), algorithm_name(w.algorithm),
                  static_cast<double>(w.candidates), 100 * fraction_within(w));
    s += text;
  }
  return s;
}

nlohmann::json pair_algorithms_json(const JobOutcome& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const PairWork& w : out.activity.pair_work)
    list.push_back({{"pair", pair_name(out, w)},
                    {"algorithm", algorithm_name(w.algorithm)},
                    {"candidates", w.candidates},
                    {"within_r_max", w.within},
                    {"fraction_within", fraction_within(w)}});
  return list;
}

nlohmann::json ranks_json(const JobOutcome& out) {
  if (out.ranks <= 1) return nullptr;
  nlohmann::json ranks = nlohmann::json::array();
  double communication = 0;
  const double span = out.ranks_makespan_seconds;
  for (const RankActivity& r : out.rank_activity) {
    const int workers = r.cpu_workers + r.cuda_workers;
    communication += r.claim_seconds + r.reduction_seconds;
    ranks.push_back(
        {{"rank", r.rank},
         {"host", r.host},
         {"units", r.units},
         {"tasks", r.tasks},
         {"pairs", r.pairs},
         {"cpu_workers", r.cpu_workers},
         {"cuda_workers", r.cuda_workers},
         {"busy_seconds", r.busy_seconds},
         {"idle_seconds",
          std::max(0.0, workers * (r.last_task_end - r.first_task_start) - r.busy_seconds)},
         {"first_task_start_seconds", r.first_task_start},
         {"last_task_end_seconds", r.last_task_end},
         {"tail_seconds", r.tasks > 0 ? span - r.last_task_end : span},
         {"claim_seconds", r.claim_seconds},
         {"reduction_seconds", r.reduction_seconds},
         {"start_marks_seconds",
          {{"run_defined", r.run_defined},
           {"counting", r.counting},
           {"engine_started", r.engine_started}}},
         {"after_launcher_seconds", r.after_launcher}});
  }
  return {{"count", out.ranks},
          {"frame_parts", out.frame_parts},
          {"makespan_seconds", span},
          {"tail_idle_seconds", out.ranks_tail_idle_seconds},
          {"tail_idle_fraction", span > 0 ? out.ranks_tail_idle_seconds / span : 0.0},
          {"communication_seconds", communication},
          {"per_rank", ranks}};
}

nlohmann::json activity_json(const JobOutcome& out) {
  const RunActivity& a = out.activity;
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : a.workers)
    workers.push_back({{"id", w.id},
                       {"name", w.name},
                       {"kind", w.is_cuda ? "cuda" : "cpu"},
                       {"tasks", w.tasks},
                       {"pairs", w.pairs},
                       {"busy_seconds", w.busy_seconds},
                       {"idle_seconds", std::max(0.0, a.makespan_seconds - w.busy_seconds)},
                       {"last_task_end_seconds", w.last_end_seconds}});
  // Start-up latency: engine start (reading, first frame, first transfer) to the first task.
  double first_task = a.timeline.empty() ? 0.0 : a.timeline.front().start;
  for (const auto& span : a.timeline) first_task = std::min(first_task, span.start);
  uint64_t counted = 0;
  for (const auto& p : out.result.pairs)
    for (uint64_t c : p.counts) counted += c;
  return {{"frames", out.result.frame_indices.size()},
          {"pairs_examined", out.pairs_examined},
          {"pairs_counted", counted},
          {"seconds", out.seconds},
          {"bapps", out.seconds > 0 ? out.pairs_examined / out.seconds * 1e-9 : 0.0},
          {"scheduler", out.scheduler},
          {"cpu_workers", out.cpu_workers},
          {"cpu_kernels",
           a.cpu_kernels.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.cpu_kernels)},
          {"cuda_workers", out.cuda_workers},
          {"tasks", out.tasks},
          {"frames_in_flight", out.frames_in_flight},
          {"decode_threads", out.decode_threads},
          {"prepare_seconds_per_frame", out.prepare_seconds},
          {"decode_seconds_per_frame", out.decode_seconds_per_frame},
          {"decode_window_wait_seconds", out.decode_window_wait_seconds},
          {"decode_caller_wait_seconds", out.decode_caller_wait_seconds},
          {"decode_caller_promotions", out.decode_caller_promotions},
          {"decode_lock_wait_seconds", out.decode_lock_wait_seconds},
          {"estimated_gpu_seconds_per_frame", out.gpu_seconds},
          {"feed_bound", out.feed_bound},
          {"feeding_plan", feeding_plan_json(out)},
          {"before_first_frame_seconds", out.before_first_frame_seconds},
          {"topology_seconds", out.topology_seconds},
          {"define_seconds", out.define_seconds},
          {"first_frame_seconds", out.first_frame_seconds},
          {"engine_start_seconds", out.engine_start_seconds},
          {"gpu_wait_seconds", out.gpu_wait_seconds},
          {"start_marks_seconds",
           {{"pipeline", out.start_marks.pipeline},
            {"trajectory_open", out.start_marks.trajectory_open},
            {"topology_loaded", out.start_marks.topology_loaded},
            {"gpus_ready", out.start_marks.gpus_ready},
            {"run_defined", out.start_marks.run_defined},
            {"counting", out.start_marks.counting},
            {"engine_started", out.start_marks.engine_started}}},
          {"end_marks_seconds",
           {{"finished", out.end_marks.finished},
            {"engine_released", out.end_marks.engine_released},
            {"released", out.end_marks.released},
            {"outputs_written", out.end_marks.outputs_written}}},
          {"frame_bytes", out.frame_bytes},
          {"feeding", feeding_json(a)},
          {"makespan_seconds", a.makespan_seconds},
          {"tail_idle_seconds", a.tail_idle_seconds},
          {"first_task_start_seconds", first_task},
          {"lp_bound_seconds",
           a.lp_bound_seconds > 0 ? nlohmann::json(a.lp_bound_seconds) : nlohmann::json(nullptr)},
          {"lp_bound_reason",
           a.lp_bound_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.lp_bound_reason)},
          {"lp_task_kinds",
           {{"total", a.lp_task_kinds},
            {"uncalibrated", a.lp_kinds_uncalibrated},
            {"partly_calibrated", a.lp_kinds_partly_calibrated}}},
          {"lp_bound_measured_seconds", a.lp_bound_measured_seconds > 0
                                            ? nlohmann::json(a.lp_bound_measured_seconds)
                                            : nlohmann::json(nullptr)},
          {"lp_bound_measured_reason", a.lp_bound_measured_reason.empty()
                                           ? nlohmann::json(nullptr)
                                           : nlohmann::json(a.lp_bound_measured_reason)},
          {"lp_measured_kinds", a.lp_measured_kinds},
          {"lp_measured_estimated_kinds", a.lp_measured_estimated_kinds},
          {"cpu_share", out.cpu_workers > 0 && out.cuda_workers > 0
                            ? nlohmann::json{{"fraction", a.cpu_share},
                                             {"measured", a.cpu_share_measured},
                                             {"cpu_pairs_per_second", a.measured_cpu_rate},
                                             {"gpu_pairs_per_second", a.measured_gpu_rate},
                                             {"gpu_ran_cpu_sized_fraction", a.gpu_ran_cpu_sized}}
                            : nlohmann::json(nullptr)},
          {"implementations",
           {{"cpu", {{"tasks", a.tasks_cpu}, {"pairs", a.pairs_cpu}}},
            {"cuda_shared", {{"tasks", a.tasks_cuda_shared}, {"pairs", a.pairs_cuda_shared}}},
            {"cuda_global", {{"tasks", a.tasks_cuda_global}, {"pairs", a.pairs_cuda_global}}},
            {"cpu_cell_list", {{"tasks", a.tasks_cell_cpu}, {"candidates", a.pairs_cell_cpu}}},
            {"cuda_cell_list", {{"tasks", a.tasks_cell_cuda}, {"candidates", a.pairs_cell_cuda}}}}},
          {"pair_algorithms", pair_algorithms_json(out)},
          {"cell_grid",
           a.cell_reach > 0
               ? nlohmann::json{{"cells", {a.cell_grid[0], a.cell_grid[1], a.cell_grid[2]}},
                                {"reach", a.cell_reach},
                                {"order", a.cell_order},
                                {"search_radius_nm", a.cell_cut}}
               : nlohmann::json(nullptr)},
          {"workers", workers},
          {"ranks", ranks_json(out)}};
}

}  // namespace pairhist
