// The CUDA devices outside the tasks (cuda_devices.hpp): counting them, their free memory,
// loading the cell-list kernels ahead, pinning host memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "codelets/starpu/cuda_devices.hpp"

namespace pairhist::codelets {

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

uint64_t cuda_free_memory(int device) {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) return 0;
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) free = 0;
  cudaSetDevice(current);
  return free;
}

namespace {

/// Loads the cell-list kernels into the devices' contexts on a thread of its own, which nobody
/// waits for but the process's end: a run that counts with cell lists finds them loaded (or
/// waits at its first launch for the rest, as it would have anyway), one that does not lost
/// nothing (the bundled sample's run waited ~30 ms more for them on the H100 host).
class KernelLoader {
 public:
  void start(std::vector<int> devices, bool double_precision) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!threads_.empty()) return;
    // A thread per device: the devices' modules load independently of each other.
    for (int d : devices)
      threads_.emplace_back([d, double_precision] {
        // A kernel that cannot load now fails at its launch, which reports it with the frame.
        if (cudaSetDevice(d) != cudaSuccess ||
            (double_precision ? cuda::load_cell_kernels<double>()
                              : cuda::load_cell_kernels<float>()) != cudaSuccess)
          cudaGetLastError();
      });
  }
  // A static object made after the CUDA runtime's: it goes before the runtime does.
  ~KernelLoader() {
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

}  // namespace

void warm_up_cuda(int devices, bool double_precision) {
  const int n = cuda_device_count();
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  // Each device's primary context made on a thread of its own: the contexts are independent,
  // and StarPU's workers of a 4-GPU node wait for all of them.
  const int count = devices < 0 ? n : std::min(n, devices);
  std::vector<char> made(static_cast<size_t>(std::max(count, 0)), 0);
  std::vector<std::thread> makers;
  for (int d = 0; d < count; ++d)
    makers.emplace_back([d, &made] {
      made[static_cast<size_t>(d)] =
          cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
    });
  for (std::thread& t : makers) t.join();
  std::vector<int> ready;
  for (int d = 0; d < count; ++d)
    if (made[static_cast<size_t>(d)]) ready.push_back(d);
  cudaSetDevice(current);
  static KernelLoader loader;
  loader.start(std::move(ready), double_precision);
}

bool cuda_pin_host(void* p, size_t bytes) {
  if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess) return true;
  cudaGetLastError();  // the memory stays usable unpinned; no later check may trip on this
  return false;
}

void cuda_unpin_host(void* p, size_t) {
  // Memory allocated before the hooks were installed, or whose pinning failed, is not registered.
  if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

bool cuda_counts_in_windows(int nbins) {
  return cuda_device_count() > 0 && cuda::counts_in_windows(0, nbins);
}

}  // namespace pairhist::codelets
