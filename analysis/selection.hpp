// Species selections: which atoms of a topology form a species.
//
// Two forms are accepted:
//  - a plain list of atom-name globs, comma separated: "OW", "HW1,HW2", "HW*";
//  - an expression in a small VMD/MDAnalysis-like language:
//      name PAT...          atom names matching any glob
//      resname PAT...       residue names matching any glob
//      resid A[-B] ...      residue numbers (ranges inclusive; A:B also accepted)
//      index A[-B] ...      atom numbers, 1-based as in .gro/.pdb files
//      group NAME...        atoms of GROMACS index groups (needs an index file, see ndx_reader)
//      element PAT...       element symbols, case-insensitive, where the topology file states
//                           them (PDB columns 77-78, XYZ species); never guessed from names
//      type PAT...          atom types where the file has them (LAMMPS dump type column)
//      all
//    combined with `and`, `or`, `not` and parentheses ("resname SOL and name H*",
//    "name OW or (resname NA and not resid 1-10)").
#pragma once

#include <string>
#include <vector>

#include "analysis/topology.hpp"

namespace pairhist::analysis {

/// Indices (0-based, ascending) of the atoms the selection picks. `groups` (may be null) serves
/// the `group` keyword. Throws UsageError for a malformed expression, `group` without an index
/// file or an unknown group name (naming the index file), `element`/`type` on a topology without
/// them or with an atom lacking one (naming the topology file), and InputError naming the topology
/// when the selection picks no atom.
std::vector<int> select_atoms(const Topology& topology, const std::string& selection,
                              const std::string& topology_path,
                              const IndexGroups* groups = nullptr);

}  // namespace pairhist::analysis
