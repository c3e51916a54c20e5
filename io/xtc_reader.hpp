// Streaming reader for GROMACS XTC trajectories (XDR, big-endian, lossy-compressed coordinates).
// Frames are read and decoded one at a time so trajectories larger than memory can be processed,
// and every field is validated so a damaged file ends in an InputError, never in undefined
// behaviour.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "trajectory_reader.hpp"

namespace pairhist::io {

/// Reads an XTC file frame by frame. Both the classic layout (magic 1995, 32-bit byte count) and
/// the GROMACS 2023+ large-system layout (magic 2023, 64-bit byte count) are accepted, also mixed
/// within one file. Not thread-safe; use one reader per thread.
class XtcReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the first frame header to learn natoms. Throws InputError if the file
  /// cannot be opened, is empty, or does not start with an XTC magic number.
  explicit XtcReader(const std::string& path);
  ~XtcReader() override;

  XtcReader(const XtcReader&) = delete;
  XtcReader& operator=(const XtcReader&) = delete;
  XtcReader(XtcReader&&) noexcept;
  XtcReader& operator=(XtcReader&&) noexcept;

  int natoms() const override { return natoms_; }

  /// Decodes the next frame into `frame`, reusing its storage. Returns false at a clean end of
  /// file (the file ends exactly after a frame). Throws InputError on truncation or corruption;
  /// the message names the file, the failing frame and the last complete frame. After a throw the
  /// reader stays failed (further calls throw the same error) and `frame` holds partial data.
  bool next(TrajectoryFrame& frame) override;

  /// Complete frames returned so far.
  int64_t frames_read() const override { return frames_read_; }
  const std::string& path() const override { return path_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };

  [[noreturn]] void fail(const std::string& problem);
  // Reads exactly n bytes or reports how many were available.
  size_t read_bytes(void* dst, size_t n);
  // Bytes between the read position and the end of the file, UINT64_MAX when unknown (pipe). The
  // size is looked up again when fewer than `wanted` bytes seem left: the file may be growing.
  uint64_t bytes_left_in_file(uint64_t wanted);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  uint64_t offset_ = 0;     // bytes consumed so far, for truncation checks against the file size
  uint64_t file_size_ = 0;  // size at open time; re-queried if a frame seems to run past it
  int natoms_ = 0;
  int64_t frames_read_ = 0;
  std::string error_;  // non-empty once the reader has failed

  // The constructor reads the start of the first frame; next() consumes these bytes first so the
  // file never has to be rewound (it may be a pipe).
  std::array<unsigned char, 8> pending_{};
  size_t pending_size_ = 0;

  std::vector<unsigned char> packed_;  // compressed bytes of the current frame, plus zero padding
};

}  // namespace pairhist::io
