// A run's spec as the engine takes it, and the engine's report back into the outcome: the
// options no run can have refused, the species pairs counted, the engine's configuration, and
// its workers, tasks and examined pairs (drivers/job/trajectory_pipeline.cpp and the sinks).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "drivers/job/run_spec.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// UsageError for options no run can have.
void check_options(const RunSpec& o);
/// The species pairs o.pairs names, in species_pairs() order: every pair when o.pairs is empty.
/// UsageError for a name that is no species, or a pair named twice.
std::vector<std::pair<int, int>> selected_pairs(const RunSpec& o);
/// The engine's configuration for a run over `atoms` (per species) in a box of kind `kind`.
EngineConfig engine_config(const RunSpec& o, const std::vector<std::vector<int>>& atoms,
                           BoxKind kind, double r_max_nm);

/// The engine's report, its workers and the pairs it examined for `whole_frames` frames.
void describe_engine(const HistogramEngine& engine, uint64_t whole_frames, JobOutcome& out);

}  // namespace pairhist
