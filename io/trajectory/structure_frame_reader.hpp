// A structure file read as a trajectory of one frame: a GROMACS run input (.tpr) holds the
// coordinates and box it starts from, which gmx's tools take as the frames when no -f is given.
#pragma once

#include <string>

#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// The coordinates and box of a topology file that holds them (read_topology: .tpr) as frame 0,
/// at time 0, step 0. Throws InputError when the file holds no coordinates.
class StructureFrameReader : public TrajectoryReader {
 public:
  explicit StructureFrameReader(const std::string& path);

  int natoms() const override { return static_cast<int>(frame_.xyz.size() / 3); }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  TrajectoryFrame frame_;
  int64_t frames_read_ = 0;
};

}  // namespace pairhist::io
