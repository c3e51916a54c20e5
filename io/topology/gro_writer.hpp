// A minimal GROMACS .gro writer: the topology (atom names) to go with a written trajectory.
#pragma once

#include <string>

#include "io/topology/gro_reader.hpp"

namespace pairhist::io {

/// Writes `top` (names, residues, coordinates in nm, box) as a .gro file, atomically. Residue
/// names default to the atom name where empty, residue numbers to the atom number. Throws
/// OutputError on failure.
void write_gro(const std::string& path, const Topology& top);

}  // namespace pairhist::io
