// Atom masses for centres of mass: a .tpr's own, else from the element of each atom (where the
// file states it, else guessed from its name as scattering guesses it, and said so), as gmx guesses
// masses for a .gro or .pdb topology.
#pragma once

#include <string>
#include <vector>

#include "analysis/topology.hpp"

namespace pairhist::analysis {

struct AtomMasses {
  std::vector<double> mass;          // per atom of the topology (u); 0 for atoms not asked for
  std::vector<std::string> guesses;  // "OW -> O" for each distinct guess from a name
};

/// The symbol of the element with atomic number `z` ("O" for 8), "" outside 1..118 (extra
/// points, virtual sites: GROMACS and AMBER write -1 or 0 there).
const char* element_symbol(long long z);

/// The atomic number of an element symbol as element_symbol writes it, 0 for "" or an unknown one.
int atomic_number(const std::string& symbol);

/// The standard atomic weight of an element symbol ("O", "Na", case as written), 0 if unknown.
double element_mass(const std::string& symbol);

/// The element whose standard atomic weight (element_mass) lies within 0.1 u of `mass`, or ""
/// where none does (lone pairs and Drude particles, repartitioned hydrogen masses, deuterium):
/// how the elements of a topology that states masses but no elements (PSF) are found.
std::string element_of_mass(double mass);

/// Masses of `atoms` (indices of `top`): top.masses where the topology has them, else from
/// the elements. Throws UsageError naming `topology_path` and the atom when its element is
/// unknown or cannot be guessed (a virtual site such as TIP4P's MW).
AtomMasses atom_masses(const Topology& top, const std::vector<int>& atoms,
                       const std::string& topology_path);

}  // namespace pairhist::analysis
