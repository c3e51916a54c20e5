// Which GPUs can hold what the engine's tasks need there. StarPU 1.3 retries a task whose data it
// cannot allocate on its GPU forever, so a GPU with too little memory (STARPU_LIMIT_CUDA_MEM, a
// frame larger than the device, memory taken by other processes) hangs the run instead of failing
// it: the engine leaves such GPUs out before any task is submitted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pairhist {

/// StarPU carves every GPU allocation of at most 4 MiB (the histograms, small species) from
/// chunks of 32 MiB, each counted whole against the device's memory (datawizard/malloc.c).
constexpr uint64_t kStarpuChunkBytes = uint64_t(32) << 20;

/// One GPU as StarPU started it.
struct GpuMemory {
  int device = 0;
  int workers = 1;              // CUDA workers driving it (STARPU_NWORKER_PER_CUDA)
  int64_t starpu_bytes = -1;    // what StarPU may allocate there (its limit); -1: unknown
  uint64_t free_bytes = 0;      // free device memory (cudaMemGetInfo); 0: unknown
  bool limit_from_env = false;  // starpu_bytes comes from STARPU_LIMIT_CUDA[_n]_MEM
};

/// What to start StarPU with instead, when some GPU cannot hold its tasks' data.
struct GpuFit {
  bool changed = false;           // false: every GPU holds what it needs, keep StarPU as it is
  std::vector<int> devices;       // the GPUs to use (empty: none, count on the CPU cores)
  bool one_task_per_gpu = false;  // one worker per GPU, no pipeline: one task's data at a time
  std::string shortfall;          // which GPU, what it has, what its tasks need
  std::string note;               // shortfall + what is done instead: one line for the user
};

/// The decision for GPUs `gpus`, frames of `frame_bytes` (every species, in the engine's
/// precision) and `pipeline` tasks queued ahead per CUDA worker (STARPU_CUDA_PIPELINE). A GPU
/// needs a StarPU chunk plus the frame data of every task it may hold at once (workers x
/// pipeline; a task reads at most one frame); failing that, a chunk plus one frame with one task
/// at a time. The GPUs that hold the first are kept; if none does, those that hold the second run
/// one task at a time; otherwise none is used.
GpuFit fit_gpus(const std::vector<GpuMemory>& gpus, uint64_t frame_bytes, int pipeline);

/// Bytes as "6.9 MiB".
std::string mebibytes(uint64_t bytes);

}  // namespace pairhist
