#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
namespace pairhist_phase {
inline void mark(const char* what) {
  static const bool on = std::getenv("PAIRHIST_PHASES") != nullptr;
  if (!on) return;
  static auto last = std::chrono::steady_clock::now();
  static double last_cpu = 0;
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  const double cpu = ts.tv_sec + 1e-9 * ts.tv_nsec;
  const auto now = std::chrono::steady_clock::now();
  std::fprintf(stderr, "PHASE %-28s wall %8.3f ms cpu %8.3f ms\n", what,
               std::chrono::duration<double, std::milli>(now - last).count(),
               1e3 * (cpu - last_cpu));
  last = now;
  last_cpu = cpu;
}
}  // namespace pairhist_phase
