// What the engine's task callback needs to know of a finished task, whichever of our codelets
// ran it: its work, frame and submission number, and its perfmodel pool.
#pragma once

#include <starpu.h>

#include <cstdint>

namespace pairhist::codelets {

enum class TaskKind { tile, group, cells, other };

struct TaskIdentity {
  TaskKind kind = TaskKind::other;
  uint64_t pairs = 0;  // pairs examined (cell-list tasks: the estimated candidates)
  uint64_t frame = 0;
  uint64_t sequence = 0;
  uint32_t footprint = 0;  // the codelet's own perfmodel footprint of the task
};

TaskIdentity identify_task(starpu_task* task);

}  // namespace pairhist::codelets
