// How a node's cores are split between preparing frames (decoding, gathering the species) and
// StarPU's CPU workers. With all pairs the GPUs need tens of milliseconds per frame and a few
// decoding threads keep them fed; with cell lists a 1.4M-atom frame costs an H100 ~2 ms while
// decoding it costs a core ~30 ms, so the run is fed only if most cores decode, and CPU workers
// (which spin while idle) would take those cores for a share of a percent. No StarPU here: the
// rule is unit-tested (test_feeding_plan).
#pragma once

namespace pairhist {

struct FeedingInputs {
  int cores = 1;               // hardware threads of the node
  int gpus = 0;                // GPUs the engine will use
  double prepare_seconds = 0;  // core-seconds to prepare one frame (measured on the readers)
  double gpu_seconds = 0;      // seconds the GPUs need per frame (the engine's cost model)
  int reader_threads = 1;      // preparing threads the reader runs now
  int max_reader_threads = 1;  // preparing threads the reader can run (its memory bound)
  // Whether the feeding thread copies every frame into the engine's buffers (and needs a core);
  // a frame handed over costs it ~0.05 ms (W1 1.36M atoms, H100 host), and its core decodes too.
  bool feeding_thread_copies = true;
};

struct FeedingPlan {
  int reader_threads = 1;   // preparing threads to run
  int cpu_workers = -1;     // StarPU CPU workers; -1: the engine's default
  bool feed_bound = false;  // the GPUs would outrun the reader at reader_threads
};

/// Threads prepare frames at kFeedMargin times the GPUs' pace, so that the readers' jitter does
/// not idle the GPUs.
constexpr double kFeedMargin = 1.25;

/// Without GPUs, or when reader_threads already keep pace: the reader as it is, default workers.
/// Otherwise as many preparing threads as keep pace, at most one per core left after the feeding
/// thread (if it copies frames) and one driver thread per GPU; the cores beyond them become CPU
/// workers (none when the readers need every core: the GPUs would wait for frames while the cores
/// counted).
FeedingPlan plan_feeding(const FeedingInputs& in);

}  // namespace pairhist
