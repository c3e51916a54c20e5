// Reader for GROMACS .gro structure files, used as the topology (names, residues) and starting
// coordinates of a trajectory.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace pairhist::io {

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

/// Reads the first frame of a .gro file. Coordinate field widths are derived from the decimal
/// points of the first atom line, as GROMACS does, so higher-precision files are read exactly;
/// velocities are skipped. Anything after the box line (further frames) is ignored. Throws
/// InputError "path: line N: problem" for unreadable or malformed files.
Topology read_gro(const std::string& path);

}  // namespace pairhist::io
