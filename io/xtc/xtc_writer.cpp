#include "io/xtc/xtc_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "io/xtc/xtc_format.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

using xtc::byte_swap64;
using xtc::kFirstSmallIdx;
using xtc::kFrameHeaderBytes;
using xtc::kMagicClassic;
using xtc::kMagicInts;
using xtc::kMaxUncompressedAtoms;
using xtc::triplet_widths;
using xtc::TripletWidths;
constexpr size_t kPackedHeaderBytes = 9 * 4;  // precision, minint[3], maxint[3], smallidx, size
// GROMACS refuses scaled coordinates beyond this (and ranges at least this wide), so that
// value - minint still fits in an unsigned 32-bit integer on its side.
constexpr double kMaxAbs = static_cast<double>(std::numeric_limits<int32_t>::max() - 2);

// GROMACS lets the index reach one past the table for absurdly sparse systems and then reads
// beyond it; stopping at the last entry keeps every stream valid for both decoders.
constexpr int kLastSmallIdx = xtc::kSmallIdxEnd - 1;

// Upper bound of encoded bits per atom: a full triplet of 3 x 32 bits (wide ranges) or of up to
// 72 bits, the 6-bit run code, or a 72-bit delta triplet for atoms inside a run.
constexpr size_t kMaxBytesPerAtom = 13;
// The bit writer stores 8 bytes at a time and may run up to 7 bytes past the last valid one.
constexpr size_t kWriteSlack = 8;

inline void store_be32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

inline void store_be_float(unsigned char* p, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  store_be32(p, bits);
}

// MSB-first bit stream. Whole bytes leave the 64-bit accumulator in one unaligned 8-byte store,
// which is what makes ~10 ns per atom possible; the destination needs kWriteSlack spare bytes.
class BitWriter {
 public:
  explicit BitWriter(unsigned char* out) : start_(out), out_(out) {}

  // Appends the low n bits of value (0 <= n <= 56; value < 2^n).
  inline void put(uint64_t value, int n) {
    acc_ = (acc_ << n) | value;
    nacc_ += n;
    if (nacc_ >= 8) {
      const uint64_t w = byte_swap64(acc_ << (64 - nacc_));
      std::memcpy(out_, &w, sizeof w);
      out_ += nacc_ >> 3;
      nacc_ &= 7;
      acc_ &= (uint64_t{1} << nacc_) - 1;
    }
  }

  // Appends an n-bit packed number v in the format's byte order: the n / 8 low bytes first, least
  // significant first, each MSB-first, then the n % 8 remaining high bits. Requires v < 2^n,
  // n <= 64.
  inline void put_packed(uint64_t v, int n) {
    int nbytes = n >> 3;
    while (nbytes > 0) {
      const int g = nbytes < 7 ? nbytes : 7;
      put(byte_swap64(v) >> (64 - 8 * g), 8 * g);
      v >>= 8 * g;  // g <= 7, so the shift is defined
      nbytes -= g;
    }
    if ((n & 7) != 0) put(v, n & 7);
  }

  // Same for a number given as little-endian base-256 digits (values wider than 64 bits).
  void put_packed_bytes(const unsigned char* digits, int n) {
    int k = 0;
    for (; n >= 8; n -= 8) put(digits[k++], 8);
    if (n > 0) put(digits[k], n);
  }

  // Pads the last byte with zero bits; returns the number of bytes written.
  size_t finish() {
    if (nacc_ > 0) {
      *out_++ = static_cast<unsigned char>(acc_ << (8 - nacc_));
      nacc_ = 0;
      acc_ = 0;
    }
    return static_cast<size_t>(out_ - start_);
  }

 private:
  unsigned char* start_;
  unsigned char* out_;
  uint64_t acc_ = 0;
  int nacc_ = 0;  // bits in acc_ not yet stored, always < 8 between calls
};

// Writes the triplet (x, y, z) with radices s1, s2 (x < s0, y < s1, z < s2) as the n-bit mixed
// radix number (x * s1 + y) * s2 + z, where n is the bit length of s0 * s1 * s2.
inline void put_triplet(BitWriter& out, const uint32_t v[3], uint32_t s1, uint32_t s2, int n) {
  if (n <= 64) {
    out.put_packed((uint64_t{v[0]} * s1 + v[1]) * s2 + v[2], n);
    return;
  }
  // Rare (huge ranges at high precision, or small indices above 64): base-256 arithmetic.
  unsigned char digits[12] = {};
  uint64_t carry = v[0];
  int len = 0;
  while (carry != 0) {
    digits[len++] = static_cast<unsigned char>(carry & 0xff);
    carry >>= 8;
  }
  const uint32_t radix[2] = {s1, s2};
  const uint32_t add[2] = {v[1], v[2]};
  for (int r = 0; r < 2; ++r) {
    carry = add[r];
    for (int k = 0; k < len; ++k) {
      carry += uint64_t{digits[k]} * radix[r];
      digits[k] = static_cast<unsigned char>(carry & 0xff);
      carry >>= 8;
    }
    while (carry != 0) {
      digits[len++] = static_cast<unsigned char>(carry & 0xff);
      carry >>= 8;
    }
  }
  out.put_packed_bytes(digits, n);
}

