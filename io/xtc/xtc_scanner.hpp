// Finds XTC frames in a file without decoding them: each frame header states the size of its
// compressed coordinates, so a frame's bytes can be read (and its header validated) cheaply, and
// the expensive decoding (io/xtc/xtc_decode.hpp) done later, on any thread.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "io/xtc/xtc_decode.hpp"

namespace pairhist::io::xtc {

/// "PATH: frame K: PROBLEM (last complete frame is K-1)", or "(no complete frame)" for K = 0:
/// the one-line error every XTC reader reports for frame K.
std::string frame_error(const std::string& path, int64_t frame, const std::string& problem);

/// Reads a classic (magic 1995) or GROMACS 2023+ (magic 2023, 64-bit byte count) XTC file frame
/// by frame, strictly sequentially, so pipes work too. Not thread-safe, except fetch(): frames
/// located one after the other (a header read each) are read by any number of threads at once.
class Scanner {
 public:
  enum class Status { frame, end, error };

  /// Opens `path` and reads the start of the first frame header to learn natoms. Throws
  /// InputError if the file cannot be opened, is empty, or does not start with an XTC magic.
  explicit Scanner(const std::string& path);

  int natoms() const { return natoms_; }
  const std::string& path() const { return path_; }

  /// Reads the next frame into `raw`, reusing its storage. Returns end when the file ends exactly
  /// after a frame; on truncation or a corrupt header returns error and leaves the problem (no
  /// file or frame named) in `problem`. After an error the file position is undefined.
  Status read(RawFrame& raw, std::string& problem);
  /// Like read(), except that in a regular file the compressed coordinates are only located
  /// (raw.fetch_offset, raw.fetch_bytes) and passed over, for fetch() to read. In a pipe, and for
  /// frames of at most kMaxUncompressedAtoms, it reads them as read() does.
  Status locate(RawFrame& raw, std::string& problem);
  /// Reads the compressed coordinates locate() left in the file into raw.packed (reused), by
  /// positional reads: no lock, no file position, so threads fetch frames concurrently, also
  /// while locate() goes on. Returns "" or the problem (the file shrank, a read error).
  std::string fetch(RawFrame& raw) const;
  /// Whether the last error of read(), locate() or skip() was the file ending inside the frame
  /// (its headers or coordinates run past the end: a file cut short, or still being written),
  /// rather than a damaged frame.
  bool cut() const { return cut_; }
  /// Whether frames can be located and fetched (a regular file), rather than only streamed.
  bool positional() const { return regular_; }
  /// Passes over the next frame: its headers are read and checked as read() does (step, time and
  /// box land in `raw`), its coordinates are seeked over, not read (read where the file cannot
  /// seek). Returns end, frame or error as read(). A frame passed over is not decoded, so a
  /// problem inside its compressed bytes is found only by whoever reads it.
  Status skip(RawFrame& raw, std::string& problem);

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };
  struct Problem {
    std::string what;
    bool cut = false;  // the file ends inside the frame
  };

  // Reads up to n bytes, returning how many arrived; throws Problem on a read error.
  size_t read_bytes(void* dst, size_t n);
  // Reads the next frame's headers into `raw` (false: the file ends exactly here) and returns the
  // bytes of coordinates that follow.
  bool read_headers(RawFrame& raw, uint64_t& data_bytes);
  void read_frame(RawFrame& raw, const unsigned char* head, uint64_t& data_bytes);
  void pass_over(uint64_t bytes);
  void read_plain(RawFrame& raw);
  void stream_packed(RawFrame& raw, uint64_t data_bytes);
  // Bytes between the read position and the end of the file, UINT64_MAX when unknown (pipe). The
  // size is looked up again when fewer than `wanted` bytes seem left: the file may be growing.
  uint64_t bytes_left_in_file(uint64_t wanted);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  uint64_t offset_ = 0;     // bytes consumed so far, for truncation checks against the file size
  uint64_t file_size_ = 0;  // size at open time; re-queried if a frame seems to run past it
  bool regular_ = false;    // a regular file: positional reads work
  int fd_ = -1;             // file_'s descriptor, for fetch()'s pread (no FILE lock taken)
  int natoms_ = 0;
  bool cut_ = false;  // the last error: the file ends inside the frame

  // The constructor reads the start of the first frame; read() consumes these bytes first so the
  // file never has to be rewound (it may be a pipe).
  std::array<unsigned char, 8> pending_{};
  size_t pending_size_ = 0;
};

/// The times (ps) of a file's frames, found by passing over them (headers only, no decoding). A
/// frame that cannot be passed over ends the list: `error` then holds its one-line error
/// (frame_error), and its index is the list's size; `cut` (where given) says whether the file
/// ends inside it (Scanner::cut). Throws InputError as the constructor.
std::vector<double> frame_times(const std::string& path, std::string& error, bool* cut = nullptr);

}  // namespace pairhist::io::xtc
