// Streaming reader for LAMMPS text dumps (dump atom/custom: ITEM: TIMESTEP / NUMBER OF ATOMS /
// BOX BOUNDS / ATOMS blocks).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a LAMMPS text dump frame by frame.
///
/// Coordinates: the first available of the column triples x y z, xu yu zu, xs ys zs, xsu ysu zsu;
/// scaled ones are converted with the frame's box (tilts included). Coordinates keep LAMMPS's
/// origin (xlo, ylo, zlo); only differences matter for periodic distances.
/// Atoms are sorted by the id column so that atom k is the same atom in every frame, whatever
/// order the dump wrote them in; every frame must hold the same ids. Without an id column the
/// file order is kept.
/// Box: "BOX BOUNDS pp pp pp" gives an orthogonal box; "BOX BOUNDS xy xz yz ..." a triclinic one,
/// whose bounding-box bounds are converted back to a = (lx,0,0), b = (xy,ly,0), c = (xz,yz,lz):
/// LAMMPS's restricted triclinic form is already GROMACS's lower-triangular form. All boundaries
/// non-periodic = no box; mixed periodic and non-periodic boundaries are refused. LAMMPS's
/// general triclinic dumps ("abc origin") are refused.
/// Units: a dump does not say its units unless written with `dump_modify units yes`; lengths
/// are taken as Angstrom (units real or metal) and converted to nm. An "ITEM: UNITS" other than
/// real or metal is refused. "ITEM: TIME" (dump_modify time yes) gives frame.time in ps when the
/// units are known (real: fs, metal: ps), otherwise time is 0. frame.step is the TIMESTEP.
/// The last line of the file must end in a newline (see XyzReader).
class LammpsDumpReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame (to learn natoms). Throws InputError for a missing
  /// file, a file that is not a LAMMPS dump, or a damaged first frame.
  explicit LammpsDumpReader(const std::string& path);

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  /// As next(frame), also storing the type column (sorted by id; "" without one) in `types`.
  bool next(TrajectoryFrame& frame, std::vector<std::string>* types);
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  // Fails at the line read last; a cut file where it is past the end or unterminated.
  [[noreturn]] void fail(const std::string& problem);
  bool read_line(std::string& line);
  // Reads one frame into pending_/types_ ; false at a clean end of file. Its steps, in the
  // order of a dump's items:
  bool read_frame();
  // The next non-blank line, split into fields_, must hold a value (`what` names it).
  void read_value_line(const char* what);
  // ITEM: TIMESTEP and its value; false at a clean end of file.
  bool read_timestep(TrajectoryFrame& frame);
  // The optional ITEM: UNITS and ITEM: TIME, up to ITEM: NUMBER OF ATOMS.
  void read_time_and_units(TrajectoryFrame& frame);
  // The atom count, the same in every frame.
  void read_atom_count();
  // The cell as the dump states it (Angstrom), undone from its bounding box for triclinic cells.
  struct DumpBox {
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    double tilt[3] = {0, 0, 0};    // xy, xz, yz
    double length[3] = {0, 0, 0};  // lx, ly, lz
  };
  // ITEM: BOX BOUNDS and its three lines; sets frame.box (nm; zero without a periodic box).
  DumpBox read_box_bounds(TrajectoryFrame& frame);
  // Where ITEM: ATOMS puts the id, the type and the coordinates (-1: no such column).
  struct AtomColumns {
    int id = -1, type = -1;
    int pos[3] = {-1, -1, -1};
    bool scaled = false;  // xs ys zs or xsu ysu zsu: fractions of the box
    size_t count = 0;     // columns on every atom line
  };
  AtomColumns read_atoms_header();
  // The atom lines into ids_, raw_ (Angstrom) and raw_types_, in file order.
  void read_atom_lines(const AtomColumns& columns, const DumpBox& box);
  // order_: the atoms sorted by id; the ids must be unique and those of the first frame.
  void sort_atoms_by_id();
  // The atoms in id order into frame.xyz (nm) and types_.
  void store_sorted_atoms(TrajectoryFrame& frame);

  std::string path_;
  std::ifstream in_;
  int natoms_ = -1;
  int64_t frames_parsed_ = 0;  // frames decoded (one ahead of frames_read_ after construction)
  int64_t frames_read_ = 0;
  int64_t line_no_ = 0;
  bool last_had_newline_ = true;
  bool line_cut_ = false;  // the line read last lies past the end or has no newline
  bool cut_ = false;       // error_ is the file ending inside the frame
  bool have_pending_ = false;
  std::string line_, error_, units_;
  std::vector<std::string> fields_;
  TrajectoryFrame pending_;
  std::vector<std::string> types_;
  std::vector<int64_t> first_ids_;  // sorted ids of the first frame
  // Scratch for one frame: per input line its id, position and type index.
  std::vector<int64_t> ids_;
  std::vector<double> raw_;
  std::vector<std::string> raw_types_;
  std::vector<size_t> order_;
};

/// Atom "names" and types = LAMMPS type numbers as strings (no elements), sorted by atom id, with
/// the coordinates and box of the first frame (nm). Residue names are empty and residue numbers 0.
Topology read_lammps_dump_topology(const std::string& path);

}  // namespace pairhist::io
