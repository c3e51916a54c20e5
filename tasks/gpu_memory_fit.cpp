#include "tasks/gpu_memory_fit.hpp"

#include <algorithm>
#include <cstdio>

namespace pairhist {
namespace {

// Room for what StarPU allocates besides the frames (REDUX contributions, the bus model's
// buffers) and for the rounding of its 16 KiB blocks.
constexpr double kMargin = 1.05;

uint64_t capacity(const GpuMemory& g) {
  uint64_t c = g.starpu_bytes >= 0 ? static_cast<uint64_t>(g.starpu_bytes) : UINT64_MAX;
  if (g.free_bytes > 0) c = std::min(c, g.free_bytes);
  return c;
}

uint64_t need(uint64_t frame_bytes, int tasks) {
  return static_cast<uint64_t>(
      kMargin *
      static_cast<double>(kStarpuChunkBytes + frame_bytes * static_cast<uint64_t>(tasks)));
}

std::string where_from(const GpuMemory& g) {
  const bool starpu_binds =
      g.starpu_bytes >= 0 &&
      (g.free_bytes == 0 || static_cast<uint64_t>(g.starpu_bytes) <= g.free_bytes);
  if (!starpu_binds) return "free";
  return g.limit_from_env ? "allowed by STARPU_LIMIT_CUDA_MEM" : "for StarPU";
}

}  // namespace

std::string mebibytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

GpuFit fit_gpus(const std::vector<GpuMemory>& gpus, uint64_t frame_bytes, int pipeline) {
  GpuFit fit;
  std::vector<int> full, single;
  const GpuMemory* worst = nullptr;
  uint64_t worst_need = 0;
  for (const GpuMemory& g : gpus) {
    const int tasks = std::max(1, g.workers) * std::max(1, pipeline);
    const uint64_t wanted = need(frame_bytes, tasks);
    if (capacity(g) >= wanted) {
      full.push_back(g.device);
      continue;
    }
    if (capacity(g) >= need(frame_bytes, 1)) single.push_back(g.device);
    if (!worst || capacity(g) < capacity(*worst)) worst = &g, worst_need = wanted;
  }
  if (!worst) return fit;  // every GPU holds what it needs
  fit.changed = true;
  fit.shortfall = "GPU " + std::to_string(worst->device) + " has " + mebibytes(capacity(*worst)) +
                  " " + where_from(*worst) + ", its tasks need " + mebibytes(worst_need) + " (a " +
                  mebibytes(kStarpuChunkBytes) + " StarPU chunk and " + mebibytes(frame_bytes) +
                  " per frame held)";
  if (!full.empty()) {
    fit.devices = full;
    fit.note = fit.shortfall + ": counting on the other GPUs";
  } else if (!single.empty()) {
    fit.devices = single;
    fit.one_task_per_gpu = true;
    fit.note = fit.shortfall + ": one task at a time on each GPU";
  } else {
    fit.note = fit.shortfall + ": counting on the CPU cores";
  }
  return fit;
}

}  // namespace pairhist
