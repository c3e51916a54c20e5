// The run summary as JSON (`pairhist run --report FILE`): what ran where, for how long.
#pragma once

#include <nlohmann/json.hpp>

#include "trajectory_job.hpp"

namespace pairhist {

nlohmann::json activity_json(const JobOutcome& out);

}  // namespace pairhist
