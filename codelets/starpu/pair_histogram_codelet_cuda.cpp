// CUDA implementations of the StarPU codelets: unpack buffers and arguments, launch on the
// worker's own stream (STARPU_CUDA_ASYNC: StarPU waits for the stream, we never synchronise).
#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "codelets/starpu/cuda_task_failure.hpp"
#include "codelets/starpu/pair_histogram_codelet.hpp"

namespace pairhist::codelets {
namespace {

int shared_bins_of_worker[STARPU_NMAXWORKERS];  // filled lazily by the worker thread itself

template <class T>
void launch(cuda::HistogramKernel kernel, void* buffers[], const PairHistogramArgs& args,
            const HistogramParams<T>& params) {
  const auto* a = reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  const int64_t na = STARPU_VECTOR_GET_NX(buffers[0]) / 3;
  const T* b = a;
  int64_t nb = na;
  int hist_index = 1;
  if (!args.same_species) {
    b = reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    nb = STARPU_VECTOR_GET_NX(buffers[1]) / 3;
    hist_index = 2;
  }
  auto* hist = reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[hist_index]));
  const cudaError_t err = with_injected_failure(
      args,
      cuda::launch_pair_histogram(kernel, a, na, b, nb, args.same_species != 0, args.row_begin,
                                  args.row_end, params, hist, starpu_cuda_get_local_stream()));
  if (err != cudaSuccess) fail_cuda_task(args, err, "pair histogram launch");
}

void run(cuda::HistogramKernel kernel, void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const PairHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  if (args.precision == Precision::single)
    launch<float>(kernel, buffers, args, args.single_params);
  else
    launch<double>(kernel, buffers, args, args.double_params);
  implementation_counters().record(kernel == cuda::HistogramKernel::shared_memory
                                       ? Implementation::cuda_shared
                                       : Implementation::cuda_global,
                                   args.pairs);
}

}  // namespace

void pair_histogram_cuda_shared(void* buffers[], void* cl_arg) {
  run(cuda::HistogramKernel::shared_memory, buffers, cl_arg);
}

void pair_histogram_cuda_global(void* buffers[], void* cl_arg) {
  run(cuda::HistogramKernel::global_memory, buffers, cl_arg);
}

void histogram_init_cuda(void* buffers[], void*) {
  const cudaError_t err = cudaMemsetAsync(
      reinterpret_cast<void*>(STARPU_VECTOR_GET_PTR(buffers[0])), 0,
      STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t), starpu_cuda_get_local_stream());
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

void histogram_redux_cuda(void* buffers[], void*) {
  const cudaError_t err = cuda::launch_add_histogram(
      reinterpret_cast<unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[0])),
      reinterpret_cast<const unsigned long long*>(STARPU_VECTOR_GET_PTR(buffers[1])),
      static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[0])), starpu_cuda_get_local_stream());
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

// The shared-memory kernel takes every histogram (in bin windows when it is wide); the
// global-memory kernel is offered only for wide ones, where the model-based schedulers weigh
// repeated windows against global atomics.
int cuda_can_execute(unsigned workerid, starpu_task* task, unsigned nimpl) {
  if (starpu_worker_get_type(static_cast<int>(workerid)) != STARPU_CUDA_WORKER) return 1;
  int& max_bins = shared_bins_of_worker[workerid];
  if (max_bins == 0)
    max_bins = cuda::max_shared_memory_bins(starpu_worker_get_devid(static_cast<int>(workerid)));
  const int nbins = static_cast<const PairHistogramArgs*>(task->cl_arg)->nbins();
  const bool fits = nbins <= max_bins;
  return nimpl == kCudaShared ? 1 : !fits;
}

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
    if (thread_.joinable()) return;
    thread_ = std::thread([devices = std::move(devices), double_precision] {
      for (int d : devices) {
        // A kernel that cannot load now fails at its launch, which reports it with the frame.
        if (cudaSetDevice(d) != cudaSuccess ||
            (double_precision ? cuda::load_cell_kernels<double>()
                              : cuda::load_cell_kernels<float>()) != cudaSuccess)
          cudaGetLastError();
      }
    });
  }
  // A static object made after the CUDA runtime's: it goes before the runtime does.
  ~KernelLoader() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::thread thread_;
};

}  // namespace

void warm_up_cuda(int devices, bool double_precision) {
  const int n = cuda_device_count();
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  std::vector<int> ready;
  for (int d = 0; d < (devices < 0 ? n : std::min(n, devices)); ++d)
    if (cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess) ready.push_back(d);
  cudaSetDevice(current);
  const char* lazy = std::getenv("PAIRHIST_LAZY_KERNELS");
  static KernelLoader loader;
  if (!(lazy && std::atoi(lazy) != 0)) loader.start(std::move(ready), double_precision);
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
