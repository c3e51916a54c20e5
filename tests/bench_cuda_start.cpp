// Not a test: what CUDA's own start and a process's end cost on this machine, without pairhist
// (issue 24: a 4-GPU run's whole process exceeds its run time by 1.1-1.3 s, its GPUs' contexts
// ready 1.2-1.7 s into the process, and 0.4 s pass from its outputs to its end). Each case runs
// in a fresh process (CUDA starts once per process), ROUNDS times, and prints medians:
//   count        cudaGetDeviceCount alone (the driver's start)
//   serial       every device's primary context made one after another
//   parallel     every device's primary context made on a thread of its own (what pairhist does)
//   one          device 0's context only
//   pin          parallel, then PIN_GB GiB of host memory pinned in 128 MiB sets (as a run's
//                frames are); the end: from _Exit to the parent's waitpid
//   unpin        pin, then the sets unpinned and unmapped before the end (what a reader's
//                destructor does) instead of left to the kernel
//   bare         no CUDA at all: the floor of a process's start and end
//   bench_cuda_start [--rounds 3] [--pin-gb 4] [--devices N] [--modes count,parallel,...]
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool make_context(int device) {
  return cudaSetDevice(device) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
}

// The child: runs `mode`, prints "key value" lines (seconds since the parent's fork), then ends
// without any teardown, as pairhist's run does.
[[noreturn]] void child(const std::string& mode, double t0, int devices, double pin_gb) {
  std::map<std::string, double> marks;
  marks["main"] = now_seconds() - t0;
  int n = 0;
  if (mode != "bare") {
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    marks["device_count"] = now_seconds() - t0;
  }
  if (devices > 0) n = std::min(n, devices);
  bool ok = true;
  if (mode == "one" && n > 0) ok = make_context(0);
  if (mode == "serial")
    for (int d = 0; d < n; ++d) ok = make_context(d) && ok;
  if (mode == "parallel" || mode == "pin" || mode == "unpin") {
    std::vector<char> made(static_cast<size_t>(n), 0);
    std::vector<std::thread> threads;
    for (int d = 0; d < n; ++d)
      threads.emplace_back([d, &made] { made[static_cast<size_t>(d)] = make_context(d); });
    for (std::thread& t : threads) t.join();
    for (char m : made) ok = ok && m;
  }
  if (mode != "bare" && mode != "count") marks["contexts"] = now_seconds() - t0;
  if (mode == "pin" || mode == "unpin") {
    const size_t set = size_t{128} << 20;
    const auto sets = static_cast<size_t>(pin_gb * 8);
    std::vector<void*> pinned;
    for (size_t i = 0; i < sets; ++i) {
      void* p = mmap(nullptr, set, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) break;
      madvise(p, set, MADV_HUGEPAGE);
      std::memset(p, 1, set);
      ok = cudaHostRegister(p, set, cudaHostRegisterPortable) == cudaSuccess && ok;
      pinned.push_back(p);
    }
    marks["pinned"] = now_seconds() - t0;
    if (mode == "unpin") {  // given back before the end, as a reader's destructor does
      for (void* p : pinned) {
        ok = cudaHostUnregister(p) == cudaSuccess && ok;
        munmap(p, set);
      }
      marks["unpinned"] = now_seconds() - t0;
    }
  }
  for (const auto& [key, value] : marks) std::printf("%s %.6f\n", key.c_str(), value);
  std::printf("devices %d\nok %d\nexit_call %.6f\n", n, ok ? 1 : 0, now_seconds() - t0);
  std::fflush(stdout);
  _Exit(0);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3, devices = -1;
  double pin_gb = 4;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (flag == "--pin-gb") pin_gb = std::atof(argv[i + 1]);
    if (flag == "--devices") devices = std::atoi(argv[i + 1]);
    if (flag == "--modes") only = "," + std::string(argv[i + 1]) + ",";
    if (flag == "--child") child(argv[i + 1], std::atof(argv[i + 2]), devices, pin_gb);
  }
  const char* modes[] = {"bare", "count", "one", "serial", "parallel", "pin", "unpin"};
  std::printf("mode: medians of %d fresh processes, seconds since fork\n", rounds);
  for (const char* mode : modes) {
    if (!only.empty() && only.find("," + std::string(mode) + ",") == std::string::npos) continue;
    std::map<std::string, std::vector<double>> seen;
    for (int r = 0; r < rounds; ++r) {
      int out[2];
      if (pipe(out) != 0) return 1;
      const double t0 = now_seconds();
      const pid_t pid = fork();
      if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        char start[32];
        std::snprintf(start, sizeof start, "%.9f", t0);
        const std::string devices_text = std::to_string(devices), gb = std::to_string(pin_gb);
        execl("/proc/self/exe", argv[0], "--devices", devices_text.c_str(), "--pin-gb", gb.c_str(),
              "--child", mode, start, static_cast<char*>(nullptr));
        _exit(127);
      }
      close(out[1]);
      std::string text;
      char buf[4096];
      for (ssize_t got; (got = read(out[0], buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<size_t>(got));
      close(out[0]);
      int status = 0;
      waitpid(pid, &status, 0);
      const double gone = now_seconds() - t0;
      double exit_call = 0;
      char key[64];
      double value = 0;
      for (const char* line = text.c_str(); std::sscanf(line, "%63s %lf", key, &value) == 2;) {
        seen[key].push_back(value);
        if (std::string(key) == "exit_call") exit_call = value;
        line = std::strchr(line, '\n');
        if (!line) break;
        ++line;
      }
      seen["gone"].push_back(gone);
      seen["end"].push_back(gone - exit_call);
    }
    std::printf("%-9s", mode);
    for (const char* key : {"main", "device_count", "contexts", "pinned", "unpinned", "exit_call",
                            "end", "gone", "devices", "ok"})
      if (seen.count(key)) std::printf(" %s %.3f", key, median(seen[key]));
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
