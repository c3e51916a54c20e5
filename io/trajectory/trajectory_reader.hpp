// The interface every trajectory reader implements, and the factory that picks one by file type.
// Readers stream: one frame in memory at a time, whatever the file size.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/memory/species_columns.hpp"

namespace pairhist::io {

struct TrajectoryFrame {
  int64_t step = 0;
  double time = 0;  // ps (0 when the format has no time)
  // Box vectors as rows: a = box[0..2], b = box[3..5], c = box[6..8], nm, in GROMACS's
  // lower-triangular form (a along x, b in the xy plane); all zero = no periodic box.
  std::array<float, 9> box{};
  std::vector<float> xyz;  // natoms * 3, nm, atom-major (x0 y0 z0 x1 ...)
  float precision = 0;     // XTC precision of this frame; 0 for formats without one
  // The selected species, when the reader prepared them (XtcParallelReader's FramePreparation).
  SpeciesColumns columns;
};

/// Which frames a reader delivers: called with the index (in the file, from 0) of the next frame
/// not yet read or passed over, it returns the index of the next frame wanted (at least that
/// one), kFrameAgain for the frame chosen last once more (delivered without touching the
/// caller's frame, which still holds it), or -1 to end there. Frames before the one wanted are
/// passed over. It may block, and is called from one thread at a time (for parallel readers, a
/// decoding thread) in delivery order.
using FrameChooser = std::function<int64_t(int64_t next_in_file)>;
constexpr int64_t kFrameAgain = -2;

class TrajectoryReader {
 public:
  virtual ~TrajectoryReader() = default;
  /// Atoms per frame (known once the reader is constructed).
  virtual int natoms() const = 0;
  /// Reads the next frame into `frame`, reusing its storage. Returns false at a clean end of
  /// file. Throws InputError on truncation or corruption, with a one-line message naming the
  /// file, the failing frame and the last complete frame.
  virtual bool next(TrajectoryFrame& frame) = 0;
  /// Complete frames returned so far.
  virtual int64_t frames_read() const = 0;
  virtual const std::string& path() const = 0;
  /// Readers that can pass over frames without decoding them (XTC) deliver from now on only the
  /// frames `chooser` names; frames_read() then counts frames read or passed over, so the last
  /// delivered frame is frame frames_read() - 1 of the file. Returns false, changing nothing,
  /// where the reader cannot (the caller then reads and drops the frames it does not want).
  virtual bool choose_frames(FrameChooser chooser) {
    (void)chooser;
    return false;
  }
  /// Whether a chooser decides the frames delivered (choose_frames, open_trajectory_threaded).
  virtual bool chooses_frames() const { return false; }
};

/// A file name's extension in lower case, with its dot (".xtc"; "" without one): how every reader
/// and topology format is chosen.
std::string lower_extension(const std::string& path);

/// Opens a trajectory, choosing the reader by file extension (.xtc, .trr, .pdb, .dcd, .xyz/.extxyz,
/// .lammpstrj/.lammpsdump/.dump, .h5md; .h5/.hdf5/.hdf by content: CADISHI's layout or H5MD).
/// Throws InputError for a
/// missing file or an unknown extension (the message lists the supported ones).
std::unique_ptr<TrajectoryReader> open_trajectory(const std::string& path);

}  // namespace pairhist::io
