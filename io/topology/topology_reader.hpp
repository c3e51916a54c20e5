// Atom names (and residues where the format has them) for species selections, by file type.
#pragma once

#include <string>

#include "io/topology/gro_reader.hpp"
#include "io/topology/ndx_reader.hpp"

namespace pairhist::io {

/// Reads the topology of `path` by extension: .gro, .g96 (a POSITION block), .tpr (GROMACS run
/// input), .pdb, .xyz/.extxyz (species column), .lammpstrj/.lammpsdump/.dump (atom types as
/// names), CADISHI .h5/.hdf5 (species names). Throws InputError otherwise.
Topology read_topology(const std::string& path,
                       TopologyContent content = TopologyContent::everything);

/// True when the topology file offers index groups of its own: a .tpr, whose groups are those
/// gmx make_ndx starts with (System, ..., Water, SOL, non-Water, Ion, ...).
bool has_default_groups(const std::string& path);

/// Those groups (io/topology/tpr_reader.hpp); throws InputError for a format without them.
IndexGroups read_default_groups(const std::string& path);

/// True when the trajectory file carries its own species (CADISHI's HDF5 layout), so that it is
/// its own topology and every species of the file is a sensible default.
bool carries_species(const std::string& trajectory);

}  // namespace pairhist::io
