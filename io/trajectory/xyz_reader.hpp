// Streaming reader for XYZ and extended XYZ trajectories (text; Angstrom).
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads multi-frame XYZ / extended XYZ frame by frame: an atom-count line, a comment line, then
/// one line per atom.
///
/// Comment line: parsed as extended-XYZ key=value pairs (values may be "quoted" or {braced}).
///  - Lattice="ax ay az bx by bz cx cy cz" (Angstrom) gives the box. GROMACS needs the
///    lower-triangular form (a along x, b in the xy plane); any other lattice is rotated into it
///    (reflected too when left-handed), and the coordinates with it, so every distance is kept
///    but the coordinates differ from the file's. A lattice already in that form is used as is.
///  - pbc="T T T" or no pbc key: periodic. pbc="F F F": no box even with a Lattice. Partly
///    periodic frames are refused (the histogram code knows only full 3D periodicity).
///  - Properties=name:type:count:... locates the species and position columns; without it the
///    columns are species x y z. Columns after the positions (forces, ...) are ignored.
/// Without a Lattice (plain XYZ) a frame has no box.
/// Units: Angstrom in the file, nm in frames. frame.step is the frame index, frame.time is 0
/// (XYZ has no standard time field). The last line of the file must end in a newline: a file cut
/// inside the last number cannot otherwise be told from a complete one.
class XyzReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first atom-count line. Throws InputError for a missing, empty or
  /// non-XYZ file.
  explicit XyzReader(const std::string& path);

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  /// As next(frame), also storing the species column (element names) in `species` if non-null.
  bool next(TrajectoryFrame& frame, std::vector<std::string>* species);
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }
  /// Comment line of the last frame read.
  const std::string& comment() const { return comment_; }

 private:
  // Fails at the line read last; a cut file where it is past the end or unterminated.
  [[noreturn]] void fail(const std::string& problem);
  // Next line without its newline; false at end of file. Sets last_had_newline_.
  bool read_line(std::string& line);
  // The steps of next(), in the order of a frame's lines:
  // The atom-count line (the constructor's, for the first frame); false at a clean end of file.
  bool read_atom_count();
  // Where the comment line's Properties put the coordinates and the species (-1: none).
  struct AtomColumns {
    int pos[3] = {-1, -1, -1};
    int species = -1;
    size_t count = 0;  // columns every atom line has at least
  };
  AtomColumns parse_properties(const std::string& properties);
  // Whether pbc (three flags) makes the frame periodic; partly periodic frames are refused.
  bool is_periodic(const std::string& pbc, const std::string& lattice);
  // The Lattice rows a, b, c (Angstrom) into `box`, in GROMACS's lower-triangular form; true
  // when that needed a rotation, whose rows `rot` then holds.
  bool parse_lattice(const std::string& lattice, std::array<double, 9>& box,
                     std::array<double, 9>& rot);
  // The atom lines into frame.xyz (nm; rotated by `rot` unless null) and `species` if non-null.
  void read_atom_lines(const AtomColumns& columns, const std::array<double, 9>* rot,
                       TrajectoryFrame& frame, std::vector<std::string>* species);

  std::string path_;
  std::ifstream in_;
  int natoms_ = 0;
  int64_t frames_read_ = 0;
  int64_t line_no_ = 0;
  bool last_had_newline_ = true;
  bool line_cut_ = false;      // the line read last lies past the end or has no newline
  bool cut_ = false;           // error_ is the file ending inside the frame
  bool have_pending_ = false;  // the constructor read the first atom-count line
  std::string pending_, line_, comment_, error_;
  std::vector<std::string> fields_;
};

/// Atom names and element symbols (both the species column) and coordinates of the first frame of
/// an (extended) XYZ file. Residue names are empty and residue numbers 0 (XYZ has no residues); box
/// and coordinates in nm as from XyzReader; title = the comment line.
Topology read_xyz_topology(const std::string& path);

}  // namespace pairhist::io
