// The exact reduction of the ranks' counts through StarPU-MPI (built with MPI only). Each
// output interval gets one accumulator handle owned by rank 0 and one payload handle per rank,
// owned by that rank, all registered with starpu_mpi_data_register on every rank; every rank
// submits the same tasks, and StarPU-MPI moves the payloads where they are summed:
// owner-computes sum tasks in a binary tree (rank r adds rank r + s's payload at stride s,
// s = 1, 2, 4, ...; rank 0 ends with the total): log2(ranks) steps, in which every rank sends at
// most once. Measured against it (docs/performance.md) and gone since: one sum task per rank on
// rank 0 (rank 0 receives and adds ranks - 1 payloads in turn), and StarPU-MPI's
// starpu_mpi_redux_data, which in StarPU 1.3.10 waits for every task of the process (the
// engine's too) and supports one reduction of a handle at a time.
// A payload is uint64 counts, which are added (exact), then frame records, which are taken from
// the one rank that filled them (drivers/distributed/distribution.hpp).
#pragma once

#include <starpu.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "drivers/distributed/mpi_comms.hpp"

namespace pairhist {

class MpiReduction {
 public:
  /// StarPU must be running; starts StarPU-MPI on mpi::starpu_comm().
  MpiReduction(int rank, int ranks);
  /// Unregisters what is left and shuts StarPU-MPI down (collective: every rank at the end).
  ~MpiReduction();
  MpiReduction(const MpiReduction&) = delete;
  MpiReduction& operator=(const MpiReduction&) = delete;

  /// Submits interval `interval`'s reduction with this rank's payload (see Distribution).
  void contribute(int64_t interval, std::vector<uint64_t> payload, size_t count_entries);
  /// Rank 0: the reduced payload of `interval` once complete (wait: until then). False when it
  /// is not (yet); each interval is returned once.
  bool take(int64_t interval, std::vector<uint64_t>& payload, bool wait);
  /// Seconds spent submitting and, on rank 0, waiting for reductions.
  double seconds() const { return seconds_; }

 private:
  struct Interval {
    MpiReduction* owner = nullptr;
    starpu_data_handle_t accumulator = nullptr;
    std::vector<uint64_t> result;  // rank 0: the accumulator's memory
    bool ready = false;            // rank 0: the last task on the accumulator has run
  };
  static void on_reduced(void* arg);
  int64_t tag(int64_t interval, int slot) const;

  int rank_, ranks_;
  std::mutex mutex_;
  std::condition_variable reduced_;
  std::map<int64_t, Interval> intervals_;
  double seconds_ = 0;
};

}  // namespace pairhist
