// Reader for GROMACS .gro structure files, used as the topology (names, residues) and starting
// coordinates of a trajectory.
#pragma once

#include <string>

#include "analysis/topology.hpp"

namespace pairhist::io {

// The readers fill analysis' Topology (analysis/topology.hpp).
using analysis::Topology;

/// Reads the first frame of a .gro file. Coordinate field widths are derived from the decimal
/// points of the first atom line, as GROMACS does, so higher-precision files are read exactly;
/// velocities are skipped. Anything after the box line (further frames) is ignored. Throws
/// InputError "path: line N: problem" for unreadable or malformed files.
Topology read_gro(const std::string& path);

/// What a reader fills: `names` leaves the coordinates out (Topology::xyz empty), for a run,
/// which takes its positions from the trajectory: parsing 33M coordinate fields was half of an
/// 11M-atom topology's reading. Atom lines are still checked for their length, not their numbers.
enum class TopologyContent { everything, names };

Topology read_gro(const std::string& path, TopologyContent content);

}  // namespace pairhist::io
