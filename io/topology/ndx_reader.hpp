// Reader for GROMACS index files (.ndx): named groups of atoms, used by the `group NAME`
// selection keyword (`run --index FILE.ndx`).
#pragma once

#include <string>

#include "analysis/topology.hpp"

namespace pairhist::io {

using analysis::IndexGroups;  // analysis/topology.hpp

/// Reads `path`: sections "[ name ]" followed by whitespace-separated 1-based atom numbers (any
/// number per line, as gmx make_ndx writes 15). Blank lines are skipped. Every atom number must
/// lie in 1..natoms (the topology's atoms). Throws InputError "path: line N: problem" for a
/// malformed header, a token that is not an atom number, a number out of range or numbers before
/// the first header, and "path: ..." for an unreadable or group-less file.
IndexGroups read_ndx(const std::string& path, int natoms);

}  // namespace pairhist::io
