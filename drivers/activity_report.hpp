// The run summary as JSON (`pairhist run --report FILE`): what ran where, for how long.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trajectory_job.hpp"

namespace pairhist {

nlohmann::json activity_json(const JobOutcome& out);

/// Hybrid runs: the cores' share of the last frame and what it came from, e.g. "0.90% of pairs
/// (measured rates: cores 1.2e+10/s, GPUs 1.1e+12/s; GPUs ran 6% of CPU-sized pairs)".
std::string cpu_share_text(const RunActivity& a);

/// `run --lp-bound`: the bound from this run's measured task times, then StarPU's history bound,
/// e.g. "5.65 s from this run's measured task times (makespan 1.4% above; 3 of 74 kinds
/// estimated on an arch where they did not run); StarPU's history bound: n/a: <reason>".
std::string lp_bound_text(const RunActivity& a);

}  // namespace pairhist
