// Atom names (and residues where the format has them) for species selections, by file type.
#pragma once

#include <string>

#include "gro_reader.hpp"

namespace pairhist::io {

/// Reads the topology of `path` by extension: .gro, .pdb, .xyz/.extxyz (species column),
/// .lammpstrj/.lammpsdump/.dump (atom types as names). Throws InputError otherwise.
Topology read_topology(const std::string& path);

}  // namespace pairhist::io
