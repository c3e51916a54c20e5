#include "io/topology/topology_reader.hpp"

#include <algorithm>
#include <filesystem>

#include "io/common/input_path.hpp"
#include "io/topology/parm7_reader.hpp"
#include "io/topology/psf_reader.hpp"
#include "io/topology/tpr_reader.hpp"
#include "io/trajectory/cadishi_input.hpp"
#include "io/trajectory/g96_reader.hpp"
#include "io/trajectory/lammps_dump_reader.hpp"
#include "io/trajectory/pdb_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/trajectory/xyz_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

Topology read_topology(const std::string& path, TopologyContent content) {
  require_input_file(path);  // a directory, FIFO or device named as such
  const std::string ext = lower_extension(path);
  if (ext == ".gro") return read_gro(path, content);
  if (ext == ".g96") return read_g96_topology(path, content);
  if (ext == ".tpr") return read_tpr(path);
  if (ext == ".parm7" || ext == ".prmtop" || (ext == ".top" && is_parm7(path)))
    return read_parm7(path);
  if (ext == ".psf") return read_psf(path);
  if (ext == ".pdb" || ext == ".ent") return read_pdb_topology(path);
  if (ext == ".xyz" || ext == ".extxyz") return read_xyz_topology(path);
  if (ext == ".lammpstrj" || ext == ".lammpsdump" || ext == ".dump")
    return read_lammps_dump_topology(path);
  if ((ext == ".h5" || ext == ".hdf5" || ext == ".hdf") && is_cadishi_input(path))
    return read_cadishi_topology(path);
  throw InputError(
      path + ": unknown topology format '" + ext +
      "' (supported: .gro, .g96, .tpr, .pdb, .xyz/.extxyz, .lammpstrj/.lammpsdump/.dump, "
      "CADISHI .h5/.hdf5, AMBER .parm7/.prmtop, CHARMM/NAMD/X-PLOR .psf" +
      std::string(ext == ".top"
                      ? "; a GROMACS .top is not read: give the .tpr gmx grompp makes of it"
                      : "") +
      ")");
}

bool has_default_groups(const std::string& path) {
  return lower_extension(path) == ".tpr";
}

IndexGroups read_default_groups(const std::string& path) {
  if (has_default_groups(path)) return read_tpr_default_groups(path);
  throw InputError(path + ": this topology format has no default index groups");
}

bool carries_species(const std::string& trajectory) {
  const std::string ext = lower_extension(trajectory);
  return (ext == ".h5" || ext == ".hdf5" || ext == ".hdf") && is_cadishi_input(trajectory);
}

}  // namespace pairhist::io
