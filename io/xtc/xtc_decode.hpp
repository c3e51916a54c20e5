// One XTC frame as it lies in the file (header fields plus the still-compressed coordinates), and
// the decoder that turns it into coordinates. Decoding touches no file and no shared state, so
// frames can be decoded on any thread once their bytes have been read (io/xtc/xtc_parallel_reader).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_format.hpp"

namespace pairhist::io::xtc {

/// Zero bytes the scanner appends after the compressed data: the bit reader checks its bounds
/// once per decode iteration (a full-size atom plus a run of up to ten small ones, about 104
/// bytes), so it may read this far past the end.
constexpr size_t kPackedPadding = 128;

/// A frame whose header has been validated and whose coordinate bytes have been read.
struct RawFrame {
  int64_t step = 0;
  float time = 0;
  std::array<float, 9> box{};
  bool compressed = false;
  // natoms <= kMaxUncompressedAtoms: the coordinates, already checked to be finite.
  std::array<float, kMaxUncompressedAtoms * 3> plain{};
  // Compressed frames: precision, minint[3], maxint[3], smallidx, byte count, and the bytes
  // (XDR-padded to a multiple of 4, then kPackedPadding zero bytes).
  float precision = 0;
  int32_t minint[3] = {};
  int32_t maxint[3] = {};
  int32_t smallidx = 0;
  uint64_t nbytes = 0;
  std::vector<unsigned char> packed;
  // Scanner::locate() leaves the compressed bytes in the file: fetch_bytes (XDR-padded) at
  // fetch_offset, for Scanner::fetch() to read into `packed` on any thread. 0: nothing left.
  uint64_t fetch_offset = 0;
  uint64_t fetch_bytes = 0;
};

/// Fills `out` (step, time, box, precision, natoms * 3 coordinates) from `raw`, reusing its
/// storage. Returns "" on success, otherwise the problem (the caller adds file and frame); the
/// decoded floats are bit for bit those of GROMACS's xdr3dfcoord.
std::string decode_frame(const RawFrame& raw, int natoms, TrajectoryFrame& out);

/// Like decode_frame, but writes only the species' columns of `map` (out.columns; out.xyz left
/// empty), as it decodes: the same floats, no whole frame in between. With `measure` the columns
/// are then measured (bounds, non-finite coordinates; filled); without, that is left to whoever
/// copies them next (copy_species_columns) and out.columns.filled stays false until then.
std::string decode_frame_columns(const RawFrame& raw, int natoms, const ColumnMap& map,
                                 TrajectoryFrame& out, bool measure = true);

}  // namespace pairhist::io::xtc
