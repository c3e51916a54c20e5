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

}  // namespace pairhist::io
