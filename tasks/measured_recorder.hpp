// Records, from the task callbacks, what measured_bound.hpp needs: per task kind (codelet,
// perfmodel footprint, as StarPU pools them) the tasks, where they may run, and per worker arch
// (all CPU workers; each CUDA device) the measured executions and their summed durations.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <vector>

#include "tasks/measured_bound.hpp"

namespace pairhist {

class MeasuredRecorder {
 public:
  /// Groups the workers of scheduling context `sched_ctx` into archs (call after starpu_init).
  void start(unsigned sched_ctx);

  /// One finished task (not thread-safe: the engine calls it under its clock mutex). `where` is
  /// the task's STARPU_EXECUTE_WHERE mask (starpu_task::where).
  void record(const starpu_codelet* cl, uint32_t footprint, unsigned long long where, int worker,
              double seconds, uint64_t pairs);

  /// The bound over what was recorded (call when every recorded task's callback has run).
  MeasuredBound finish() const { return measured_area_bound(kinds_, archs_); }

 private:
  struct Key {
    const starpu_codelet* cl;
    uint32_t footprint;
  };
  std::vector<MeasuredArch> archs_;
  std::vector<unsigned long long> arch_where_;  // STARPU_CPU or STARPU_CUDA, per arch
  std::vector<int> arch_of_worker_;             // -1: not in the context
  std::vector<const starpu_codelet*> codelets_;
  std::vector<Key> keys_;
  std::vector<MeasuredKind> kinds_;
  size_t last_ = 0;  // consecutive tasks are often of one kind
};

}  // namespace pairhist
