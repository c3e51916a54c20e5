// What a topology's bonds imply, for formats that list bonds but not molecules or exclusions
// (CHARMM/NAMD PSF): molecules as the connected components of the bond graph, and the bonded
// exclusions GROMACS would make of them (atoms up to `nrexcl` bonds apart, each atom's list
// including itself, as a .tpr's).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/topology.hpp"

namespace pairhist::analysis {

/// 0-based atom pairs; every index must lie in [0, natoms) (the reader checks them).
using BondList = std::vector<std::pair<int, int>>;

/// Per atom: its molecule, numbered 0, 1, ... in order of each molecule's first atom; an atom
/// without bonds is a molecule of its own.
std::vector<int> molecules_from_bonds(int natoms, const BondList& bonds);

/// Fills top.exclusion_offsets/exclusion_atoms (natoms = top.natoms()) with, for every atom, the
/// atoms at most `nrexcl` bonds away and itself, ascending. CHARMM force fields in GROMACS use
/// nrexcl = 3 (1-2, 1-3 and 1-4 pairs excluded from the non-bonded list).
void exclusions_from_bonds(Topology& top, const BondList& bonds, int nrexcl);

}  // namespace pairhist::analysis
