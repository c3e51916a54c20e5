// GROMACS run inputs (.tpr) through libgromacs (Debian's libgromacs-dev): the full topology
// (names, residues, types, elements, masses, charges, molecules, bonded exclusions), the
// coordinates and box, and the default index groups that `gmx make_ndx` offers.
#pragma once

#include <string>

#include "analysis/topology.hpp"

namespace pairhist::io {

/// True when pairhist was built with libgromacs, so that .tpr files can be read.
bool tpr_supported();

/// Reads the topology, coordinates (nm) and box of `path`. Elements come from the atomic
/// numbers GROMACS stores (none known: empty element). Throws InputError "path: problem", one
/// line, for a missing, unreadable, truncated, damaged or too new file, and when pairhist was built
/// without libgromacs; libgromacs never ends the process.
analysis::Topology read_tpr(const std::string& path);

/// The groups `gmx make_ndx -f path` starts with (System, Protein, ..., Water, SOL, non-Water,
/// Ion, ...), made by GROMACS's own analyse(), in its order. Reads the file again: only a `group`
/// selection without an index file needs them. Throws as read_tpr.
analysis::IndexGroups read_tpr_default_groups(const std::string& path);

}  // namespace pairhist::io
