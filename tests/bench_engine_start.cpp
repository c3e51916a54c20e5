// Not a test: what starting StarPU costs a run, phase by phase, on the machine it runs on. The
// W1 end-to-end runs spend 0.05-0.07 s in `starpu_init` before the first task (docs/
// performance.md); this tells how much of it is hwloc's topology discovery, the CUDA worker's
// set-up and the rest. One JSON line per phase.
//   bench_engine_start [--ncpu N] [--ncuda N] [--xml FILE] [--export FILE] [--pin-mib M]
// --pin-mib times pinning (cudaHostRegister) buffers of M MiB as the decoding threads pin their
// columns (one per thread at once, 1 and 8 threads), in 4 KiB pages and in 2 MiB (THP) pages.
// --export writes hwloc's topology of this machine as XML (then exits); --xml times hwloc's load
// from such a file, and starts StarPU with STARPU_HWLOC_INPUT set to it.
#include <hwloc.h>
#include <starpu.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#if defined(PAIRHIST_BENCH_CUDA)
#include <cuda_runtime.h>
#endif

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void line(const char* phase, double ms) {
  std::printf("{\"phase\":\"%s\",\"ms\":%.3f}\n", phase, ms);
}

// As StarPU loads it (_starpu_topology_filter): every I/O device, this system.
void filter_like_starpu(hwloc_topology_t topo) {
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
}

double hwloc_load_ms(const std::string& xml, bool io) {
  const auto t0 = std::chrono::steady_clock::now();
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  if (!xml.empty()) hwloc_topology_set_xml(topo, xml.c_str());
  if (io) filter_like_starpu(topo);
  hwloc_topology_load(topo);
  hwloc_topology_destroy(topo);
  return since(t0);
}

#if defined(PAIRHIST_BENCH_CUDA)
/// Wall ms for `threads` threads each pinning one fresh buffer of `mib` MiB; huge: 2 MiB aligned
/// and advised for transparent huge pages.
double pin_ms(int threads, size_t mib, bool huge) {
  const size_t bytes = mib << 20, align = huge ? (size_t(2) << 20) : 4096;
  std::vector<void*> buffers(static_cast<size_t>(threads));
  for (auto& b : buffers) {
    b = std::aligned_alloc(align, bytes);
    if (huge) madvise(b, bytes, MADV_HUGEPAGE);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pinning;
  for (void* b : buffers)
    pinning.emplace_back([b, bytes] { cudaHostRegister(b, bytes, cudaHostRegisterPortable); });
  for (auto& t : pinning) t.join();
  const double ms = since(t0);
  for (void* b : buffers) cudaHostUnregister(b), std::free(b);
  return ms;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int ncpu = -1, ncuda = -1;
  int pin_mib = 0;
  std::string xml, export_to;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--ncpu")
      ncpu = std::atoi(argv[i + 1]);
    else if (k == "--ncuda")
      ncuda = std::atoi(argv[i + 1]);
    else if (k == "--xml")
      xml = argv[i + 1];
    else if (k == "--export")
      export_to = argv[i + 1];
    else if (k == "--pin-mib")
      pin_mib = std::atoi(argv[i + 1]);
  }
#if defined(PAIRHIST_BENCH_CUDA)
  if (pin_mib > 0) {
    cudaFree(nullptr);
    for (int repeat = 0; repeat < 3; ++repeat)
      for (const int threads : {1, 8})
        for (const bool huge : {false, true})
          std::printf("{\"pin_mib\":%d,\"threads\":%d,\"pages\":\"%s\",\"ms\":%.3f}\n", pin_mib,
                      threads, huge ? "2M" : "4K", pin_ms(threads, size_t(pin_mib), huge));
    return 0;
  }
#endif
  if (!export_to.empty()) {
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    filter_like_starpu(topo);
    hwloc_topology_load(topo);
    const int err = hwloc_topology_export_xml(topo, export_to.c_str(), 0);
    hwloc_topology_destroy(topo);
    return err == 0 ? 0 : 1;
  }
#if defined(PAIRHIST_BENCH_CUDA)
  {  // as a run does while its topology loads (prepare_engine_start)
    const auto t0 = std::chrono::steady_clock::now();
    cudaFree(nullptr);
    line("cuda_context", since(t0));
  }
#endif
  line("hwloc_load_cpus", hwloc_load_ms(xml, false));
  line("hwloc_load_like_starpu", hwloc_load_ms(xml, true));
  if (!xml.empty()) setenv("STARPU_HWLOC_INPUT", xml.c_str(), 1);
  starpu_conf conf;
  starpu_conf_init(&conf);
  conf.ncpus = ncpu;
  conf.ncuda = ncuda;
  conf.sched_policy_name = "eager";
  auto t0 = std::chrono::steady_clock::now();
  if (starpu_init(&conf) != 0) {
    std::fprintf(stderr, "bench_engine_start: starpu_init failed\n");
    return 1;
  }
  line("starpu_init", since(t0));
  std::printf("{\"workers\":%u,\"cuda_workers\":%u}\n", starpu_worker_get_count(),
              starpu_cuda_worker_get_count());
  t0 = std::chrono::steady_clock::now();
  starpu_shutdown();
  line("starpu_shutdown", since(t0));
  t0 = std::chrono::steady_clock::now();
  if (starpu_init(&conf) != 0) return 1;
  line("starpu_init_again", since(t0));
  starpu_shutdown();
  return 0;
}
