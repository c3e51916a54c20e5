// What a CUDA codelet does when a launch fails (no device memory for its workspace, a broken
// device): it tells its engine (DeviceFaults), which ends the run with a clean error and keeps
// the intervals completed before the frame, instead of ending the process from inside StarPU.
// The test hook PAIRHIST_TEST_FAIL_CUDA_FRAME=N makes every CUDA task of the engine's frame N
// fail this way.
#pragma once

#include <cuda_runtime.h>
#include <starpu.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "codelets/starpu/device_faults.hpp"
#include "pairhist/environment.hpp"

namespace pairhist::codelets {

/// The frame PAIRHIST_TEST_FAIL_CUDA_FRAME names, -1 when unset.
inline int64_t injected_cuda_failure_frame() {
  static const int64_t frame = [] {
    const char* text = env_get("PAIRHIST_TEST_FAIL_CUDA_FRAME");
    return text && *text ? std::strtoll(text, nullptr, 10) : int64_t{-1};
  }();
  return frame;
}

/// cudaErrorMemoryAllocation for the tasks of the injected frame, else `err`.
template <class Args>
cudaError_t with_injected_failure(const Args& args, cudaError_t err) {
  const int64_t injected = injected_cuda_failure_frame();
  return injected >= 0 && args.frame == static_cast<uint64_t>(injected) ? cudaErrorMemoryAllocation
                                                                        : err;
}

/// Reports a failed launch of a task with `args` (its `frame` and `faults`); without an engine
/// to tell, as StarPU does.
template <class Args>
void fail_cuda_task(const Args& args, cudaError_t err, const char* what) {
  if (args.faults == nullptr) STARPU_CUDA_REPORT_ERROR(err);
  cudaGetLastError();  // clear a launch error that is not sticky, for the tasks after this one
  args.faults->record(
      args.frame, "GPU " + std::to_string(starpu_worker_get_devid(starpu_worker_get_id_check())) +
                      ": " + what + ": " + cudaGetErrorString(err));
}

}  // namespace pairhist::codelets
