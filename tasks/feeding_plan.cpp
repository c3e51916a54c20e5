#include "tasks/feeding_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pairhist {
namespace {

/// Cores left for preparing threads and CPU workers: the node's, less the feeding thread's when
/// it copies frames, and a driver thread per GPU.
int free_cores(const FeedingInputs& in, bool feeding_thread) {
  return std::max(in.cores - (feeding_thread ? 1 : 0) - in.gpus, 1);
}

/// Whether a CPU worker's task can end within a few frames of the GPUs' time (kMaxCoreTaskFrames).
bool core_tasks_short_enough(const FeedingInputs& in) {
  return in.core_task_seconds > 0 && in.core_task_seconds <= kMaxCoreTaskFrames * in.gpu_seconds;
}

/// Threads that prepare frames kFeedMargin times as fast as the GPUs and `workers` cores count.
int readers_to_keep_pace(const FeedingInputs& in, int workers) {
  double frames_per_second = 1.0 / in.gpu_seconds;
  if (workers > 0 && in.core_seconds > 0) frames_per_second += workers / in.core_seconds;
  return static_cast<int>(std::ceil(kFeedMargin * in.prepare_seconds * frames_per_second));
}

/// Frames in flight with GPUs, unless the user chose them (0 then, and with no frame size).
int planned_frames_in_flight(const FeedingInputs& in) {
  if (in.frames_in_flight_set || in.frame_bytes == 0) return 0;
  const uint64_t by_budget = std::clamp<uint64_t>(in.default_budget_bytes / in.frame_bytes,
                                                  kMinFramesInFlight, kMaxFramesInFlight);
  uint64_t wanted = static_cast<uint64_t>(kSpareFrames + kFramesPerGpu * in.gpus);
  const auto by_memory = static_cast<uint64_t>(static_cast<double>(in.host_memory_bytes) *
                                               kPinnedMemoryFraction / in.frame_bytes);
  wanted = std::min(wanted, by_memory);  // an unknown memory (0) adds nothing to the budget's
  return static_cast<int>(
      std::clamp<uint64_t>(std::max(by_budget, wanted), kMinFramesInFlight, kMaxFramesInFlight));
}

/// Readers and workers when the workers are given (the user's, or none): enough readers to keep
/// pace; every core the workers leave when no core counts (the first frame was timed on few
/// threads, and a core has nothing better to do).
void plan_around_workers(const FeedingInputs& in, int workers, int pool, FeedingPlan& plan) {
  plan.cpu_workers = workers;
  const int wanted = readers_to_keep_pace(in, workers);
  plan.feed_bound = wanted > plan.reader_threads;
  if (in.reader_threads_set || !plan.feed_bound) return;
  const int room = std::max(free_cores(in, in.feeding_thread_copies) - workers, 1);
  const int target = workers == 0 ? room : wanted;
  plan.reader_threads = std::max(plan.reader_threads, std::min({target, room, pool}));
}

/// Readers and workers when cores pay: readers to keep pace with the GPUs and the cores they
/// leave, the remaining cores (the feeding thread's excepted) count.
void plan_with_counting_cores(const FeedingInputs& in, int pool, FeedingPlan& plan) {
  const int free = free_cores(in, true);
  const int potential = std::clamp(free - plan.reader_threads, 0, kMaxCpuWorkersBesideGpus);
  const int wanted = readers_to_keep_pace(in, potential);
  plan.feed_bound = wanted > plan.reader_threads;
  if (!in.reader_threads_set)
    plan.reader_threads = std::max(plan.reader_threads, std::min({wanted, free, pool}));
  plan.cpu_workers = std::clamp(free - plan.reader_threads, 0, kMaxCpuWorkersBesideGpus);
  plan.cores = plan.cpu_workers > 0 ? CoresChoice::cores_count : CoresChoice::cores_decode;
}

std::string seconds_text(double s) {
  char text[32];
  if (s >= 1)
    std::snprintf(text, sizeof(text), "%.2f s", s);
  else
    std::snprintf(text, sizeof(text), "%.1f ms", s * 1e3);
  return text;
}

}  // namespace

FeedingPlan plan_feeding(const FeedingInputs& in) {
  FeedingPlan plan;
  plan.reader_threads = std::max(in.reader_threads, 1);
  if (in.gpus <= 0) return plan;  // CoresChoice::no_gpus
  plan.frames_in_flight = planned_frames_in_flight(in);
  plan.cores = CoresChoice::not_measured;
  if (!(in.gpu_seconds > 0) || !(in.prepare_seconds > 0)) return plan;
  const int pool = in.reader_threads_set ? plan.reader_threads
                                         : std::max(in.max_reader_threads, plan.reader_threads);
  if (in.requested_cpu_workers >= 0) {
    plan.cores = CoresChoice::user_workers;
    plan_around_workers(in, in.requested_cpu_workers, pool, plan);
  } else if (!core_tasks_short_enough(in)) {
    plan.cores = CoresChoice::tasks_too_long;
    plan_around_workers(in, 0, pool, plan);
  } else {
    plan_with_counting_cores(in, pool, plan);
  }
  return plan;
}

const char* cores_choice_name(CoresChoice c) {
  switch (c) {
    case CoresChoice::no_gpus:
      return "no_gpus";
    case CoresChoice::not_measured:
      return "not_measured";
    case CoresChoice::user_workers:
      return "user_workers";
    case CoresChoice::tasks_too_long:
      return "tasks_too_long";
    case CoresChoice::cores_decode:
      return "cores_decode";
    default:
      return "cores_count";
  }
}

std::string describe_feeding(const FeedingInputs& in, const FeedingPlan& plan) {
  std::string text = std::to_string(plan.reader_threads) +
                     (plan.reader_threads == 1 ? " decoding thread" : " decoding threads") +
                     (in.reader_threads_set ? " (--decode-threads)" : "");
  const std::string workers = plan.cpu_workers < 0 ? "the default CPU workers"
                              : plan.cpu_workers == 0
                                  ? "no CPU workers"
                                  : std::to_string(plan.cpu_workers) + " CPU workers";
  const std::string pace = "a thread prepares a frame in " + seconds_text(in.prepare_seconds) +
                           ", the GPUs count it in " + seconds_text(in.gpu_seconds);
  switch (plan.cores) {
    case CoresChoice::no_gpus:
      return text + ", the cores count (no GPU)";
    case CoresChoice::not_measured:
      text += ", the default CPU workers: no rate to plan with";
      break;
    case CoresChoice::user_workers:
      text += ", " + workers + " (--ncpu): " + pace;
      break;
    case CoresChoice::tasks_too_long:
      text += ", no CPU workers: the GPUs count a frame in " + seconds_text(in.gpu_seconds) +
              ", a core's first task of it takes " + seconds_text(in.core_task_seconds) +
              " (the whole frame " + seconds_text(in.core_seconds) + "); " +
              seconds_text(in.prepare_seconds) + " to prepare it";
      break;
    case CoresChoice::cores_decode:
      text += ", no CPU workers: decoding needs every free core (" + pace + ")";
      break;
    case CoresChoice::cores_count:
      text += ", " + workers + " (a core's task takes " + seconds_text(in.core_task_seconds) +
              "): " + pace;
      break;
  }
  if (plan.frames_in_flight > 0)
    text += "; " + std::to_string(plan.frames_in_flight) + " frames in flight";
  return text;
}

}  // namespace pairhist
