// Species selections: which atoms of a topology form a species.
//
// Two forms are accepted:
//  - a plain list of atom-name globs, comma separated: "OW", "HW1,HW2", "HW*";
//  - an expression in a small VMD/MDAnalysis-like language:
//      name PAT...          atom names matching any glob
//      resname PAT...       residue names matching any glob
//      resid A[-B] ...      residue numbers (ranges inclusive; A:B also accepted)
//      index A[-B] ...      atom numbers, 1-based as in .gro/.pdb files
//      all
//    combined with `and`, `or`, `not` and parentheses ("resname SOL and name H*",
//    "name OW or (resname NA and not resid 1-10)").
#pragma once

#include <string>
#include <vector>

#include "gro_reader.hpp"

namespace pairhist::io {

/// Indices (0-based, ascending) of the atoms the selection picks. Throws UsageError for a
/// malformed expression and InputError naming the topology when it picks no atom.
std::vector<int> select_atoms(const Topology& topology, const std::string& selection,
                              const std::string& topology_path);

}  // namespace pairhist::io
