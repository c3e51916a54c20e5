// The split of a node's cores between preparing frames and StarPU's CPU workers.
#include <doctest/doctest.h>

#include "tasks/feeding_plan.hpp"

using namespace pairhist;

namespace {

FeedingInputs h100_host(double prepare_ms, double gpu_ms) {
  FeedingInputs in;
  in.cores = 16;
  in.gpus = 1;
  in.prepare_seconds = prepare_ms * 1e-3;
  in.gpu_seconds = gpu_ms * 1e-3;
  in.reader_threads = 4;
  in.max_reader_threads = 14;
  return in;
}

}  // namespace

TEST_CASE("all pairs on a GPU: the starting readers keep pace, the default workers stay") {
  // F1-like: 280,000 atoms, ~6 ms to decode, ~28 ms of GPU work per frame.
  const FeedingPlan p = plan_feeding(h100_host(6, 28));
  CHECK(p.reader_threads == 4);
  CHECK(p.cpu_workers == -1);
  CHECK_FALSE(p.feed_bound);
}

TEST_CASE("cell lists on a GPU: every core reads, no CPU worker takes one") {
  // W1 at 1.36M atoms: ~30 ms to prepare, ~2.1 ms of GPU work per frame.
  const FeedingPlan p = plan_feeding(h100_host(30, 2.1));
  CHECK(p.feed_bound);
  CHECK(p.reader_threads == 14);  // 16 cores - the feeding thread - the GPU's driver
  CHECK(p.cpu_workers == 0);
  // Frames handed over to the engine: the feeding thread's core decodes too (the reader can
  // run up to cores - 1 threads).
  FeedingInputs handed = h100_host(30, 2.1);
  handed.max_reader_threads = 15;
  handed.feeding_thread_copies = false;
  CHECK(plan_feeding(handed).reader_threads == 15);  // 16 cores - the GPU's driver
  CHECK(plan_feeding(handed).cpu_workers == 0);
  handed.feeding_thread_copies = true;
  CHECK(plan_feeding(handed).reader_threads == 14);
  // The memory bound of the reader caps its threads.
  FeedingInputs small = h100_host(30, 2.1);
  small.max_reader_threads = 8;
  CHECK(plan_feeding(small).reader_threads == 8);
  CHECK(plan_feeding(small).cpu_workers == 0);
}

TEST_CASE("between: enough readers to keep pace, the other cores count") {
  // 10 ms to prepare, 2 ms of GPU work: ceil(1.25 * 5) = 7 readers, 14 - 7 CPU workers.
  const FeedingPlan p = plan_feeding(h100_host(10, 2));
  CHECK(p.feed_bound);
  CHECK(p.reader_threads == 7);
  CHECK(p.cpu_workers == 7);
}

TEST_CASE("no GPU, or nothing measured: the reader as it is") {
  FeedingInputs in = h100_host(30, 2);
  in.gpus = 0;
  CHECK(plan_feeding(in).reader_threads == 4);
  CHECK(plan_feeding(in).cpu_workers == -1);
  in = h100_host(0, 2);
  CHECK_FALSE(plan_feeding(in).feed_bound);
  in = h100_host(30, 0);
  CHECK_FALSE(plan_feeding(in).feed_bound);
  // Never fewer readers than run now, even on a node with few free cores.
  in = h100_host(30, 2);
  in.cores = 4;
  in.gpus = 2;
  const FeedingPlan p = plan_feeding(in);
  CHECK(p.reader_threads == 4);
  CHECK(p.cpu_workers == 0);
}
