// Issue 24's probe of a CUDA worker's first tasks: PAIRHIST_CUDA_TASK_PROBE=N times the first N
// cell-list tasks of each CUDA worker in three phases (sorts enqueued on the host, the count's
// launch, the stream's work), to find where a worker's 0.3-0.8 s first task goes. It waits for
// the worker's stream at each probed task's end, so it is for diagnosis only; one stderr line a
// task.
#pragma once

#include <cuda_runtime.h>
#include <starpu.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pairhist/environment.hpp"

namespace pairhist::codelets {

class CudaTaskProbe {
 public:
  /// Starts probing the current worker's task when it is among its first N; else inactive.
  CudaTaskProbe() {
    static const int limit = [] {
      const char* text = env_get("PAIRHIST_CUDA_TASK_PROBE");
      return text && *text ? std::atoi(text) : 0;
    }();
    if (limit <= 0) return;
    worker_ = starpu_worker_get_id_check();
    static std::atomic<int> probed[STARPU_NMAXWORKERS];
    index_ = probed[worker_].fetch_add(1);
    if (index_ >= limit) return;
    active_ = true;
    entered_us_ = starpu_timing_now();
    const starpu_task* task = starpu_task_get_current();
    if (task && task->profiling_info) {
      starpu_profiling_task_info& info = *task->profiling_info;
      submitted_us_ = starpu_timing_timespec_to_us(&info.submit_time);
      acquiring_us_ = starpu_timing_timespec_to_us(&info.acquire_data_start_time);
      acquired_us_ = starpu_timing_timespec_to_us(&info.acquire_data_end_time);
    }
  }
  void sorted() {
    if (active_) sorted_us_ = starpu_timing_now();
  }
  void launched() {
    if (active_) launched_us_ = starpu_timing_now();
  }
  /// Waits for the stream and prints the task's phases (ms) and its start on the probe's clock
  /// (seconds since the first probed task of the process).
  void finish(cudaStream_t stream, uint64_t frame) {
    if (!active_) return;
    const cudaError_t err = cudaStreamSynchronize(stream);
    const double done_us = starpu_timing_now();
    static const double origin_us = entered_us_;
    std::fprintf(stderr,
                 "cuda task probe: worker %d device %d task %d frame %llu: at %.3f s, submitted "
                 "to acquiring data %.1f ms, acquiring %.1f ms, acquired to entry %.1f ms, sorts "
                 "enqueued %.1f ms, launch %.1f ms, stream %.1f "
                 "ms%s\n",
                 worker_, starpu_worker_get_devid(worker_), index_,
                 static_cast<unsigned long long>(frame), (entered_us_ - origin_us) * 1e-6,
                 (acquiring_us_ - submitted_us_) * 1e-3, (acquired_us_ - acquiring_us_) * 1e-3,
                 (entered_us_ - acquired_us_) * 1e-3, (sorted_us_ - entered_us_) * 1e-3,
                 (launched_us_ - sorted_us_) * 1e-3, (done_us - launched_us_) * 1e-3,
                 err == cudaSuccess ? "" : " (stream error)");
  }

 private:
  bool active_ = false;
  int worker_ = -1, index_ = 0;
  double submitted_us_ = 0, acquiring_us_ = 0, acquired_us_ = 0, entered_us_ = 0, sorted_us_ = 0,
         launched_us_ = 0;
};

}  // namespace pairhist::codelets
