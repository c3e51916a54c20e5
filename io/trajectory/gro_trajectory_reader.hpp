// Streaming reader for multi-frame .gro trajectories (gmx trjconv -o traj.gro): frames one after
// another, each a title line, an atom count, its atom lines and a box line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a .gro file frame by frame, one frame in memory (serially: a frame's atom lines are
/// found only by reading the frames before it). The lines are parsed as the GRO topology reader
/// parses them (io/topology/gro_lines.hpp): coordinates in fields whose width is given by the
/// decimal points of the frame's first atom line, velocities ignored, the box line's 3 or 9
/// numbers as GROMACS's box. Time and step come from GROMACS's "t= ... step= ..." in the title
/// line where present; otherwise time is 0 and step the frame index. Blank lines after the last
/// frame end the file. Not thread-safe; use one reader per thread.
class GroTrajectoryReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame to learn natoms (it is returned by the first next()).
  /// Throws InputError if the file cannot be opened, or its first frame is bad or holds no atom.
  explicit GroTrajectoryReader(const std::string& path);
  ~GroTrajectoryReader() override = default;

  GroTrajectoryReader(const GroTrajectoryReader&) = delete;
  GroTrajectoryReader& operator=(const GroTrajectoryReader&) = delete;

  int natoms() const override { return natoms_; }

  /// Reads the next frame into `frame`. Returns false at a clean end of file. Throws InputError
  /// ("path: frame K: line N: problem (last complete frame is K-1)") on malformed input, or a
  /// frame whose atom count differs from the first one; TruncatedFrame where the problem is that
  /// the file ends (the frame's lines run out, or its last line, without a newline, is cut).
  /// After a throw the reader stays failed.
  bool next(TrajectoryFrame& frame) override;

  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };

  // Fails at line_; a cut file where line_ is past the end or its last, unterminated line.
  [[noreturn]] void fail(const std::string& problem);
  // Next line without its line terminator into line_; false at the end of the file (line_number_
  // then counts the missing line, which errors name).
  bool read_line();
  // Parses one frame into `frame`. Returns false when only blank lines (or nothing) are left.
  // Errors are the text readers' (io/common/text_lines.hpp: line_error and its messages).
  bool parse_frame(TrajectoryFrame& frame);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  // getline's buffer; a member that frees itself, also when the constructor throws.
  struct LineBuffer {
    char* data = nullptr;
    size_t capacity = 0;
    LineBuffer() = default;
    LineBuffer(const LineBuffer&) = delete;
    LineBuffer& operator=(const LineBuffer&) = delete;
    ~LineBuffer();
  };
  LineBuffer buffer_;
  std::string_view line_;
  bool line_cut_ = false;  // line_ lies past the end of the file or has no newline: its last
  int64_t line_number_ = 0;
  int natoms_ = -1;  // unknown until the first frame has been parsed
  int64_t frames_read_ = 0;
  int64_t frames_parsed_ = 0;
  std::string error_;
  bool cut_ = false;  // error_ is the file ending inside the frame

  TrajectoryFrame first_;  // parsed by the constructor, handed out by the first next()
  bool first_pending_ = false;
};

}  // namespace pairhist::io
