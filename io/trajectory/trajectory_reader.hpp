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

/// What a reader whose frames decode on threads of their own (XtcParallelReader) delivers
/// besides the whole frame: the selected species as columns (TrajectoryFrame::columns), prepared
/// on those threads like the decoding. Without the whole frame, and with every atom in at most one
/// species, the decoder writes the columns directly.
struct FramePreparation {
  std::vector<std::vector<int>> species;  // atoms of each species; empty: no columns
  bool whole_frame = true;
  // The species are not known yet (set_preparation follows): decode at most kPendingFrames
  // frames ahead, whole, so that the first frame is ready without filling the window with frames
  // the thread feeding the engine would have to pick the species from (~5 ms each for 1.36M atoms
  // on the H100 host, against ~1 ms to copy columns: 14 such frames cost a 100-frame run 0.09 s).
  // One: the second frame picked on the feeding thread cost a 4-GPU node's run 0.23 s at 11M
  // atoms, and the first gets its columns while the engine starts (TrajectoryPipeline).
  bool pending = false;
};

/// One delivered frame's way through a reader's decoding threads (record_timings), in seconds
/// of std::chrono::steady_clock: where a run bound by reading loses its time.
struct ReadingTiming {
  int64_t frame = 0;  // index in the file
  int thread = -1;    // the decoding thread that claimed it
  double claimed = 0;
  double decoded = 0;          // decoded (into staging columns when staged)
  double ready = 0;            // ready to deliver (promoted into pinned columns when staged)
  double delivered = 0;        // next() returned it
  double decode_seconds = 0;   // fetching excluded
  double promote_seconds = 0;  // copying into pinned columns
  int promoted_by = -2;        // -2: not staged, -1: the caller (next()), else a decoding thread
};

/// How a reader's decoding threads have fared so far (all zero for a reader that decodes on the
/// caller's thread): what the feeding plan weighs and a run's report shows.
struct ReadingFigures {
  int threads = 0;      // decoding threads that run (0: frames are read on the caller's thread)
  int max_threads = 0;  // decoding threads there are
  // Mean wall seconds a thread spent decoding and preparing a frame (0 before the first frame).
  double seconds_per_frame = 0;
  double window_wait_seconds = 0;  // decoding threads waited for room to claim a frame
  double caller_wait_seconds = 0;  // next() waited for its frame
  int64_t caller_promotions = 0;   // staged frames next() copied itself
  double lock_wait_seconds = 0;    // decoding threads waited for the lock to claim in order
  bool threaded() const { return threads > 0; }
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
  /// file. Throws TruncatedFrame where the file ends inside the frame (cut short, or still being
  /// written: the frames before it are whole) and InputError where it is damaged, with a
  /// one-line message naming the file, the failing frame and the last complete frame.
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

  // Readers whose frames decode on threads of their own (XtcParallelReader) are tuned and
  // measured through these; for the others they do nothing and report nothing.

  /// What the decoding threads have done so far.
  virtual ReadingFigures reading_figures() const { return {}; }
  /// Lets `n` (1..reading_figures().max_threads) decoding threads work from now on.
  virtual void set_active_threads(int n) { (void)n; }
  /// What the frames claimed from now on deliver besides the whole frame (species columns).
  virtual void set_preparation(FramePreparation prep) { (void)prep; }
  /// Pinning hooks are being installed on another thread: the reader stages the columns it
  /// prepares until pinning_settled(). False where it prepares none (it need not wait).
  virtual bool await_pinning() { return false; }
  virtual void pinning_settled() {}
  /// Keeps a ReadingTiming for every frame delivered from now on (a run's --reading-trace).
  virtual void record_timings() {}
  virtual std::vector<ReadingTiming> timings() const { return {}; }
};

/// A file name's extension in lower case, with its dot (".xtc"; "" without one): how every reader
/// and topology format is chosen.
std::string lower_extension(const std::string& path);

/// Opens a trajectory, choosing the reader by file extension (.xtc, .trr, .pdb, .gro, .g96, .tpr
/// (its one frame), .dcd, .xyz/.extxyz, .lammpstrj/.lammpsdump/.dump, .h5md; .h5/.hdf5/.hdf by
/// content: CADISHI's layout or H5MD; AMBER .nc/.ncdf/.ncrst, .mdcrd/.crd (the atom count from
/// the topology stated for it: state_trajectory_topology), .rst7/.inpcrd/.restrt). Throws
/// InputError for a missing file or an unknown extension (the message lists the supported ones).
std::unique_ptr<TrajectoryReader> open_trajectory(const std::string& path);

}  // namespace pairhist::io
