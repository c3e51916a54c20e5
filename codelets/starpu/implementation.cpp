#include "codelets/starpu/implementation.hpp"

namespace pairhist::codelets {

void ImplementationCounters::reset() {
  for (int i = 0; i < kImplementations; ++i) {
    tasks[i] = 0;
    pairs[i] = 0;
  }
}

void ImplementationCounters::record(Implementation impl, uint64_t task_pairs) {
  tasks[static_cast<int>(impl)] += 1;
  pairs[static_cast<int>(impl)] += task_pairs;
}

ImplementationCounters& implementation_counters() {
  static ImplementationCounters counters;
  return counters;
}

}  // namespace pairhist::codelets
