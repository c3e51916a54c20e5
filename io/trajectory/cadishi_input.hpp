// CADISHI's HDF5 trajectory layout (seed 000; what its md2h5 conversion and Capriqorn write):
//
//   /<frame>/coordinates/<species>   float64 (n, 3), Angstrom
//   /<frame>/dimensions              optional: (a, b, c, alpha, beta, gamma), Angstrom and
//                                    degrees, as MDAnalysis reports a cell; also accepted, as
//                                    CADISHI does: (a, b, c) orthorhombic or a 3 x 3 matrix of
//                                    box vectors as rows. Missing, empty or all-zero: no box.
//
// Such a file carries its own species, so it serves as trajectory and topology at once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/hdf5/hdf5_util.hpp"
#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// True when `path` is an HDF5 file in CADISHI's input layout rather than H5MD (no /particles
/// or /h5md group). Does not validate the frames. Throws InputError for an HDF5 file that cannot
/// be opened, or whose structure the HDF5 library cannot walk without crashing
/// (io/hdf5/hdf5_probe.hpp).
bool is_cadishi_input(const std::string& path);

/// Reads a CADISHI HDF5 trajectory frame by frame. Frames are the top-level groups whose names
/// are non-negative integers, in numeric order (other top-level names are skipped, as CADISHI
/// does); frame.step is that number, frame.time 0. Atoms are the species' coordinate sets
/// concatenated in sorted species-name order (CADISHI's order), so atom i of every frame is the
/// same particle as long as every frame has the same species with the same counts, which is
/// checked. Units: CADISHI is unit-agnostic but its MDAnalysis-based conversion writes
/// Angstrom, and its r_max is given in Angstrom; coordinates and box are read as Angstrom and
/// converted to nm.
class CadishiReader : public TrajectoryReader {
 public:
  explicit CadishiReader(const std::string& path);

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

  /// Species names (sorted) and atoms per species, from the first frame.
  const std::vector<std::string>& species() const { return species_; }
  const std::vector<int64_t>& species_counts() const { return counts_; }
  /// Frame group names, in reading order.
  const std::vector<int64_t>& frame_numbers() const { return frames_; }

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void frame_fail(const std::string& problem);
  // The steps of next(), for the frame's group: every species' coordinates (Angstrom) into
  // frame.xyz (nm), species by species, each as large as in the first frame.
  void read_species_coordinates(hid_t coords, TrajectoryFrame& frame);
  // The optional dimensions dataset (a cell, three lengths or a 3 x 3 matrix, Angstrom) into
  // frame.box (nm; zero without one).
  void read_dimensions(hid_t group, TrajectoryFrame& frame);

  std::string path_;
  H5Handle file_;
  std::vector<int64_t> frames_;
  std::vector<std::string> names_;  // group names (a number, perhaps with leading zeros)
  std::vector<std::string> species_;
  std::vector<int64_t> counts_;
  int natoms_ = 0;
  int64_t frames_read_ = 0;
  std::vector<double> buf_;
};

/// The topology of a CADISHI file: one atom per particle of the first frame, named by its
/// species (residue names empty, residue numbers 0), with that frame's coordinates and box.
Topology read_cadishi_topology(const std::string& path);

}  // namespace pairhist::io
