// AMBER NetCDF trajectories (.nc, .ncdf: Conventions "AMBER") and restarts (.ncrst:
// "AMBERRESTART") through libnetcdf (ambermd.org/netcdf/nctraj.xhtml).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads the frames of an AMBER NetCDF file: coordinates (frame, atom, spatial) in Angstrom
/// (float in trajectories, double in restarts, either accepted) converted to nm; cell_lengths
/// and cell_angles (Angstrom, degrees) to GROMACS's box vectors, the box kind following from the
/// angles; time in ps. Velocities and forces are ignored. A restart is one frame.
///
/// Frames are addressed by index, so a chooser (choose_frames: --first/--skip, the frames of
/// other ranks) passes over frames without reading them. libnetcdf reads a NetCDF-3 file cut
/// short as zeros, so before a frame is read its bytes are checked against the file's size (the
/// variables' offsets come from the header): a frame beyond the end is a TruncatedFrame.
/// Not thread-safe; use one reader per thread.
class AmberNetcdfReader : public TrajectoryReader {
 public:
  /// Opens `path`; throws InputError ("path: problem") when it is not an AMBER NetCDF file.
  explicit AmberNetcdfReader(const std::string& path);
  ~AmberNetcdfReader() override;
  AmberNetcdfReader(const AmberNetcdfReader&) = delete;
  AmberNetcdfReader& operator=(const AmberNetcdfReader&) = delete;

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }
  bool choose_frames(FrameChooser chooser) override;
  bool chooses_frames() const override { return static_cast<bool>(chooser_); }

  /// Frames the header declares (1 for a restart).
  int64_t frames() const { return frames_; }
  bool is_restart() const { return restart_; }
  bool has_box() const { return lengths_var_ >= 0; }

 private:
  [[noreturn]] void fail(int64_t frame, const std::string& problem, bool cut = false);
  void check_header();
  void check_frame_in_file(int64_t frame);
  void read_frame(int64_t frame, TrajectoryFrame& out);
  void read_cell(int64_t frame, TrajectoryFrame& out);

  std::string path_;
  int ncid_ = -1;
  bool restart_ = false;
  int natoms_ = 0;
  int64_t frames_ = 0;
  int coords_var_ = -1, lengths_var_ = -1, angles_var_ = -1, time_var_ = -1;
  // Byte extents of what a frame reads, from the file's header (NetCDF-3 only; -1: unknown).
  int64_t file_size_ = 0, record_bytes_ = 0, frame_end_ = -1;
  int64_t frames_read_ = 0;
  FrameChooser chooser_;
  std::string error_;
  bool cut_ = false;
  std::vector<double> buffer_;
};

}  // namespace pairhist::io
