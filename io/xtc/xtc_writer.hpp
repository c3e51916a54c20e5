// Writer for GROMACS XTC trajectories (magic 1995), the inverse of XtcReader: coordinates are
// rounded to integers at the file's precision and packed with the xdr3dfcoord scheme (integer
// ranges, mixed-radix bit packing, run-length coded small deltas), so GROMACS reads the result and
// sizes match what GROMACS itself writes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "io/common/atomic_file.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Writes an XTC file frame by frame. The data goes to a temporary file next to `path`; the file
/// appears under `path` only when close() succeeds, so an interrupted or failed write never leaves
/// a partial trajectory (and never replaces an existing one). Destroying the writer without
/// close() discards everything written. Not thread-safe.
class XtcWriter {
 public:
  /// Creates the temporary file. `precision` is the number of integer steps per nm (GROMACS
  /// default 1000, i.e. 0.001 nm); it must be positive and finite. Throws UsageError for a bad
  /// precision or natoms < 0, OutputError if the file cannot be created.
  XtcWriter(std::string path, int natoms, float precision = 1000);
  ~XtcWriter();

  XtcWriter(const XtcWriter&) = delete;
  XtcWriter& operator=(const XtcWriter&) = delete;

  /// Appends one frame: step (must fit in 32 bits, the format's field), time (stored as float),
  /// box and frame.xyz (natoms * 3 values, nm). frame.precision is ignored: every frame uses the
  /// writer's precision. Systems of up to 9 atoms are stored as plain floats, as GROMACS does.
  /// Throws OutputError for a wrong coordinate count, a non-finite value, a coordinate whose
  /// scaled value does not fit in 32 bits, or a write error; a frame that fails validation is not
  /// written at all and the writer stays usable.
  void write(const TrajectoryFrame& frame);

  /// Flushes, closes and renames the file into place. Throws OutputError on failure. Further
  /// write() calls throw; a second close() does nothing.
  void close();

  int natoms() const { return natoms_; }
  float precision() const { return precision_; }
  int64_t frames_written() const { return frames_; }
  /// Bytes written so far (the file size once closed).
  uint64_t bytes_written() const { return bytes_; }
  const std::string& path() const { return output_.final_path(); }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };

  [[noreturn]] void fail(const std::string& problem) const;
  // Packs a frame of more than kMaxUncompressedAtoms atoms into buf_ (xdr3dfcoord).
  void encode_packed(const float* xyz);
  // The coordinates as integers at the file's precision (into ints_), with what the packing
  // needs of them: per dimension their bounds and range sizes (wide: a range too large for
  // triplets), and the smallest sum of |delta| between consecutive atoms.
  struct IntegerRanges {
    int32_t minint[3], maxint[3];
    uint32_t sizeint[3];
    bool wide;
    int64_t mindiff;
  };
  IntegerRanges round_to_integers(const float* xyz);

  AtomicOutput output_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  int natoms_ = 0;
  float precision_ = 1000;
  int64_t frames_ = 0;
  uint64_t bytes_ = 0;
  bool closed_ = false;

  std::vector<int32_t> ints_;       // the frame's coordinates as integers, reordered in place
  std::vector<unsigned char> buf_;  // the encoded frame, written with one fwrite
};

}  // namespace pairhist::io
