#include "io/topology_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "io/cadishi_input.hpp"
#include "io/lammps_dump_reader.hpp"
#include "io/pdb_reader.hpp"
#include "io/xyz_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

Topology read_topology(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".gro") return read_gro(path);
  if (ext == ".pdb" || ext == ".ent") return read_pdb_topology(path);
  if (ext == ".xyz" || ext == ".extxyz") return read_xyz_topology(path);
  if (ext == ".lammpstrj" || ext == ".lammpsdump" || ext == ".dump")
    return read_lammps_dump_topology(path);
  if (!std::filesystem::exists(path)) throw InputError(path + ": no such file");
  if ((ext == ".h5" || ext == ".hdf5" || ext == ".hdf") && is_cadishi_input(path))
    return read_cadishi_topology(path);
  throw InputError(path + ": unknown topology format '" + ext +
                   "' (supported: .gro, .pdb, .xyz/.extxyz, .lammpstrj/.lammpsdump/.dump, "
                   "CADISHI .h5/.hdf5)");
}

bool carries_species(const std::string& trajectory) {
  std::string ext = std::filesystem::path(trajectory).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return (ext == ".h5" || ext == ".hdf5" || ext == ".hdf") && is_cadishi_input(trajectory);
}

}  // namespace pairhist::io
