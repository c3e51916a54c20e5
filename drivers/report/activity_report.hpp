// The run summary as JSON (`pairhist run --report FILE`): what ran where, for how long.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

nlohmann::json activity_json(const JobOutcome& out);

/// A distributed run's ranks (null for one process): each rank's units, tasks, workers, busy,
/// idle (within its own span) and tail (to the run's last task), its waits for frames and
/// reductions; the run's makespan, tail idle across ranks and communication time. Times are on
/// the ranks' common clock (from when all had the plan).
nlohmann::json ranks_json(const JobOutcome& out);

/// Per species pair: the algorithm that counted it, the pairs whose distance was computed
/// (candidates) and the part of them within r_max, e.g. "O-O cell-list (2.1e+09 candidates,
/// 16.3% within r_max), O-H all-pairs (...)".
std::string pair_algorithms_text(const JobOutcome& out);
nlohmann::json pair_algorithms_json(const JobOutcome& out);

/// Hybrid runs: the cores' share of the last frame and what it came from, e.g. "0.90% of pairs
/// (measured rates: cores 1.2e+10/s, GPUs 1.1e+12/s; GPUs ran 6% of CPU-sized pairs)".
std::string cpu_share_text(const RunActivity& a);

/// `run --lp-bound`: the bound from this run's measured task times, then StarPU's history bound,
/// e.g. "5.65 s from this run's measured task times (makespan 1.4% above; 3 of 74 kinds
/// estimated on an arch where they did not run); StarPU's history bound: n/a: <reason>".
std::string lp_bound_text(const RunActivity& a);

}  // namespace pairhist
