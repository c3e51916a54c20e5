// Streaming reader for multi-model PDB files (MODEL/ENDMDL), as written by gmx trjconv, and the
// topology (atom and residue names) of their first model.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a PDB file model by model. Each MODEL ... ENDMDL block is a frame; a file without MODEL
/// records holds one frame per END-terminated block (usually just one). Only ATOM/HETATM
/// coordinates (fixed columns 31-54, Angstrom) and CRYST1 (a b c in Angstrom, alpha beta gamma in
/// degrees) are used; both are converted to nm, the cell to GROMACS's lower-triangular box. A
/// CRYST1 applies to the frame it appears in (before or inside its MODEL) and to later frames
/// until the next CRYST1; no CRYST1, an all-zero cell or the PDB placeholder cell 1 1 1 90 90 90
/// gives an all-zero box. Time and step are taken from a GROMACS TITLE line ("t= ... step= ...")
/// when present; otherwise time is 0 and step is the frame index.
///
/// Truncation is detected when it cuts a MODEL before its ENDMDL or an ATOM line before its
/// coordinates end; a file without MODEL records that is cut between whole lines cannot be told
/// from a shorter file. Not thread-safe; use one reader per thread.
class PdbReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame to learn natoms (it is returned by the first next()).
  /// Throws InputError if the file cannot be opened, holds no atoms, or its first frame is bad.
  explicit PdbReader(const std::string& path);
  ~PdbReader() override;

  PdbReader(const PdbReader&) = delete;
  PdbReader& operator=(const PdbReader&) = delete;

  int natoms() const override { return natoms_; }

  /// Reads the next model into `frame`. Returns false at a clean end of file. Throws InputError
  /// ("path: frame K: line N: problem (last complete frame is K-1)") on malformed input, or a
  /// model whose atom count differs from the first one; TruncatedFrame where the problem is that
  /// the file ends (inside a MODEL, or inside its last line, which has no newline). After a throw
  /// the reader stays failed.
  bool next(TrajectoryFrame& frame) override;

  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  friend Topology read_pdb_topology(const std::string& path);
  PdbReader(const std::string& path, Topology* topology);

  struct FileCloser {
    void operator()(std::FILE* f) const;
  };

  // Fails at line_; a cut file where line_ is past the end or its last, unterminated line.
  [[noreturn]] void fail(const std::string& problem);
  // Next line without its line terminator; false at the end of the file.
  bool read_line();
  // Parses one frame (into `frame`, and names into `topology` when given). Returns false when the
  // file ends before any atom of a new frame.
  bool parse_frame(TrajectoryFrame& frame, Topology* topology);
  // An ATOM/HETATM record, the frame's atom number `atoms` (0-based): its coordinates into
  // frame.xyz, its names, residue and element into `topology` when given.
  void parse_atom(const std::string& line, int64_t atoms, TrajectoryFrame& frame,
                  Topology* topology);
  // A TITLE record: GROMACS's "t= <ps> step= <n>" into time and step, its text into
  // topology->title (the first one) when given.
  void parse_title(const std::string& line, double& time, bool& have_title_time, int64_t& step,
                   Topology* topology);
  void parse_cryst1();

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::string line_;
  bool line_cut_ = false;  // line_ lies past the end of the file or has no newline: its last
  int64_t line_number_ = 0;
  int natoms_ = -1;  // unknown until the first frame has been parsed
  int64_t frames_read_ = 0;
  int64_t frames_parsed_ = 0;
  bool uses_models_ = false;    // decided by the first frame
  std::array<float, 9> box_{};  // from the latest CRYST1; carries over to later frames
  std::string error_;
  bool cut_ = false;  // error_ is the file ending inside the frame

  TrajectoryFrame first_;  // parsed by the constructor, handed out by the first next()
  bool first_pending_ = false;
};

/// Atom names, residue names and numbers, element symbols (columns 77-78; empty for an atom whose
/// field is blank), coordinates and box of the first model of a PDB file (coordinates and box in
/// nm). The title is the first TITLE record's text, without a trailing
/// GROMACS "t= ... step= ..." part. Throws InputError as PdbReader does.
Topology read_pdb_topology(const std::string& path);

}  // namespace pairhist::io
