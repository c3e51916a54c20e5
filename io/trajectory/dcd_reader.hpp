// Streaming reader for CHARMM/NAMD DCD trajectories (Fortran unformatted records, float32
// coordinates in Angstrom, either byte order).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/common/xdr_stream.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a DCD file frame by frame.
///
/// Units: DCD stores Angstrom; coordinates and box are converted to nm. The time step is stored in
/// AKMA units (48.88821 fs); frame.step = ISTART + k * NSAVC and frame.time = step * DELTA in ps.
///
/// Unit cell: CHARMM-style files carry 6 doubles per frame in the slots A, gamma, B, beta, alpha,
/// C, read as MDAnalysis reads them: the angles as cosines when all three lie in [-1, 1] (NAMD >=
/// 2.5; CHARMM's orthorhombic cells), CHARMM's symmetric shape matrix (h11, h21, h22, h31, h32,
/// h33; CHARMM c36's triclinic cells) when a slot is negative or above 180, else degrees (NAMD
/// 2.5, VMD, MDAnalysis) unless they form no cell and the shape matrix does (dcd_reader.cpp).
/// A shape matrix's edges are in the coordinates' frame: the frame's coordinates are rotated
/// into the lower-triangular box's frame with it (distances unchanged, periodic images right).
/// The cell is turned into GROMACS's lower-triangular box vectors; a cell with all lengths zero
/// means "no box". X-PLOR files (no CHARMM version number)
/// have no unit cell and give no box.
///
/// The frame count in the header (NSET) is not trusted (NAMD updates it only at the end, crashed
/// runs leave it stale); frames are read until the end of the file. Files with fixed atoms
/// (NAMNF > 0: later frames store only the free atoms) and 64-bit record markers are refused.
/// Not thread-safe; use one reader per thread.
class DcdReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the header records. Throws InputError if the file cannot be opened or
  /// the header is not a valid, supported DCD header.
  explicit DcdReader(const std::string& path);
  ~DcdReader() override;

  DcdReader(const DcdReader&) = delete;
  DcdReader& operator=(const DcdReader&) = delete;
  DcdReader(DcdReader&&) noexcept;
  DcdReader& operator=(DcdReader&&) noexcept;

  int natoms() const override { return natoms_; }

  /// Reads the next frame into `frame`. Returns false when the file ends exactly after a frame.
  /// Throws InputError ("path: frame K: problem (last complete frame is K-1)") on truncation or
  /// corrupt record markers; after a throw the reader stays failed.
  bool next(TrajectoryFrame& frame) override;

  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

  /// True when the file was written in the other byte order than this machine's.
  bool byte_swapped() const { return swap_; }
  /// Whether frames carry a unit cell record.
  bool has_unit_cell() const { return has_cell_; }
  /// The title lines of the header (trailing blanks removed).
  const std::vector<std::string>& titles() const { return titles_; }

 private:
  // `cut`: the file ends inside the frame or header (TruncatedFrame).
  [[noreturn]] void fail(const std::string& problem, bool cut = false);
  [[noreturn]] void header_fail(const std::string& problem, bool cut = false) const;
  // Reads up to n bytes, returning how many arrived; fails on a read error.
  size_t read_bytes(void* dst, size_t n);
  int32_t to_int(const unsigned char* p) const;
  // Reads one whole Fortran record of the header; checks both markers.
  std::vector<unsigned char> read_header_record(const char* what);
  // The header's records, in file order (the third, the atom count, is the constructor's): the
  // control record (byte order, CORD, start step, stride, time step, cell and 4D flags) ...
  void read_control_record();
  // ... and the title lines.
  void read_title_record();
  // Checks the Fortran record markers (both `size`) around the record at `at` of buf_.
  void check_record(size_t at, size_t size, const char* what);
  // The frame's unit cell record (a, gamma, b, beta, alpha, c in Angstrom and degrees or
  // cosines) into frame.box (nm; zero for an all-zero cell).
  void read_unit_cell(TrajectoryFrame& frame);
  // Turns the frame's coordinates into the box's frame where its cell was a shape matrix.
  void rotate_coordinates(TrajectoryFrame& frame) const;

  std::string path_;
  xdr::InputFile file_;
  bool swap_ = false;
  bool has_cell_ = false;
  bool has_4d_ = false;
  int natoms_ = 0;
  int64_t istart_ = 0, nsavc_ = 1;
  double delta_ps_ = 0;
  std::vector<std::string> titles_;
  int64_t frames_read_ = 0;
  std::string error_;
  bool cut_ = false;                // it failed where the file ends inside the frame
  std::vector<unsigned char> buf_;  // one whole frame, as stored
  bool rotated_ = false;            // this frame's coordinates need rotation_ (shape matrix)
  std::array<double, 9> rotation_{};
};

}  // namespace pairhist::io
