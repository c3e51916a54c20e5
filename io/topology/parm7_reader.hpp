// AMBER topologies (parm7/prmtop): %FLAG sections, each with a Fortran %FORMAT line
// (ambermd.org/prmtop.pdf).
#pragma once

#include <string>
#include <vector>

#include "analysis/topology.hpp"
#include "io/topology/parm7_sections.hpp"

namespace pairhist::io {

using analysis::Topology;

/// Reads a parm7/prmtop file: atom names, residue names and numbers (RESIDUE_POINTER; residues
/// numbered 1, 2, ... as AMBER masks do), AMBER atom types, masses (u), charges (stored in
/// units of e * 18.2223, converted to e), elements (ATOMIC_NUMBER; in files older than it, the
/// element whose standard weight is within 0.5 u of the mass, else none), molecules
/// (ATOMS_PER_MOLECULE where SOLVENT_POINTERS is present, else the bonded clusters), bonded
/// exclusions (atoms within three bonds, as GROMACS's nrexcl = 3 lists them) and the box
/// (BOX_DIMENSIONS where IFBOX > 0). Throws InputError "path: line N: problem" on a file that
/// is not a parm7, lacks a needed section or whose sections disagree with POINTERS.
Topology read_parm7(const std::string& path);

/// True when `path` starts as a parm7 file does (%VERSION or %FLAG): an AMBER topology named
/// .top, which is otherwise GROMACS's extension.
bool is_parm7(const std::string& path);

}  // namespace pairhist::io
