#include "drivers/workloads/decode_bench.hpp"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "io/common/input_path.hpp"
#include "io/trajectory/trajectory_opening.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// CPU time of the whole process, all threads: on a shared machine the wall clock alone says
// little, and the ratio tells how many cores the decoding kept busy.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Minor page faults of the process so far: fresh buffers faulted in 4 KiB at a time cost as much
// kernel time as decoding did at 11M atoms (docs/performance.md, "XTC decoding").
double page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_minflt);
}

struct Pass {
  double seconds = 0;
  double cpu_seconds = 0;
  double page_faults = 0;
  int64_t frames = 0;
  int natoms = 0;
  int threads = 1;
};

Pass read_all(const DecodeBenchOptions& o) {
  Pass p;
  const double cpu0 = process_cpu_seconds();
  const double faults0 = page_faults();
  const auto start = std::chrono::steady_clock::now();
  {
    const auto reader = io::open_trajectory_threaded(o.path, o.threads);
    if (const io::ReadingFigures figures = reader->reading_figures(); figures.threaded()) {
      // Automatic: as many threads as a run bound by reading grows to (it starts with few).
      if (o.threads == 0) reader->set_active_threads(figures.max_threads);
      p.threads = reader->reading_figures().threads;
    }
    p.natoms = reader->natoms();
    io::TrajectoryFrame frame;
    while (reader->next(frame)) {
    }
    p.frames = reader->frames_read();
  }  // the decode threads are joined inside the timed region
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  p.cpu_seconds = process_cpu_seconds() - cpu0;
  p.page_faults = page_faults() - faults0;
  return p;
}

}  // namespace

void run_decode_bench(const DecodeBenchOptions& o) {
  if (o.repeats < 1) throw UsageError("--repeats must be at least 1");
  if (o.threads < 0) throw UsageError("--threads must be >= 0 with --decode (0: automatic)");
  io::require_input_file(o.path);
  const double bytes = static_cast<double>(std::filesystem::file_size(o.path));
  std::vector<double> wall, cpu, faults;
  Pass p;
  for (int r = -o.warmup; r < o.repeats; ++r) {
    p = read_all(o);
    if (p.frames == 0) throw InputError(o.path + ": no frames");
    if (r < 0) continue;
    wall.push_back(p.seconds);
    cpu.push_back(p.cpu_seconds);
    faults.push_back(p.page_faults);
  }
  const double med = median(wall);
  const auto [lo, hi] = std::minmax_element(wall.begin(), wall.end());
  const double frames_per_s = static_cast<double>(p.frames) / med;
  const double atoms_per_s = frames_per_s * p.natoms;
  const double mb_per_s = bytes / med * 1e-6;
  const double cpu_med = median(cpu);
  // Cores the pass kept busy: its CPU time over its wall time, each the median of the repeats.
  const double cores_busy = cpu_med / med;
  const double faults_med = median(faults);
  if (o.json) {
    const nlohmann::json j = {{"decode", o.path},
                              {"natoms", p.natoms},
                              {"frames", p.frames},
                              {"bytes", bytes},
                              {"threads", p.threads},
                              {"threads_requested", o.threads},
                              {"cores", std::thread::hardware_concurrency()},
                              {"frames_per_s_median", frames_per_s},
                              {"atoms_per_s_median", atoms_per_s},
                              {"mb_per_s_median", mb_per_s},
                              {"seconds_median", med},
                              {"seconds_min", *lo},
                              {"seconds_max", *hi},
                              {"gb_per_s_median", mb_per_s * 1e-3},
                              {"cpu_seconds_median", cpu_med},
                              {"cores_busy", cores_busy},
                              {"page_faults_median", faults_med},
                              {"repeats", wall.size()}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf(
        "decode %s: %d atoms x %lld frames, %.1f MB, threads=%d: %.1f frames/s, %.3g atoms/s, "
        "%.1f MB/s (%.2f GB/s)  median %.4f s [%.4f, %.4f], cpu %.4f s, %.2f cores busy, %.0f "
        "page faults\n",
        o.path.c_str(), p.natoms, static_cast<long long>(p.frames), bytes * 1e-6, p.threads,
        frames_per_s, atoms_per_s, mb_per_s, mb_per_s * 1e-3, med, *lo, *hi, cpu_med, cores_busy,
        faults_med);
  }
  std::fflush(stdout);
}

}  // namespace pairhist
