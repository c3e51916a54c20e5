// The worker-activity picture (`pairhist run --activity-svg FILE`): one lane per worker, one bar
// per task over time, so idle gaps and the tail are visible at a glance.
#pragma once

#include <string>

#include "pairhist/engine.hpp"

namespace pairhist {

/// SVG document of the run's task timeline. Row tiles are drawn in the worker kind's colour,
/// grouped small pairs lighter; the dashed line marks the LP bound when there is one.
std::string activity_svg(const RunActivity& activity, const std::string& title);

}  // namespace pairhist
