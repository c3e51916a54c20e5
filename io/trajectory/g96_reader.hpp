// GROMACS/GROMOS-96 .g96 files: a streaming trajectory reader (gmx trjconv -o traj.g96) and the
// topology (atom and residue names) of the first frame of a structure (gmx editconf -o conf.g96,
// gmx trjconv -dump), one parser for both.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a .g96 file frame by frame, one frame in memory (serially: the file has no index). The
/// file is a sequence of blocks, each a name line and its lines up to an END line; lines starting
/// with '#' are comments. A frame is TITLE (optional), TIMESTEP (optional: "step time"; else the
/// title's "t= ... step= ...", else time 0 and step the frame index), POSITION (per atom: residue
/// number, residue name, atom name, atom number in columns 1-24, then x y z in nm) or POSITIONRED
/// (x y z only), VELOCITY/VELOCITYRED (skipped) and BOX (3 numbers, or 9 in GROMACS's order xx yy
/// zz xy xz yx yz zx zy), which ends the frame. Numbers are read as GROMACS reads them (fields of
/// at most 15 characters after blanks, through double, rounded to float). Other blocks (GROMOS's)
/// are skipped. Every frame needs its BOX, as every .gro frame its box line: GROMACS writes one
/// with each, and a file cut between a frame's positions and its box must not pass for a frame
/// without periodic boundaries. Not thread-safe; use one reader per thread.
class G96Reader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame to learn natoms (it is returned by the first next()).
  /// Throws InputError if the file cannot be opened, or its first frame is bad or holds no atom.
  explicit G96Reader(const std::string& path);
  ~G96Reader() override;

  G96Reader(const G96Reader&) = delete;
  G96Reader& operator=(const G96Reader&) = delete;

  int natoms() const override { return natoms_; }

  /// Reads the next frame into `frame`. Returns false at a clean end of file (a cut that falls
  /// between two frames cannot be told from one). Throws InputError ("path: frame K: line N:
  /// problem (last complete frame is K-1)") on malformed input, or a frame whose atom count
  /// differs from the first one; TruncatedFrame where the problem is that the file ends (its
  /// lines run out, or its last line, without a newline, is cut). After a throw the reader stays
  /// failed.
  bool next(TrajectoryFrame& frame) override;

  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  friend Topology read_g96_topology(const std::string& path, TopologyContent content);
  // Reads the first frame; its names and title into `names` when given (a POSITIONRED frame is
  // then an error).
  G96Reader(const std::string& path, Topology* names);

  enum class BlockLine { content, end, eof };

  [[noreturn]] void fail(const std::string& problem);
  // Next line into line_ (without its newline); false at the end of the file (line_number_ then
  // counts the missing line, which errors name).
  bool read_line();
  // The next block's name (right-trimmed), passing over blank and comment lines between blocks;
  // false at the end of the file.
  bool next_block(std::string& name);
  // The next line of the block being read that is not a comment.
  BlockLine next_block_line();
  [[noreturn]] void fail_inside(const std::string& block);
  void skip_block(const std::string& block);

  // Parses one frame into `frame` (names into `names` when given). Returns false when only blank
  // lines, comments or blocks of no frame are left.
  bool parse_frame(TrajectoryFrame& frame, Topology* names);
  void parse_title(TrajectoryFrame& frame, Topology* names);
  void parse_timestep(TrajectoryFrame& frame);
  void parse_positions(TrajectoryFrame& frame, bool named, Topology* names);
  void parse_atom_names(Topology& names);
  void parse_box(std::array<float, 9>& box);

  std::string path_;
  std::ifstream in_;
  std::string line_;
  int64_t line_number_ = 0;
  int natoms_ = -1;  // unknown until the first frame has been parsed
  int64_t frames_read_ = 0;
  int64_t frames_parsed_ = 0;
  std::string error_;
  bool cut_ = false;       // error_ is the file ending inside the frame
  bool line_cut_ = false;  // line_ lies past the end of the file or has no newline: its last

  TrajectoryFrame first_;  // parsed by the constructor, handed out by the first next()
  bool first_pending_ = false;
};

/// Atom and residue names and residue numbers (POSITION block), coordinates (unless `content`
/// is names) and box of the first frame of a .g96 file; the title is its TITLE's first line.
/// Throws InputError as G96Reader does, and for a POSITIONRED frame, which names no atom.
Topology read_g96_topology(const std::string& path,
                           TopologyContent content = TopologyContent::everything);

/// Whether the first positions of `path` come with atom names (POSITION, not POSITIONRED): gmx
/// trjconv writes trajectories without names, single frames with them. True where the file
/// does not say (unreadable, no positions), so that reading it reports the problem.
bool g96_names_atoms(const std::string& path);

}  // namespace pairhist::io
