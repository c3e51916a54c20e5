// What the AMBER NetCDF readers share: a frame's checks and conversions (Angstrom to nm, the
// unit cell to box vectors) and their one-line errors, and reading a frame's records straight
// from a NetCDF-3 file with pread, which threads may do at once (libnetcdf may not: Debian builds
// it without thread safety).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/trajectory/netcdf_extents.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// "path: frame F: problem (last complete frame is F-1)", or "(no complete frame)" for frame 0.
std::string amber_netcdf_frame_error(const std::string& path, int64_t frame,
                                     const std::string& problem);

/// Coordinates in Angstrom (3 per atom) into out.xyz in nm; the problem ("" if none).
std::string store_amber_coordinates(const std::vector<double>& angstrom, TrajectoryFrame& out);

/// cell_lengths (Angstrom) and cell_angles (degrees) into out.box (all zero: no box); the
/// problem ("" if none).
std::string store_amber_cell(const double lengths[3], const double angles[3], TrajectoryFrame& out);

/// Where a frame's values lie in an AMBER NetCDF-3 trajectory, for reading without libnetcdf.
struct AmberNetcdfLayout {
  NetcdfVariableExtent coordinates, lengths, angles, time;
  bool has_box = false, has_time = false;
  int64_t record_bytes = 0;
  int64_t frame_end = 0;  // the byte past frame 0's values; frame f's is this + f * record_bytes
};

/// The layout of `extents` for `natoms` atoms, where every value a frame reads is a float or
/// double record variable of the expected size; false otherwise (the libnetcdf reader then reads).
bool amber_netcdf_layout(const NetcdfExtents& extents, int64_t natoms, AmberNetcdfLayout& out);

/// Reads frames with pread from a file descriptor; const, so that threads share it.
class AmberNetcdfRecords {
 public:
  /// Opens `path`; throws InputError where it cannot.
  AmberNetcdfRecords(const std::string& path, const AmberNetcdfLayout& layout, int64_t file_size);
  ~AmberNetcdfRecords();
  AmberNetcdfRecords(const AmberNetcdfRecords&) = delete;
  AmberNetcdfRecords& operator=(const AmberNetcdfRecords&) = delete;

  /// Frame `f` into `out`, with the checks and messages of AmberNetcdfReader (throw_frame_error:
  /// TruncatedFrame where the file ends before its bytes). `bytes` and `values` are scratch.
  void read(int64_t f, TrajectoryFrame& out, std::vector<unsigned char>& bytes,
            std::vector<double>& values) const;

 private:
  // Variable `v` of frame `f` as doubles into `values`; false on a read error.
  bool read_values(const NetcdfVariableExtent& v, int64_t f, std::vector<unsigned char>& bytes,
                   std::vector<double>& values) const;

  std::string path_;
  AmberNetcdfLayout layout_;
  int64_t file_size_ = 0;
  int fd_ = -1;
};

}  // namespace pairhist::io
