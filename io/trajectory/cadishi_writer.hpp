// Writes trajectories in CADISHI's HDF5 input layout (see cadishi_input.hpp), atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/common/atomic_file.hpp"
#include "io/hdf5/hdf5_util.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Frame by frame: /<number>/coordinates/<species> float64 (n, 3) in Angstrom and, for frames
/// with a box, /<number>/dimensions (a, b, c, alpha, beta, gamma) in Angstrom and degrees, as
/// CADISHI's MDAnalysis-based conversion writes them. The file appears under `path` only when
/// close() succeeds; destroying the writer without close() leaves nothing behind.
class CadishiWriter {
 public:
  /// `species` names (valid HDF5 link names: non-empty, no '/', not "."), each with the atom
  /// indices (into frame.xyz) it holds. Throws UsageError for bad names, OutputError if the file
  /// cannot be created.
  CadishiWriter(std::string path, std::vector<std::string> species,
                std::vector<std::vector<int>> atoms);
  ~CadishiWriter();
  CadishiWriter(const CadishiWriter&) = delete;
  CadishiWriter& operator=(const CadishiWriter&) = delete;

  /// Writes `frame` (nm) as group `number`. Throws OutputError on failure or a repeated number.
  void write(int64_t number, const TrajectoryFrame& frame);
  void close();
  int64_t frames_written() const { return frames_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;

  AtomicOutput output_;
  std::vector<std::string> species_;
  std::vector<std::vector<int>> atoms_;
  H5Handle file_;
  int64_t frames_ = 0;
  bool closed_ = false;
  std::vector<double> buf_;
};

}  // namespace pairhist::io
