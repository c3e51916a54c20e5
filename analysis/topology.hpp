// What a system's atoms are, as the topology readers (io/) fill it and the selections,
// exclusions and species (analysis/) use it: no file format here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/name_column.hpp"

namespace pairhist::analysis {

struct Topology {
  NameColumn atom_names, residue_names;  // trimmed
  std::vector<int> residue_numbers;
  // Element symbols and atom types, only where the file states them (never guessed from names
  // alone; a PSF's come from its masses, analysis/atom_masses.hpp): empty when the format has
  // none; an empty entry marks one atom that lacks it.
  NameColumn elements, types;
  // Segment identifiers (CHARMM/NAMD PSF segids): empty when the format has none.
  NameColumn segment_names;
  // Residue insertion codes ("A" of a PSF's resid "12A"): part of the residue's identity with
  // its number; empty when the format has none, "" for an atom whose residue has none.
  NameColumn insertion_codes;
  std::vector<float> xyz;  // natoms*3, nm
  // Box vectors as rows: a = box[0..2], b = box[3..5], c = box[6..8], nm (as TrajectoryFrame).
  std::array<float, 9> box{};
  std::string title;

  // What only a GROMACS run input (.tpr) states; empty from every other format.
  std::vector<int> molecule_index;  // per atom: 0-based molecule, in topology order
  // A PSF fills masses, charges, molecules (its bonds' connected atoms) and exclusions too.
  std::vector<float> masses, charges;  // per atom: u, e (state A)
  std::vector<int> atomic_numbers;     // per atom: 0 where the force field gives none
  // Bonded exclusions exactly as GROMACS lists them per atom (each list includes the atom
  // itself), as compressed rows so that 1e7 atoms cost 8 bytes per atom plus 4 per exclusion:
  // atom i excludes exclusion_atoms[exclusion_offsets[i] .. exclusion_offsets[i + 1]), ascending
  // 0-based indices. exclusion_offsets has natoms + 1 entries, or none.
  std::vector<int64_t> exclusion_offsets;
  std::vector<int> exclusion_atoms;

  bool has_exclusions() const { return !exclusion_offsets.empty(); }
  int natoms() const { return static_cast<int>(atom_names.size()); }
};

struct IndexGroups {
  std::string path;                     // for error messages
  std::vector<std::string> names;       // in file order
  std::vector<std::vector<int>> atoms;  // per group: 0-based atom indices, as listed

  /// The group `name` names, or nullptr: the first group of that name ignoring case (GROMACS
  /// tolerates repeated names; its own lookup by name ignores case and takes a whole-name match),
  /// else, when `name` is a plain number, the group of that 0-based number as gmx lists them.
  const std::vector<int>* find(const std::string& name) const;
};

/// Residue of every atom, numbered 0, 1, ... in file order: a residue is a maximal run of
/// consecutive atoms with the same residue number and name (and molecule, segment and insertion
/// code, where the topology has them), as GROMACS reads .gro/.pdb files (residue numbers wrap at
/// 99999 in .gro, so equal numbers far apart are different residues). Throws UsageError naming
/// `topology_path` and what needed them (`needed_for`, e.g. "--exclude residue") if the topology
/// carries no residues
/// (.xyz, LAMMPS).
std::vector<int> residue_of_atoms(const Topology& top, const std::string& topology_path,
                                  const std::string& needed_for);

}  // namespace pairhist::analysis
