// The cores this process may run on. std::thread::hardware_concurrency() counts every core of the
// machine, but a process started by mpirun, srun, taskset or a container may be bound to fewer;
// threads and workers sized on all cores would then share the few it has.
#pragma once

#include <sched.h>

#include <thread>

namespace pairhist {

/// Cores in this thread's affinity mask (the whole machine's count where it cannot be read).
inline int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned all = std::thread::hardware_concurrency();
  return all > 0 ? static_cast<int>(all) : 1;
}

}  // namespace pairhist
