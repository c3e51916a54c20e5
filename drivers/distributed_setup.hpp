// What rank 0 of a distributed run decides before any frame is counted (drivers/distribution.hpp):
// the run's frames (an XTC file's are listed from its frame headers, which also find a damaged
// frame before any work; other formats are read through only when a time window needs their
// frames' times), the box kind, into how many parts each frame is split, and, for split frames,
// the algorithm of every species pair.
#pragma once

#include <vector>

#include "distribution.hpp"
#include "pairhist/engine.hpp"
#include "trajectory_job.hpp"

namespace pairhist {

/// Splits each frame into parts when there are too few frames to keep every rank busy until
/// the end: parts = ceil(kUnitsPerRank x ranks / frames), each at least kMinPartPairs pairs.
constexpr int kUnitsPerRank = 8;
constexpr double kMinPartPairs = double(1 << 30);

/// Rank 0: the plan for `ranks` ranks. `frames`: the run's frame selection (a resumed run's
/// resume_after included); `config`: the engine configuration the ranks use (its box kind is
/// the first frame's unless `box_kind` >= 0, a resumed run's); `atoms`: the species' atoms.
/// Problems that stop the run before it starts come back in the plan's error, never thrown.
DistributedPlan plan_distributed_run(const JobOptions& o, const FramePlan& frames,
                                     EngineConfig config,
                                     const std::vector<std::vector<int>>& atoms, int ranks,
                                     int box_kind);

}  // namespace pairhist
