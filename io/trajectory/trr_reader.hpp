// Streaming reader for GROMACS TRR trajectories (XDR, uncompressed, single or double precision).
// A TRR record may hold any subset of box, coordinates, velocities and forces; only box and
// coordinates are returned, and records without coordinates are skipped (see next()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/common/xdr_stream.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist::io {

/// Reads a TRR file frame by frame. The precision is detected per record from the header sizes
/// (GROMACS does the same), so files written by gmx and gmx_d are both read; double values are
/// rounded to float. Not thread-safe; use one reader per thread.
class TrrReader : public TrajectoryReader {
 public:
  /// Opens `path` and reads the start of the first record header to learn natoms. Throws
  /// InputError if the file cannot be opened, is empty, or does not start with TRR magic 1993.
  explicit TrrReader(const std::string& path);

  int natoms() const override { return natoms_; }

  /// Reads the next record that holds coordinates into `frame`. Records without coordinates
  /// (velocity- or force-only output, e.g. nstvout smaller than nstxout) are validated and
  /// skipped, because a pair-distance histogram has nothing to take from them; records_read()
  /// and records_skipped() tell how many. A record without a box gives an all-zero box. Returns
  /// false at a clean end of file. Throws InputError on truncation or corruption; the message
  /// names the file, the failing frame (counting returned frames; the file record is added when
  /// records were skipped) and the last complete frame. After a throw the reader stays failed.
  bool next(TrajectoryFrame& frame) override;

  /// Frames (records with coordinates) returned so far.
  int64_t frames_read() const override { return frames_read_; }
  /// All records consumed so far, with or without coordinates.
  int64_t records_read() const { return records_read_; }
  int64_t records_skipped() const { return records_read_ - frames_read_; }
  /// Whether the last record read was written in double precision.
  bool double_precision() const { return real_size_ == 8; }
  const std::string& path() const override { return path_; }

 private:
  /// Fails at the current frame; `cut`: the file ends inside it (TruncatedFrame).
  [[noreturn]] void fail(const std::string& problem, bool cut = false);
  size_t read_bytes(void* dst, size_t n);
  void read_exact(void* dst, size_t n, const char* what);
  // The steps of next(), in the order of a record:
  struct RecordHeader {
    int64_t size[10] = {};  // bytes of each block: ir, e, box, vir, pres, top, sym, x, v, f
    int32_t step = 0;
  };
  // The integer header (magic, version, block sizes, natoms, step), checked; false at a clean
  // end of file.
  bool read_record_header(RecordHeader& header);
  // The record's real size (4 or 8) as its block sizes imply, checked against every block.
  size_t record_real_size(const RecordHeader& header);
  // One data block of `bytes` into raw_.
  void read_block(int64_t bytes);
  // The data blocks after t and lambda: the box into `box`, the coordinates (nm) into
  // frame.xyz; velocities and forces are read past. True if the record holds coordinates.
  bool read_record_data(const RecordHeader& header, TrajectoryFrame& frame,
                        std::array<float, 9>& box);

  std::string path_;
  xdr::InputFile file_;
  int natoms_ = 0;
  int64_t frames_read_ = 0;
  int64_t records_read_ = 0;
  size_t real_size_ = 0;  // 4 or 8 once a record with data was seen
  std::string error_;     // non-empty once the reader has failed
  bool cut_ = false;      // ... because the file ends inside the frame

  // The constructor reads the start of the first header; next() consumes these bytes first so the
  // file never has to be rewound (it may be a pipe).
  std::array<unsigned char, 68> pending_{};
  size_t pending_size_ = 0;

  std::vector<unsigned char> raw_;  // one data block of the current record
};

}  // namespace pairhist::io
