// What a system's atoms are, as the topology readers (io/) fill it and the selections,
// exclusions and species (analysis/) use it: no file format here.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace pairhist::analysis {

struct Topology {
  std::vector<std::string> atom_names, residue_names;  // trimmed
  std::vector<int> residue_numbers;
  // Element symbols and atom types, only where the file states them (never guessed from names):
  // empty when the format has none; an empty entry marks one atom that lacks it.
  std::vector<std::string> elements, types;
  std::vector<float> xyz;  // natoms*3, nm
  // Box vectors as rows: a = box[0..2], b = box[3..5], c = box[6..8], nm (as TrajectoryFrame).
  std::array<float, 9> box{};
  std::string title;
  int natoms() const { return static_cast<int>(atom_names.size()); }
};

struct IndexGroups {
  std::string path;                     // for error messages
  std::vector<std::string> names;       // in file order
  std::vector<std::vector<int>> atoms;  // per group: 0-based atom indices, as listed

  /// The first group named `name` (GROMACS tolerates repeated names; the first one wins, as in
  /// gmx's own lookup by name), or nullptr.
  const std::vector<int>* find(const std::string& name) const;
};

}  // namespace pairhist::analysis
