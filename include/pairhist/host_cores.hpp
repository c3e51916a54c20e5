// The cores this process may run on. std::thread::hardware_concurrency() counts every core of the
// machine, but a process started by mpirun, srun, taskset or a container may be bound to fewer;
// threads and workers sized on all cores would then share the few it has. And the node's memory.
#pragma once

#include <sched.h>
#include <unistd.h>

#include <cstdint>
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

/// Physical memory of the node in bytes (0 where it cannot be read). Not a container's or a
/// batch job's limit: plans sized from it take a small part of it.
inline uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace pairhist
