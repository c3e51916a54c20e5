// The feeding plan (issue 24): the split of a node's cores between preparing frames and StarPU's
// CPU workers, and the frames in flight, for the configurations measured in the issue. Each case
// also checks what a wrong rule would give (the plan before issue 24, or a neighbouring input
// that flips the decision), so that the assertions can fail.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "tasks/feeding_plan.hpp"

using namespace pairhist;

namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;
constexpr uint64_t kMiB = uint64_t(1) << 20;

/// W1 (water, cell lists, r_max 1.5 nm) replicated to 11.2M atoms: a 134 MB frame, ~0.18
/// core-seconds to decode; four H200s count it in ~8 ms, a core in ~5.6 s, and a core's first
/// cell-list task of a frame sorts its 11.2M points (~0.22 s) before its 30 ms of candidates.
FeedingInputs w1_11m(int cores, int gpus, uint64_t host_memory) {
  FeedingInputs in;
  in.cores = cores;
  in.gpus = gpus;
  in.prepare_seconds = 0.18;
  in.gpu_seconds = 0.032 / gpus;
  in.core_seconds = 5.6;
  in.core_task_seconds = 0.254;
  in.reader_threads = cores >= 16 ? 4 : cores / 4;  // io::automatic_decode_threads
  in.max_reader_threads = cores - 1;                // the reader's pool on a node with memory
  in.feeding_thread_copies = false;                 // single precision: handed over
  in.frame_bytes = 11200000ull * 12;
  in.default_budget_bytes = 64 * kMiB;
  in.host_memory_bytes = host_memory;
  return in;
}

/// W1 at 1,357,824 atoms: ~30 ms to prepare, ~2.1 ms on an H100; a core's first task sorts the
/// frame (~27 ms) before its 30 ms of candidates.
FeedingInputs w1_1m(int cores, int gpus) {
  FeedingInputs in = w1_11m(cores, gpus, 128 * kGiB);
  in.prepare_seconds = 0.030;
  in.gpu_seconds = 0.0021 / gpus;
  in.core_seconds = 4.2;
  in.core_task_seconds = 0.057;
  in.frame_bytes = 1357824ull * 12;
  return in;
}

/// F1-like (CADISHI): 280,000 atoms in 9 species, all pairs, no box: ~6 ms to decode, ~28 ms on
/// an H100, ~43 s on a core, whose hybrid tiles end within 30 ms.
FeedingInputs f1(int cores, int gpus) {
  FeedingInputs in;
  in.cores = cores;
  in.gpus = gpus;
  in.prepare_seconds = 0.006;
  in.gpu_seconds = 0.028 / gpus;
  in.core_seconds = 43;
  in.core_task_seconds = 0.030;
  in.reader_threads = 4;
  in.max_reader_threads = 14;
  in.feeding_thread_copies = false;
  in.frame_bytes = 280000ull * 12;
  in.default_budget_bytes = 64 * kMiB;
  in.host_memory_bytes = 128 * kGiB;
  return in;
}