inline int64_t abs64(int64_t v) {
  return v < 0 ? -v : v;
}

// Whether atom a lies within `limit` of b in every dimension.
inline bool close_to(const int32_t* a, const int64_t* b, int64_t limit) {
  return abs64(int64_t{a[0]} - b[0]) < limit && abs64(int64_t{a[1]} - b[1]) < limit &&
         abs64(int64_t{a[2]} - b[2]) < limit;
}

// The range of the small deltas inside runs: its index into kMagicInts starts at the first range
// that covers the closest pair of consecutive atoms and adapts within 8 steps of its start, as
// GROMACS does; its compression ratio is the reference.
struct SmallDeltaRange {
  int idx, minidx, maxidx;
  int64_t smaller, smallnum, larger;  // half the ranges one below, at and 8 above the start

  explicit SmallDeltaRange(int64_t mindiff) {
    idx = kFirstSmallIdx;
    while (idx < kLastSmallIdx && int64_t{kMagicInts[idx]} < mindiff) ++idx;
    maxidx = std::min(kLastSmallIdx, idx + 8);
    minidx = maxidx - 8;
    smaller = kMagicInts[std::max(kFirstSmallIdx, idx - 1)] / 2;
    smallnum = kMagicInts[idx] / 2;
    larger = kMagicInts[maxidx] / 2;
  }

  // One step up (+1) or down (-1), as the run code announced.
  void step(int is_smaller) {
    idx += is_smaller;
    if (is_smaller < 0) {
      smallnum = smaller;
      smaller = kMagicInts[idx - 1] / 2;
    } else {
      smaller = smallnum;
      smallnum = kMagicInts[idx] / 2;
    }
  }
};

// The run code (a flag bit, then 5 bits: run length + 1 + the range's step, only when either
// changed) and the run's small deltas, triplet by triplet.
inline void put_run(BitWriter& out, const uint32_t* deltas, int run, int is_smaller, int& prevrun,
                    int smallidx) {
  if (run != prevrun || is_smaller != 0) {
    prevrun = run;
    out.put(1, 1);
    out.put(static_cast<uint64_t>(run + is_smaller + 1), 5);
  } else {
    out.put(0, 1);
  }
  const auto small_size = kMagicInts[smallidx];
  for (int k = 0; k < run; k += 3) {
    put_triplet(out, deltas + k, small_size, small_size, smallidx);
  }
}

// Packs the n atoms of `ip` (integers, reordered in place where an atom pair is swapped): each
// atom written in full (relative to minint, in triplets of sizeint or dim_bits each when wide)
// is followed by a run of up to 8 atoms close to their predecessor, written as small deltas.
void pack_atoms(int32_t* ip, size_t n, const int32_t minint[3], const uint32_t sizeint[3],
                bool wide, const TripletWidths& widths, SmallDeltaRange small, BitWriter& out) {
  int64_t prev[3] = {0, 0, 0};
  int prevrun = -1;  // forces a run code on the first atom
  uint32_t deltas[8 * 3];
  size_t i = 0;
  while (i < n) {
    int32_t* cur = ip + 3 * i;
    // Grow the delta range if this atom is within the largest allowed range of the previous one,
    // shrink it (confirmed below) otherwise.
    int is_smaller;
    if (small.idx < small.maxidx && i >= 1 && close_to(cur, prev, small.larger)) {
      is_smaller = 1;
    } else if (small.idx > small.minidx) {
      is_smaller = -1;
    } else {
      is_smaller = 0;
    }
    bool is_small = false;
    if (i + 1 < n) {
      const int64_t next[3] = {cur[3], cur[4], cur[5]};
      if (close_to(cur, next, small.smallnum)) {
        // Writing the second atom in full and the first as a delta compresses water (O H H)
        // better: both hydrogens are then close to the reference. The decoder swaps back.
        std::swap(cur[0], cur[3]);
        std::swap(cur[1], cur[4]);
        std::swap(cur[2], cur[5]);
        is_small = true;
      }
    }
    const uint32_t big[3] = {static_cast<uint32_t>(int64_t{cur[0]} - minint[0]),
                             static_cast<uint32_t>(int64_t{cur[1]} - minint[1]),
                             static_cast<uint32_t>(int64_t{cur[2]} - minint[2])};
    if (wide) {
      for (int d = 0; d < 3; ++d) out.put(big[d], widths.dim_bits[d]);
    } else {
      put_triplet(out, big, sizeint[1], sizeint[2], widths.triplet_bits);
    }
    for (int d = 0; d < 3; ++d) prev[d] = cur[d];
    ++i;
    cur += 3;

    int run = 0;
    if (!is_small && is_smaller == -1) is_smaller = 0;
    while (is_small && run < 8 * 3) {
      if (is_smaller == -1) {
        int64_t r2 = 0;
        for (int d = 0; d < 3; ++d) r2 += (cur[d] - prev[d]) * (cur[d] - prev[d]);
        if (r2 >= small.smaller * small.smaller) is_smaller = 0;
      }
      for (int d = 0; d < 3; ++d) {
        deltas[run++] = static_cast<uint32_t>(cur[d] - prev[d] + small.smallnum);
        prev[d] = cur[d];
      }
      ++i;
      cur += 3;
      is_small = i < n && close_to(cur, prev, small.smallnum);
    }
    put_run(out, deltas, run, is_smaller, prevrun, small.idx);
    if (is_smaller != 0) small.step(is_smaller);
  }
}

}  // namespace

