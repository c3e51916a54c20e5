// The topology a command pairs with a trajectory, for trajectory formats that do not state their
// atom count (AMBER .mdcrd): the command states the pair before anything opens the trajectory
// (the job opens it while the topology loads on another thread).
#pragma once

#include <string>

namespace pairhist::io {

/// Records that `trajectory` is read with `topology` (thread-safe; a later call replaces it).
void state_trajectory_topology(const std::string& trajectory, const std::string& topology);

/// The topology stated for `trajectory`, "" if none.
std::string trajectory_topology(const std::string& trajectory);

}  // namespace pairhist::io
