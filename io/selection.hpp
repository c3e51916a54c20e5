// Species selections: which atoms of a topology form a species.
#pragma once

#include <string>
#include <vector>

#include "gro_reader.hpp"

namespace pairhist::io {

/// Indices of the atoms whose name matches one of the comma-separated glob patterns of
/// `selection` (e.g. "OW" or "HW1,HW2" or "HW*"). Throws InputError naming the selection when it
/// matches nothing.
std::vector<int> select_atoms_by_name(const Topology& topology, const std::string& selection,
                                      const std::string& topology_path);

}  // namespace pairhist::io