void XtcWriter::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

XtcWriter::XtcWriter(std::string path, int natoms, float precision)
    : output_(std::move(path)), natoms_(natoms), precision_(precision) {
  if (natoms < 0) {
    throw UsageError(output_.final_path() + ": negative atom count " + std::to_string(natoms));
  }
  if (!std::isfinite(precision) || !(precision > 0) || !std::isfinite(1.0f / precision)) {
    throw UsageError(output_.final_path() + ": XTC precision must be positive and finite, got " +
                     std::to_string(precision));
  }
  file_.reset(std::fopen(output_.temp_path().c_str(), "wb"));
  if (!file_) {
    throw OutputError("cannot create '" + output_.temp_path() + "' for " + output_.final_path() +
                      ": " + std::strerror(errno));
  }
}

// Without close() the temporary is discarded by output_'s destructor after the file is closed.
XtcWriter::~XtcWriter() = default;

void XtcWriter::fail(const std::string& problem) const {
  throw OutputError(output_.final_path() + ": frame " + std::to_string(frames_) + ": " + problem);
}

void XtcWriter::write(const TrajectoryFrame& frame) {
  if (closed_) fail("writer already closed");
  const size_t ncoords = static_cast<size_t>(natoms_) * 3;
  if (frame.xyz.size() != ncoords) {
    fail(std::to_string(frame.xyz.size()) + " coordinate values given, expected " +
         std::to_string(ncoords) + " (" + std::to_string(natoms_) + " atoms)");
  }
  if (frame.step < std::numeric_limits<int32_t>::min() ||
      frame.step > std::numeric_limits<int32_t>::max()) {
    fail("step " + std::to_string(frame.step) + " does not fit the 32-bit XTC step field");
  }
  const auto time = static_cast<float>(frame.time);
  if (!std::isfinite(time)) fail("time is not a finite float");
  for (float b : frame.box) {
    if (!std::isfinite(b)) fail("non-finite box component");
  }

  buf_.resize(kFrameHeaderBytes);
  unsigned char* h = buf_.data();
  store_be32(h, static_cast<uint32_t>(kMagicClassic));
  store_be32(h + 4, static_cast<uint32_t>(natoms_));
  store_be32(h + 8, static_cast<uint32_t>(static_cast<int32_t>(frame.step)));
  store_be_float(h + 12, time);
  for (int k = 0; k < 9; ++k) store_be_float(h + 16 + 4 * k, frame.box[static_cast<size_t>(k)]);
  store_be32(h + 52, static_cast<uint32_t>(natoms_));

  if (natoms_ <= kMaxUncompressedAtoms) {
    buf_.resize(kFrameHeaderBytes + 4 * ncoords);
    for (size_t k = 0; k < ncoords; ++k) {
      if (!std::isfinite(frame.xyz[k])) {
        fail("non-finite coordinate of atom " + std::to_string(k / 3));
      }
      store_be_float(buf_.data() + kFrameHeaderBytes + 4 * k, frame.xyz[k]);
    }
  } else {
    encode_packed(frame.xyz.data());
  }

  if (std::fwrite(buf_.data(), 1, buf_.size(), file_.get()) != buf_.size()) {
    fail(std::string("write error: ") + std::strerror(errno));
  }
  bytes_ += buf_.size();
  ++frames_;
}

