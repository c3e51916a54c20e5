// The user's length unit (--units nm | angstrom): trajectories store nm, the unit changes only
// r_max, edges and volumes as given and reported.
#pragma once

#include <string>

namespace pairhist {

/// Length units per nm of `units` (nm: 1, angstrom: 10); UsageError for others.
double length_factor(const std::string& units);
std::string format_length(double v, const std::string& unit);
}  // namespace pairhist
