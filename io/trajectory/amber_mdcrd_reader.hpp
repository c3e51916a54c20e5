// AMBER's ASCII coordinates: trajectories (.mdcrd, .crd: a title line, then per frame 3N values
// in 10F8.3 and, in periodic runs, a box line) and restarts (.rst7, .inpcrd, .restrt: title,
// atom count and time, 6F12.7 coordinates, optional velocities and box line). Angstrom -> nm.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads an .mdcrd trajectory. The format states no atom count: it comes from `natoms`, or,
/// where that is 0, from the topology stated for the file (state_trajectory_topology). Whether
/// frames carry a box line is decided at the first frame (a line of 3 or 6 values after its 3N
/// coordinates); a box line of three lengths takes its angles from that topology's box (a
/// truncated octahedron's), else 90 degrees. Lines with REMD headers (replica exchange) are
/// passed over.
class AmberMdcrdReader : public TrajectoryReader {
 public:
  explicit AmberMdcrdReader(const std::string& path, int natoms = 0,
                            std::array<double, 3> topology_angles = {90, 90, 90});
  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }
  bool has_box() const { return has_box_ == 1; }

 private:
  [[noreturn]] void fail(const std::string& problem, bool cut = false);
  bool get_line(std::string& line);  // false at the end of the file
  bool read_frame(TrajectoryFrame& frame);

  std::string path_;
  std::ifstream in_;
  int natoms_ = 0;
  std::array<double, 3> angles_;
  int has_box_ = -1;  // -1: not decided before the first frame
  int64_t line_no_ = 0, frames_read_ = 0;
  bool had_newline_ = true, peeked_ = false;
  std::string peek_, error_;
  bool cut_ = false;
  std::vector<double> values_;
};

/// Reads an ASCII restart (.rst7, .inpcrd, .restrt): one frame.
class AmberRestartReader : public TrajectoryReader {
 public:
  explicit AmberRestartReader(const std::string& path);
  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override { return delivered_ ? 1 : 0; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int natoms_ = 0;
  TrajectoryFrame frame_;
  bool delivered_ = false;
};

}  // namespace pairhist::io
