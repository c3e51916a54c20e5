// How a node's cores are split between preparing frames (decoding, gathering the species) and
// StarPU's CPU workers, and how many frames the engine holds, for every configuration (issue 24).
// With all pairs the GPUs need tens of milliseconds per frame and a few decoding threads keep them
// fed; with cell lists an 11M-atom frame costs four H200s ~8 ms while decoding it costs a core
// ~0.18 s, so the run is fed only if most cores decode, and a CPU worker (which must sort the
// whole frame into cells before its first task of that frame) would hold a frame for a quarter of
// a second to count a share of a percent. No StarPU here: the rule is unit-tested
// (test_feeding_plan).
#pragma once

#include <cstdint>
#include <string>

namespace pairhist {

struct FeedingInputs {
  int cores = 1;               // hardware threads of the node
  int gpus = 0;                // GPUs the engine will use
  double prepare_seconds = 0;  // core-seconds to prepare one frame (measured on the readers)
  double gpu_seconds = 0;      // seconds the GPUs together need per frame (the engine's cost model)
  double core_seconds = 0;     // seconds one core needs per frame (the same model, core rates)
  // The longest a core's first task of a frame can last: the hybrid decomposition's tail budget
  // (kTailBudgetSeconds), plus for cell lists sorting the frame's species into cells, which every
  // worker repeats once per frame. A core holds the frame's buffers that long.
  double core_task_seconds = 0;
  int reader_threads = 1;           // preparing threads the reader runs now
  int max_reader_threads = 1;       // preparing threads the reader can run (its memory bound)
  bool reader_threads_set = false;  // the user chose them (--decode-threads): kept as they are
  int requested_cpu_workers = -1;   // --ncpu; -1: planned
  // Whether the feeding thread copies every frame into the engine's buffers (and needs a core);
  // a frame handed over costs it ~0.05 ms (W1 1.36M atoms, H100 host), and its core decodes too.
  bool feeding_thread_copies = true;
  uint64_t frame_bytes = 0;           // one frame's coordinates as the engine holds them
  uint64_t default_budget_bytes = 0;  // the engine's default memory budget for frames
  uint64_t host_memory_bytes = 0;     // physical memory of the node (0: unknown)
  bool frames_in_flight_set = false;  // the user chose them (--frames-in-flight, --memory-budget)
};

/// Why the plan gives the CPU workers it gives.
enum class CoresChoice {
  no_gpus,         // the cores count (StarPU's default), the reader as it started
  not_measured,    // no rate to plan with: the engine's defaults
  user_workers,    // --ncpu: the user's workers, the other cores decode as needed
  tasks_too_long,  // a core's task would hold a frame longer than the GPUs need for several
  cores_decode,    // cores pay, but the readers need every free core
  cores_count,     // the readers keep pace with fewer cores; the others count
};

struct FeedingPlan {
  int reader_threads = 1;    // preparing threads to run
  int cpu_workers = -1;      // StarPU CPU workers beside the GPUs; -1: the engine's default
  int frames_in_flight = 0;  // frames the engine holds; 0: its memory budget decides
  bool feed_bound = false;   // the counting would outrun the starting readers
  CoresChoice cores = CoresChoice::no_gpus;
};

/// Threads prepare frames at kFeedMargin times the counting pace, so that the readers' jitter
/// does not idle the GPUs.
constexpr double kFeedMargin = 1.25;
/// A core's task may hold its frame for at most this many frames of the GPUs' time: then the
/// ring's other frames keep the GPUs busy meanwhile, and the last frame's task ends at most that
/// much after the GPUs finish. F1-like on one H100 (30 ms tiles, ~28 ms of GPU work per frame)
/// passes, and measured faster with its 10 CPU workers (4.51 s against 5.08 s, performance.md);
/// cell lists, whose core tasks first sort the frame (W1 1.4M atoms: ~27 ms + 30 ms against
/// 2.1 ms), do not.
constexpr double kMaxCoreTaskFrames = 2.0;
/// CPU workers beside GPUs at most: every worker pops from the scheduler's shared queue; on the
/// 4x H200 host 55 CPU workers cost the GPUs 7-26% of their throughput, 16 cost nothing.
constexpr int kMaxCpuWorkersBesideGpus = 16;
/// Frames in flight with GPUs: two being counted or sent per GPU (each GPU holds a copy of the
/// frame it counts; the next one's transfer overlaps the counting), and two more for the frame
/// being filled and the readers' jitter.
constexpr int kFramesPerGpu = 2;
constexpr int kSpareFrames = 2;
/// Pinned frame buffers take at most this part of the node's memory.
constexpr double kPinnedMemoryFraction = 1.0 / 16;
constexpr int kMinFramesInFlight = 2;
constexpr int kMaxFramesInFlight = 64;

/// The plan:
/// - Without GPUs, or with nothing measured: the reader as it is, default workers and frames.
/// - CPU workers: the user's (--ncpu), else none when core_task_seconds exceeds
///   kMaxCoreTaskFrames x gpu_seconds, else the free cores the readers leave (at most
///   kMaxCpuWorkersBesideGpus).
/// - Readers (unless the user chose them): enough to prepare frames kFeedMargin times as fast as
///   the GPUs and the CPU workers count them; when that is more than run now and no core counts,
///   every free core (the first frame's time was measured on few threads, and many threads
///   contend: a core has nothing better to do). Free cores: the node's, less the feeding thread
///   (if it copies), one driver thread per GPU and the CPU workers; never fewer than run now.
/// - Frames in flight (unless the user chose them): the default budget's, or kFramesPerGpu per
///   GPU plus kSpareFrames if more, within kPinnedMemoryFraction of the node's memory.
FeedingPlan plan_feeding(const FeedingInputs& in);

/// One line for the run summary: what the plan gives and why, e.g. "60 decoding threads, no CPU
/// workers: the GPUs count a frame in 8.0 ms, a core's first task of it takes 0.25 s".
std::string describe_feeding(const FeedingInputs& in, const FeedingPlan& plan);
const char* cores_choice_name(CoresChoice c);  // e.g. "tasks_too_long" (the --report JSON)

}  // namespace pairhist
