#include "io/trajectory/trajectory_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "io/common/input_path.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/amber_mdcrd_reader.hpp"
#include "io/trajectory/amber_netcdf_reader.hpp"
#include "io/trajectory/cadishi_input.hpp"
#include "io/trajectory/dcd_reader.hpp"
#include "io/trajectory/g96_reader.hpp"
#include "io/trajectory/gro_trajectory_reader.hpp"
#include "io/trajectory/h5md_reader.hpp"
#include "io/trajectory/lammps_dump_reader.hpp"
#include "io/trajectory/pdb_reader.hpp"
#include "io/trajectory/structure_frame_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "io/trajectory/trr_reader.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "io/trajectory/xyz_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

namespace {

/// An .mdcrd reader with the atom count (and a truncated octahedron's angles) of the topology
/// stated for the file; without one, the reader's own message asks for it.
std::unique_ptr<TrajectoryReader> open_amber_mdcrd(const std::string& path) {
  const std::string topology = trajectory_topology(path);
  if (topology.empty()) return std::make_unique<AmberMdcrdReader>(path);
  const Topology top = read_topology(topology, TopologyContent::names);
  std::array<double, 9> box;
  for (size_t k = 0; k < 9; ++k) box[k] = top.box[k];
  const auto cell = cell_from_box(box);
  std::array<double, 3> angles{90, 90, 90};
  if (cell[0] > 0) angles = {cell[3], cell[4], cell[5]};
  return std::make_unique<AmberMdcrdReader>(path, top.natoms(), angles);
}

}  // namespace

std::unique_ptr<TrajectoryReader> open_trajectory(const std::string& path) {
  require_input_file(path);  // a directory, FIFO or device named as such
  const std::string ext = lower_extension(path);
  if (ext == ".xtc") return std::make_unique<XtcReader>(path);
  if (ext == ".trr") return std::make_unique<TrrReader>(path);
  if (ext == ".pdb" || ext == ".ent") return std::make_unique<PdbReader>(path);
  if (ext == ".gro") return std::make_unique<GroTrajectoryReader>(path);
  if (ext == ".g96") return std::make_unique<G96Reader>(path);
  if (ext == ".tpr") return std::make_unique<StructureFrameReader>(path);
  if (ext == ".dcd") return std::make_unique<DcdReader>(path);
  if (ext == ".xyz" || ext == ".extxyz") return std::make_unique<XyzReader>(path);
  if (ext == ".lammpstrj" || ext == ".lammpsdump" || ext == ".dump")
    return std::make_unique<LammpsDumpReader>(path);
  if (ext == ".nc" || ext == ".ncdf" || ext == ".ncrst")
    return std::make_unique<AmberNetcdfReader>(path);
  if (ext == ".mdcrd" || ext == ".crd") return open_amber_mdcrd(path);
  if (ext == ".rst7" || ext == ".inpcrd" || ext == ".restrt")
    return std::make_unique<AmberRestartReader>(path);
  if (ext == ".h5md") return std::make_unique<H5mdReader>(path);
  if (ext == ".h5" || ext == ".hdf5" || ext == ".hdf") {
    // Both HDF5 layouts use these extensions; H5MD files have /h5md and /particles.
    if (is_cadishi_input(path)) return std::make_unique<CadishiReader>(path);
    return std::make_unique<H5mdReader>(path);
  }
  throw InputError(
      path + ": unknown trajectory format '" + ext +
      "' (supported: .xtc, .trr, .pdb, .gro, .g96, .tpr (one frame), .dcd, .xyz/.extxyz, "
      ".lammpstrj/.lammpsdump/.dump, .h5md, .h5/.hdf5 (CADISHI or H5MD), AMBER .nc/.ncdf/.ncrst, "
      ".mdcrd/.crd, .rst7/.inpcrd/.restrt)");
}

}  // namespace pairhist::io
