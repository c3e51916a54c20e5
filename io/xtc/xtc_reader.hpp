// Streaming reader for GROMACS XTC trajectories (XDR, big-endian, lossy-compressed coordinates).
// Frames are read and decoded one at a time so trajectories larger than memory can be processed,
// and every field is validated so a damaged file ends in an InputError, never in undefined
// behaviour.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_decode.hpp"

namespace pairhist::io::xtc {
class Scanner;
}  // namespace pairhist::io::xtc

namespace pairhist::io {

/// Reads an XTC file frame by frame. Both the classic layout (magic 1995, 32-bit byte count) and
/// the GROMACS 2023+ large-system layout (magic 2023, 64-bit byte count) are accepted, also mixed
/// within one file. Not thread-safe; use one reader per thread.
class XtcReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame header to learn natoms. Throws InputError if the file
  /// cannot be opened, is empty, or does not start with an XTC magic number.
  explicit XtcReader(const std::string& path);
  /// Continues from a scanner that has read nothing beyond the first header, or `frames_before`
  /// whole frames (passed over without decoding): frame numbers in errors and frames_read()
  /// count those.
  explicit XtcReader(std::unique_ptr<xtc::Scanner> scanner, int64_t frames_before = 0);
  ~XtcReader() override;

  XtcReader(const XtcReader&) = delete;
  XtcReader& operator=(const XtcReader&) = delete;
  XtcReader(XtcReader&&) noexcept;
  XtcReader& operator=(XtcReader&&) noexcept;

  int natoms() const override;

  /// Decodes the next frame into `frame`, reusing its storage. Returns false at a clean end of
  /// file (the file ends exactly after a frame). Throws TruncatedFrame where the file ends inside
  /// the frame, InputError where it is damaged; the message names the file, the failing frame and
  /// the last complete frame. After a throw the reader stays failed (further calls throw the same
  /// error) and `frame` holds partial data.
  bool next(TrajectoryFrame& frame) override;

  /// Complete frames returned so far.
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override;
  bool choose_frames(FrameChooser chooser) override;
  bool chooses_frames() const override { return static_cast<bool>(chooser_); }

 private:
  std::unique_ptr<xtc::Scanner> scanner_;
  xtc::RawFrame raw_;  // the current frame's bytes, reused
  int64_t frames_read_ = 0;
  std::string error_;  // non-empty once the reader has failed
  bool cut_ = false;   // it failed because the file ends inside the frame (TruncatedFrame)
  FrameChooser chooser_;
};

}  // namespace pairhist::io
