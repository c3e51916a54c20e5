// Streaming reader for H5MD trajectories (HDF5, h5md.nongnu.org), as written by MDAnalysis,
// GROMACS, LAMMPS and others.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_util.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads /particles/<group>/position of an H5MD file one frame (one hyperslab of the value
/// dataset) at a time; the file must have exactly one particles group with positions.
///
///  - position/value (frames x N x 3, any float type); position/step and position/time either
///    one entry per frame or a scalar (fixed interval, optional `offset` attribute); without
///    them step = frame index and time = 0. Time units ps, fs, ns or AKMA (converted to ps).
///  - box: attribute `dimension` must be 3; `boundary` all "periodic" (a box) or all "none"
///    (no box; edges ignored); mixed boundaries are refused. `edges` is either a group with a
///    per-frame `value` dataset (frames x 3 for a rectangular box, frames x 3 x 3 with the box
///    vectors as rows) or a fixed dataset (3 or 3 x 3).
///  - Length units from the `unit` attribute of position/value and of the edges: nm, Angstrom
///    (also "A", "angstrom") or pm, converted to nm; no attribute means nm.
/// Errors are InputError "path: frame K: problem" (or "path: problem" for the layout).
class H5mdReader : public TrajectoryReader {
 public:
  explicit H5mdReader(const std::string& path);

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

  /// Frames in the file (the first extent of position/value).
  int64_t frame_count() const { return nframes_; }
  /// Name of the particles group read.
  const std::string& group() const { return group_; }

 private:
  enum class BoxSource { none, fixed, per_frame };
  // A step or time element: a per-frame dataset, a fixed interval, or absent.
  struct Sampling {
    H5Handle dataset;
    bool per_frame = false;
    double interval = 0, offset = 0, scale = 1;
    bool present = false;
  };

  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void frame_fail(const std::string& problem);
  void open_sampling(hid_t element, const char* name, Sampling& s, bool is_time);
  double sample(Sampling& s, int64_t frame);
  void open_box(hid_t particles);

  std::string path_, group_;
  H5Handle file_, value_;
  Sampling step_, time_;
  BoxSource box_source_ = BoxSource::none;
  H5Handle edges_;
  bool edges_matrix_ = false;  // 3x3 per frame (else a 3-vector)
  double edges_scale_ = 1;
  std::array<float, 9> fixed_box_{};
  double length_scale_ = 1;  // file unit -> nm
  int natoms_ = 0;
  int64_t nframes_ = 0, frames_read_ = 0;
  std::vector<double> buf_;
};

}  // namespace pairhist::io
