// Not a test: what pinning host memory costs the rest of the process (issue 24). A W1 x16 run
// pins ~12 column sets of 130 MB while its GPUs take their first frames, and those first tasks
// wait 0.3-0.8 s: in cudaMalloc, in StarPU's transfers, even in the feeding thread. This pins
// SETS buffers of MB MiB each (huge-page advised and written first, as decoded columns are) with
// THREADS threads, by cudaHostRegister or cudaHostAlloc, and meanwhile times what other threads
// do: a cudaMalloc + cudaFree of 64 MiB, a 130 MB pinned copy to the device, and first touches of
// fresh memory (page faults). Prints the pinning rate and each bystander's median and worst
// latency, without pinning (baseline) and during it.
//   bench_host_pinning [--mb 130] [--sets 12] [--threads 1,4,12] [--devices N]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "bench_host_pinning: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

void* huge_buffer(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  bytes = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, bytes);
  if (!p) std::exit(1);
  madvise(p, bytes, MADV_HUGEPAGE);
  std::memset(p, 1, bytes);  // decoded into before it is pinned
  return p;
}

/// Latencies of one bystander operation, repeated until `stop`.
struct Bystander {
  std::vector<double> ms;
  void summary(const char* name) {
    if (ms.empty()) return;
    std::sort(ms.begin(), ms.end());
    std::printf("    %-34s n %4zu  median %8.2f ms  p90 %8.2f ms  max %8.2f ms\n", name, ms.size(),
                ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back());
  }
};

struct Bystanders {
  Bystander malloc_free, copy, fault;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;

  void start(int devices, void* pinned_source, size_t copy_bytes) {
    threads.emplace_back([this] {  // device memory: cudaMalloc maps into the address space
      check(cudaSetDevice(0), "set device");
      while (!stop) {
        const auto t0 = Clock::now();
        void* d = nullptr;
        check(cudaMalloc(&d, size_t(64) << 20), "cudaMalloc");
        check(cudaFree(d), "cudaFree");
        malloc_free.ms.push_back(ms_since(t0));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    threads.emplace_back([this, devices, pinned_source, copy_bytes] {  // a StarPU transfer
      std::vector<void*> targets(size_t(devices), nullptr);
      std::vector<cudaStream_t> streams(static_cast<size_t>(devices), nullptr);
      for (int d = 0; d < devices; ++d) {
        check(cudaSetDevice(d), "set device");
        check(cudaMalloc(&targets[size_t(d)], copy_bytes), "cudaMalloc target");
        check(cudaStreamCreate(&streams[size_t(d)]), "stream");
      }
      int d = 0;
      while (!stop) {
        const auto t0 = Clock::now();
        check(cudaSetDevice(d), "set device");
        check(cudaMemcpyAsync(targets[size_t(d)], pinned_source, copy_bytes, cudaMemcpyHostToDevice,
                              streams[size_t(d)]),
              "copy");
        check(cudaStreamSynchronize(streams[size_t(d)]), "sync");
        copy.ms.push_back(ms_since(t0));
        d = (d + 1) % devices;
      }
      for (int k = 0; k < devices; ++k) {
        cudaSetDevice(k);
        cudaFree(targets[size_t(k)]);
        cudaStreamDestroy(streams[size_t(k)]);
      }
    });
    threads.emplace_back([this] {  // a decoding thread's fresh staging memory
      while (!stop) {
        const size_t bytes = size_t(8) << 20;
        const auto t0 = Clock::now();
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) std::exit(1);
        for (size_t i = 0; i < bytes; i += 4096) static_cast<char*>(p)[i] = 1;
        munmap(p, bytes);
        fault.ms.push_back(ms_since(t0));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  void finish(const char* title) {
    stop = true;
    for (std::thread& t : threads) t.join();
    threads.clear();
    std::printf("  %s\n", title);
    malloc_free.summary("cudaMalloc+cudaFree 64 MiB (GPU 0)");
    copy.summary("pinned copy to a GPU (round robin)");
    fault.summary("first touch of 8 MiB (page faults)");
  }
};

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  for (const char* p = text; *p;) {
    out.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 130;
  int sets = 12;
  std::vector<int> thread_counts{1, 4, 12};
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "device count");
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--mb") mb = std::strtoull(argv[i + 1], nullptr, 10);
    if (a == "--sets") sets = std::atoi(argv[i + 1]);
    if (a == "--threads") thread_counts = parse_list(argv[i + 1]);
    if (a == "--devices") devices = std::min(devices, std::atoi(argv[i + 1]));
  }
  const size_t bytes = mb << 20;
  const size_t copy_bytes = size_t(64) << 20;
  // Every device's context first (as StarPU's start makes them), and the copies' pinned source.
  for (int d = 0; d < devices; ++d)
    check(cudaSetDevice(d), "set device"), check(cudaFree(nullptr), "context");
  void* source = nullptr;
  check(cudaHostAlloc(&source, copy_bytes, cudaHostAllocPortable), "pinned source");
  std::printf("bench_host_pinning: %d devices, %d sets of %zu MiB\n", devices, sets, mb);
  {
    Bystanders idle;
    idle.start(devices, source, copy_bytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    idle.finish("baseline (nothing pinned meanwhile)");
  }
  for (const char* method : {"register", "hostalloc"})
    for (int threads : thread_counts) {
      std::vector<void*> buffers(size_t(sets), nullptr);
      if (std::strcmp(method, "register") == 0)
        for (void*& b : buffers) b = huge_buffer(bytes);
      Bystanders during;
      during.start(devices, source, copy_bytes);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto t0 = Clock::now();
      std::atomic<int> next{0};
      std::vector<std::thread> pinners;
      for (int t = 0; t < threads; ++t)
        pinners.emplace_back([&] {
          for (int k; (k = next++) < sets;) {
            void*& b = buffers[size_t(k)];
            if (std::strcmp(method, "register") == 0)
              check(cudaHostRegister(b, bytes, cudaHostRegisterPortable), "cudaHostRegister");
            else {
              check(cudaHostAlloc(&b, bytes, cudaHostAllocPortable), "cudaHostAlloc");
              std::memset(b, 1, bytes);  // then decoded into
            }
          }
        });
      for (std::thread& t : pinners) t.join();
      const double ms = ms_since(t0);
      char title[160];
      std::snprintf(title, sizeof title, "%s, %d threads: %.0f ms, %.2f GB/s", method, threads, ms,
                    double(bytes) * sets / ms * 1e-6);
      during.finish(title);
      for (void* b : buffers) {
        if (std::strcmp(method, "register") == 0) {
          cudaHostUnregister(b);
          std::free(b);
        } else {
          cudaFreeHost(b);
        }
      }
    }
  cudaFreeHost(source);
  return 0;
}
