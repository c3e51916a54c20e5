// Which implementation ran our tasks, for the run summary, and the perfmodel footprints that every
// codelet keys its history on.
#pragma once

#include <starpu.h>

#include <atomic>
#include <cmath>
#include <cstdint>

namespace pairhist::codelets {

/// Which implementation ran a task.
enum class Implementation : int {
  cpu = 0,
  cuda_shared = 1,
  cuda_global = 2,
  cpu_cells = 3,  // cell-list tasks (cell_histogram_codelet.hpp)
  cuda_cells = 4
};
constexpr int kImplementations = 5;

/// Tasks and pairs per implementation since the last reset.
struct ImplementationCounters {
  std::atomic<uint64_t> tasks[kImplementations];
  std::atomic<uint64_t> pairs[kImplementations];
  void reset();
  void record(Implementation impl, uint64_t task_pairs);
};
ImplementationCounters& implementation_counters();

/// Eighth-octave class of a pair count: tasks within ~9% of each other share a history entry, so
/// row tiles of different pairs and frames of slightly different sizes reuse one calibration.
inline uint32_t pairs_class(uint64_t pairs) {
  return pairs == 0 ? 0u : static_cast<uint32_t>(std::floor(8.0 * std::log2(double(pairs)))) + 1u;
}

/// Perfmodel footprint of a task's work: pairs (by class), bins, box kind and precision.
template <class Args>
uint32_t work_footprint(const Args& args) {
  uint32_t h = starpu_hash_crc32c_be(pairs_class(args.pairs), 0);
  h = starpu_hash_crc32c_be(static_cast<uint32_t>(args.nbins()), h);
  h = starpu_hash_crc32c_be(static_cast<uint32_t>(args.box_kind()), h);
  return starpu_hash_crc32c_be(static_cast<uint32_t>(args.precision), h);
}

/// The perfmodel's size of a task: the pairs it examines (`Args::pairs`).
template <class Args>
size_t work_size(starpu_task* task, unsigned) {
  return static_cast<size_t>(static_cast<const Args*>(task->cl_arg)->pairs);
}

}  // namespace pairhist::codelets
