// Which element or ion scatters in each species: from the topology's elements (a .tpr's atomic
// numbers, a PDB element column, an XYZ species column), from what the user sets, or guessed from
// atom names (and said so). Monatomic ions get their ionic X-ray form factor.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/scattering_factors.hpp"
#include "analysis/topology.hpp"

namespace pairhist::analysis {

struct ScattererAssignment {
  std::vector<SpeciesScatterer> species;  // one per species, in the order given
  std::vector<std::string> guesses;       // "OW -> O" for each distinct guess from a name
};

/// The element guessed from an atom name (and its residue name): the leading letters of the
/// name after any digits; a two-letter symbol when the residue has the same name (ions: NA in
/// residue NA is sodium, CA in residue ALA is carbon), the CHARMM ion names SOD, POT, CLA, CAL,
/// else the first letter. "" when that is no element of the built-in tables (a virtual site
/// such as TIP4P's MW).
std::string guess_element(const std::string& atom_name, const std::string& residue_name);

/// Per species s (names[s], atoms species_atoms[s] of `top`): the label `explicit_labels` gives
/// for its name, else the one element all its atoms have (topology elements where the file
/// states them, else guessed). A monatomic ion (its molecule, or without molecules its residue,
/// is the one atom) gets its charge: the topology's integer charge where it has charges, else the
/// usual one of Li, Na, K, Rb, Cs (1+), Mg, Ca, Zn (2+), F, Cl, Br, I (1-). Throws UsageError
/// naming the species for one whose atoms are of several elements (scattering refuses an
/// average: one species per element), for an atom whose element cannot be guessed, and for an
/// explicit label that is not an element or ion symbol. Marks a species `water` where every atom
/// of it is in a residue water_residue() names (not for one with an explicit label). Reads the
/// atoms over the cores (parallel_for.hpp), a few nanoseconds each: what is worked out per atom is
/// worked out once per kind of atom.
ScattererAssignment assign_scatterers(const Topology& top, const std::vector<std::string>& names,
                                      const std::vector<std::vector<int>>& species_atoms,
                                      const std::map<std::string, std::string>& explicit_labels);

}  // namespace pairhist::analysis