void XtcWriter::encode_packed(const float* xyz) {
  const size_t n = static_cast<size_t>(natoms_);
  const IntegerRanges ranges = round_to_integers(xyz);
  const TripletWidths widths = triplet_widths(ranges.sizeint, ranges.wide);
  SmallDeltaRange small(ranges.mindiff);
  const int initial_smallidx = small.idx;

  const size_t data_at = kFrameHeaderBytes + kPackedHeaderBytes;
  buf_.resize(data_at + n * kMaxBytesPerAtom + 4 + kWriteSlack);
  BitWriter out(buf_.data() + data_at);
  pack_atoms(ints_.data(), n, ranges.minint, ranges.sizeint, ranges.wide, widths, small, out);
  const size_t nbytes = out.finish();
  if (nbytes > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail("compressed frame exceeds the 2 GiB limit of the classic XTC layout");
  }

  unsigned char* ph = buf_.data() + kFrameHeaderBytes;
  store_be_float(ph, precision_);
  for (int d = 0; d < 3; ++d) {
    store_be32(ph + 4 + 4 * d, static_cast<uint32_t>(ranges.minint[d]));
    store_be32(ph + 16 + 4 * d, static_cast<uint32_t>(ranges.maxint[d]));
  }
  store_be32(ph + 28, static_cast<uint32_t>(initial_smallidx));
  store_be32(ph + 32, static_cast<uint32_t>(nbytes));
  // XDR opaque data is padded with zero bytes to a multiple of 4.
  const size_t padded = (nbytes + 3) & ~size_t{3};
  std::memset(buf_.data() + data_at + nbytes, 0, padded - nbytes);
  buf_.resize(data_at + padded);
}

XtcWriter::IntegerRanges XtcWriter::round_to_integers(const float* xyz) {
  const size_t n = static_cast<size_t>(natoms_);
  ints_.resize(3 * n);
  int32_t* const ip = ints_.data();

  // Rounding in double (GROMACS rounds the float product) keeps every value within half a
  // step of the input; for coordinates that are already on the grid both give the same integer.
  const double p = precision_;
  IntegerRanges r;
  for (int d = 0; d < 3; ++d) {
    r.minint[d] = std::numeric_limits<int32_t>::max();
    r.maxint[d] = std::numeric_limits<int32_t>::min();
  }
  r.mindiff = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < 3; ++d) {
      const double s = static_cast<double>(xyz[3 * i + d]) * p;
      if (!(std::fabs(s) <= kMaxAbs)) {
        if (!std::isfinite(xyz[3 * i + d]))
          fail("non-finite coordinate of atom " + std::to_string(i));
        fail("coordinate " + std::to_string(xyz[3 * i + d]) + " of atom " + std::to_string(i) +
             " is too large for precision " + std::to_string(precision_) +
             " (scaled value must fit in 32 bits)");
      }
      const auto v = static_cast<int32_t>(s >= 0 ? s + 0.5 : s - 0.5);
      ip[3 * i + d] = v;
      r.minint[d] = std::min(r.minint[d], v);
      r.maxint[d] = std::max(r.maxint[d], v);
    }
    if (i > 0) {
      const int32_t* c = ip + 3 * i;
      const int64_t diff = abs64(int64_t{c[0]} - c[-3]) + abs64(int64_t{c[1]} - c[-2]) +
                           abs64(int64_t{c[2]} - c[-1]);
      r.mindiff = std::min(r.mindiff, diff);
    }
  }
  r.wide = false;
  for (int d = 0; d < 3; ++d) {
    const int64_t range = int64_t{r.maxint[d]} - r.minint[d];
    if (static_cast<double>(range) >= kMaxAbs) {
      fail("coordinates span too wide a range for precision " + std::to_string(precision_));
    }
    r.sizeint[d] = static_cast<uint32_t>(range + 1);
    r.wide = r.wide || r.sizeint[d] > 0xffffff;
  }
  return r;
}

void XtcWriter::close() {
  if (closed_) return;
  closed_ = true;
  std::FILE* f = file_.release();
  const bool flushed = std::fflush(f) == 0;
  const int flush_errno = errno;
  const bool closed_ok = std::fclose(f) == 0;
  if (!flushed || !closed_ok) {
    throw OutputError(output_.final_path() + ": cannot finish writing '" + output_.temp_path() +
                      "': " + std::strerror(flushed ? errno : flush_errno));
  }
  output_.commit();
}

}  // namespace pairhist::io
