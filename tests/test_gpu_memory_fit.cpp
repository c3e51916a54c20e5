// Which GPUs the engine keeps for their memory (tasks/gpu_memory_fit.hpp): the figures are the
// ones measured on the H100, where STARPU_LIMIT_CUDA_MEM 24 and 32 hung a 6.9 MB frame and 48
// did not (docs/reliability.md).
#include <doctest/doctest.h>

#include "tasks/gpu_memory_fit.hpp"

using namespace pairhist;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

GpuMemory gpu(int device, uint64_t starpu_mib, uint64_t free_mib = 0, int workers = 2) {
  GpuMemory g;
  g.device = device;
  g.workers = workers;
  g.starpu_bytes = static_cast<int64_t>(starpu_mib * MiB);
  g.free_bytes = free_mib * MiB;
  g.limit_from_env = true;
  return g;
}

}  // namespace

TEST_CASE("a GPU with room for a chunk and every task's frame is kept as it is") {
  const GpuFit fit = fit_gpus({gpu(0, 81000), gpu(1, 81000)}, 16 * MiB, 2);
  CHECK_FALSE(fit.changed);
  CHECK(fit.note.empty());
}

TEST_CASE("a GPU below StarPU's 32 MiB chunk cannot run anything: the cores count") {
  for (uint64_t mib : {4, 24, 32}) {
    const GpuFit fit = fit_gpus({gpu(0, mib)}, 6900000, 2);
    CHECK(fit.changed);
    CHECK(fit.devices.empty());
    CHECK_FALSE(fit.one_task_per_gpu);
    CHECK(fit.note.find("GPU 0 has " + std::to_string(mib) +
                        ".0 MiB allowed by "
                        "STARPU_LIMIT_CUDA_MEM") == 0);
    CHECK(fit.note.find("counting on the CPU cores") != std::string::npos);
  }
}

TEST_CASE("room for one frame beside the chunk: one task at a time") {
  // 4 tasks at once (2 workers x pipeline 2) need 32 + 4 x 6.6 MiB; one needs 32 + 6.6.
  const GpuFit fit = fit_gpus({gpu(0, 48)}, 6900000, 2);
  CHECK(fit.changed);
  REQUIRE(fit.devices.size() == 1);
  CHECK(fit.devices[0] == 0);
  CHECK(fit.one_task_per_gpu);
  CHECK(fit.note.find("one task at a time") != std::string::npos);
  // Pipeline 0 and one worker: the one task fits as it is.
  CHECK_FALSE(fit_gpus({gpu(0, 48, 0, 1)}, 6900000, 0).changed);
}

TEST_CASE("a GPU that cannot hold its tasks is left out, the others count") {
  const GpuFit fit = fit_gpus({gpu(0, 81000), gpu(1, 16), gpu(2, 81000)}, 16 * MiB, 2);
  CHECK(fit.changed);
  CHECK(fit.devices == std::vector<int>{0, 2});
  CHECK_FALSE(fit.one_task_per_gpu);
  CHECK(fit.note.find("GPU 1 has 16.0 MiB") == 0);
  CHECK(fit.note.find("counting on the other GPUs") != std::string::npos);
}

TEST_CASE("free device memory binds when it is below StarPU's figure") {
  GpuMemory g = gpu(0, 81000, 20);
  g.limit_from_env = false;
  const GpuFit fit = fit_gpus({g}, 16 * MiB, 2);
  CHECK(fit.devices.empty());
  CHECK(fit.note.find("GPU 0 has 20.0 MiB free") == 0);
  // Unknown figures do not leave a GPU out.
  GpuMemory unknown;
  CHECK_FALSE(fit_gpus({unknown}, 16 * MiB, 2).changed);
}