bool says(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("64 cores and 4 GPUs, 11.2M-atom cell-list frames: every core decodes, none counts") {
  const FeedingInputs in = w1_11m(64, 4, 512 * kGiB);
  const FeedingPlan p = plan_feeding(in);
  CHECK(p.cores == CoresChoice::tasks_too_long);
  CHECK(p.cpu_workers == 0);
  CHECK(p.reader_threads == 60);  // 64 cores - 4 GPU drivers (the frames are handed over)
  CHECK(p.feed_bound);
  CHECK(p.frames_in_flight == 10);  // 2 per GPU + 2, 1.3 GB of 512 GB
  const std::string why = describe_feeding(in, p);
  CHECK(says(why, "60 decoding threads, no CPU workers"));
  CHECK(says(why, "the GPUs count a frame in 8.0 ms"));
  CHECK(says(why, "takes 254.0 ms"));
  CHECK(says(why, "10 frames in flight"));

  // With a reader pool of 7 threads (the 2 GiB bound before issue 24), the rule decodes on every
  // core the pool has, whatever the pool (the plan before issue 24 gave the cores to 53 CPU
  // workers: the run the issue measured at 16.9 s).
  FeedingInputs capped = in;
  capped.max_reader_threads = 7;
  CHECK(plan_feeding(capped).reader_threads == 7);
  CHECK(plan_feeding(capped).cpu_workers == 0);
}

TEST_CASE("frames in flight follow the GPUs within the node's memory") {
  FeedingInputs in = w1_11m(64, 4, 512 * kGiB);
  in.host_memory_bytes = 16 * kGiB;  // 1 GiB pinned at most: 7 frames of 134 MB
  CHECK(plan_feeding(in).frames_in_flight == 7);
  in.host_memory_bytes = 0;  // unknown: the default budget's, at least 2
  CHECK(plan_feeding(in).frames_in_flight == 2);
  in = w1_11m(64, 1, 512 * kGiB);
  CHECK(plan_feeding(in).frames_in_flight == 4);
  // Small frames keep what the 64 MiB budget gives (F1-like: 19 frames of 3.4 MB).
  CHECK(plan_feeding(f1(16, 1)).frames_in_flight == 19);
  // The user's --frames-in-flight or --memory-budget stands.
  in.frames_in_flight_set = true;
  CHECK(plan_feeding(in).frames_in_flight == 0);
}

TEST_CASE("16 cores and 1 GPU, W1 at 1.4M and 11M atoms: no CPU worker, the cores decode") {
  for (const FeedingInputs& in : {w1_1m(16, 1), w1_11m(16, 1, 128 * kGiB)}) {
    const FeedingPlan p = plan_feeding(in);
    CHECK(p.cores == CoresChoice::tasks_too_long);
    CHECK(p.cpu_workers == 0);
    CHECK(p.reader_threads == 15);  // 16 cores - the GPU's driver
    CHECK(p.feed_bound);
  }
  // A feeding thread that copies frames keeps its core.
  FeedingInputs copying = w1_1m(16, 1);
  copying.feeding_thread_copies = true;
  CHECK(plan_feeding(copying).reader_threads == 14);
  // Were a core's first task as short as the GPU's frame, the cores the readers leave would
  // count: the decision hangs on the task length, not on the algorithm's name.
  FeedingInputs short_tasks = w1_1m(16, 1);
  short_tasks.prepare_seconds = 0.002;
  short_tasks.core_task_seconds = 0.002;
  const FeedingPlan counting = plan_feeding(short_tasks);
  CHECK(counting.cores == CoresChoice::cores_count);
  CHECK(counting.cpu_workers == 10);  // 16 - feeding thread - driver - 4 readers
}

TEST_CASE("2 cores, no GPU: the reader as it started, the cores count") {
  FeedingInputs in;
  in.cores = 2;
  in.gpus = 0;
  in.prepare_seconds = 0.03;
  in.core_seconds = 4.2;
  in.core_task_seconds = 0.1;
  in.reader_threads = 1;
  in.max_reader_threads = 1;
  in.frame_bytes = 2652 * 12;
  in.default_budget_bytes = 64 * kMiB;
  in.host_memory_bytes = 8 * kGiB;
  const FeedingPlan p = plan_feeding(in);
  CHECK(p.cores == CoresChoice::no_gpus);
  CHECK(p.reader_threads == 1);
  CHECK(p.cpu_workers == -1);
  CHECK(p.frames_in_flight == 0);
  CHECK_FALSE(p.feed_bound);
  CHECK(says(describe_feeding(in, p), "1 decoding thread, the cores count (no GPU)"));
  in.gpus = 1;  // the same node with a GPU plans
  CHECK(plan_feeding(in).cores != CoresChoice::no_gpus);
}

TEST_CASE("F1-like all pairs on 16 cores and 1 GPU: the CPU workers stay") {
  const FeedingInputs in = f1(16, 1);
  const FeedingPlan p = plan_feeding(in);
  CHECK(p.cores == CoresChoice::cores_count);
  CHECK(p.reader_threads == 4);  // the starting readers keep pace
  CHECK_FALSE(p.feed_bound);
  CHECK(p.cpu_workers == 10);  // as measured faster: 10 CPU + 2 CUDA workers, 4.51 s vs 5.08 s
  CHECK(says(describe_feeding(in, p), "10 CPU workers (a core's task takes 30.0 ms)"));
  // On four GPUs a 30 ms tile outlasts four frames of theirs: no CPU worker.
  const FeedingPlan four = plan_feeding(f1(64, 4));
  CHECK(four.cores == CoresChoice::tasks_too_long);
  CHECK(four.cpu_workers == 0);
  CHECK(four.reader_threads == 4);  // not feed-bound: the readers stay
  // Never more CPU workers than kMaxCpuWorkersBesideGpus.
  FeedingInputs big = f1(64, 1);
  big.max_reader_threads = 63;
  CHECK(plan_feeding(big).cpu_workers == kMaxCpuWorkersBesideGpus);
}

TEST_CASE("--ncpu 0: the freed cores decode") {
  FeedingInputs in = w1_11m(64, 4, 512 * kGiB);
  in.requested_cpu_workers = 0;
  FeedingPlan p = plan_feeding(in);
  CHECK(p.cores == CoresChoice::user_workers);
  CHECK(p.cpu_workers == 0);
  CHECK(p.reader_threads == 60);  // the run got 4
  CHECK(says(describe_feeding(in, p), "no CPU workers (--ncpu)"));
  // 1.4M atoms on 4 GPUs: the 200-frame run got 4 threads and took 1.69 s against
  // 0.818 s with 60.
  in = w1_1m(64, 4);
  in.requested_cpu_workers = 0;
  CHECK(plan_feeding(in).reader_threads == 60);
  // Not feed-bound (F1-like): the readers stay as they are.
  in = f1(16, 1);
  in.requested_cpu_workers = 0;
  p = plan_feeding(in);
  CHECK(p.reader_threads == 4);
  CHECK(p.cpu_workers == 0);
  CHECK_FALSE(p.feed_bound);
}

TEST_CASE("--ncpu N beside GPUs: the user's workers, readers to keep pace in the cores left") {
  FeedingInputs in = w1_11m(64, 4, 512 * kGiB);
  in.requested_cpu_workers = 8;
  const FeedingPlan p = plan_feeding(in);
  CHECK(p.cpu_workers == 8);
  // ceil(1.25 x 0.18 s x (125 + 8 / 5.6) frames/s) = 29 of the 52 cores the workers leave.
  CHECK(p.reader_threads == 29);
  in.requested_cpu_workers = 58;                // the workers leave two cores
  CHECK(plan_feeding(in).reader_threads == 4);  // never fewer than run now
  in.requested_cpu_workers = 50;
  CHECK(plan_feeding(in).reader_threads == 10);
}

TEST_CASE("--ncuda 1 on the 64-core node: the cores decode for the one GPU") {
  // 1.4M atoms, 10 frames: the defaults gave CPU workers that took cell-list tasks (0.317 s
  // against 0.102 s with --ncpu 0).
  const FeedingPlan p = plan_feeding(w1_1m(64, 1));
  CHECK(p.cpu_workers == 0);
  CHECK(p.reader_threads == 63);
}

TEST_CASE("--decode-threads N is kept, the CPU workers are planned around it") {
  // 16-core H100, 11.2M atoms, --decode-threads 15: no CPU worker beside them.
  FeedingInputs in = w1_11m(16, 1, 128 * kGiB);
  in.reader_threads = 15;
  in.max_reader_threads = 15;
  in.reader_threads_set = true;
  FeedingPlan p = plan_feeding(in);
  CHECK(p.reader_threads == 15);
  CHECK(p.cpu_workers == 0);
  CHECK(says(describe_feeding(in, p), "15 decoding threads (--decode-threads)"));
  // Two threads cannot keep pace: the plan says so and keeps them.
  in.reader_threads = 2;
  in.max_reader_threads = 2;
  p = plan_feeding(in);
  CHECK(p.reader_threads == 2);
  CHECK(p.feed_bound);
  CHECK(p.cpu_workers == 0);
  // F1-like with --decode-threads 2: the cores the readers leave count.
  in = f1(16, 1);
  in.reader_threads = 2;
  in.max_reader_threads = 2;
  in.reader_threads_set = true;
  p = plan_feeding(in);
  CHECK(p.reader_threads == 2);
  CHECK(p.cpu_workers == 12);  // 16 - feeding thread - driver - 2 readers
}

TEST_CASE("nothing measured: the reader as it is, the engine's workers") {
  FeedingInputs in = w1_11m(64, 4, 512 * kGiB);
  in.prepare_seconds = 0;
  FeedingPlan p = plan_feeding(in);
  CHECK(p.cores == CoresChoice::not_measured);
  CHECK(p.reader_threads == 4);
  CHECK(p.cpu_workers == -1);
  CHECK(p.frames_in_flight == 10);  // frames do not depend on rates
  in = w1_11m(64, 4, 512 * kGiB);
  in.gpu_seconds = 0;
  CHECK(plan_feeding(in).cores == CoresChoice::not_measured);
  CHECK(says(describe_feeding(in, plan_feeding(in)), "no rate to plan with"));
}
