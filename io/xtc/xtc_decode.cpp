#include "io/xtc/xtc_decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "io/common/xdr_stream.hpp"
#include "io/memory/frame_buffers.hpp"

namespace pairhist::io::xtc {

namespace {

// The decode loop calls a few small helpers per atom; GCC does not always inline them on its own.
#if defined(__GNUC__) || defined(__clang__)
#define PAIRHIST_XTC_INLINE inline __attribute__((always_inline))
#else
#define PAIRHIST_XTC_INLINE inline
#endif

using xdr::load_be64;

// Exact v / d for v < 2^56 by a multiply-high with a precomputed reciprocal (Granlund and
// Montgomery, "Division by invariant integers using multiplication", 1994, theorem 4.2). Decode
// needs two divisions per packed triplet, and 64-bit hardware division is slow on many CPUs.
class Reciprocal {
 public:
  Reciprocal() = default;
#if defined(__SIZEOF_INT128__)
  explicit Reciprocal(uint64_t d) {
    if (d <= 1) return;  // the multiplier for 1 does not fit in 64 bits; v passes through
    int l = 0;
    while ((uint64_t{1} << l) < d) ++l;
    // A shift of at least 64 lets quotient() use only the high word; l >= 8 ensures that and
    // keeps m below 2^64 for every d >= 2.
    l = l < 8 ? 8 : l;
    shift_ = 56 + l - 64;
    pass_ = 0;
    m_ = static_cast<uint64_t>(((U128{1} << (56 + l)) + d - 1) / d);
  }

  PAIRHIST_XTC_INLINE uint64_t quotient(uint64_t v) const {
    return (static_cast<uint64_t>((U128{v} * m_) >> 64) >> shift_) + (v & pass_);
  }

 private:
  __extension__ typedef unsigned __int128 U128;
  uint64_t m_ = 0;
  uint64_t pass_ = ~uint64_t{0};
  int shift_ = 0;
#else
  explicit Reciprocal(uint64_t d) : d_(d) {}
  PAIRHIST_XTC_INLINE uint64_t quotient(uint64_t v) const {
    return v / d_;
  }

 private:
  uint64_t d_ = 1;
#endif
};

// Splits a packed triplet v = (x * s1 + y) * s2 + z into x, y, z. Both quotients are taken from v
// itself so that they do not wait for each other.
class Radix {
 public:
  Radix() = default;
  Radix(uint32_t s1, uint32_t s2) : s1_(s1), s2_(s2), by_s2_(s2), by_s1s2_(uint64_t{s1} * s2) {}

  uint32_t s1() const { return s1_; }
  uint32_t s2() const { return s2_; }

  // Requires v < 2^56.
  PAIRHIST_XTC_INLINE void split(uint64_t v, uint32_t out[3]) const {
    const uint64_t x_s1_plus_y = by_s2_.quotient(v);
    const uint64_t x = by_s1s2_.quotient(v);
    out[0] = static_cast<uint32_t>(x);
    out[1] = static_cast<uint32_t>(x_s1_plus_y - x * s1_);
    out[2] = static_cast<uint32_t>(v - x_s1_plus_y * s2_);
  }

 private:
  uint32_t s1_ = 1, s2_ = 1;
  Reciprocal by_s2_, by_s1s2_;
};

// MSB-first bit stream over a zero-padded buffer. Bounds are checked by the caller once per
// decode iteration, which the padding makes safe.
class BitReader {
 public:
  explicit BitReader(const unsigned char* data) : data_(data) {}

  uint64_t position() const { return pos_; }

  // Next n bits (1 <= n <= 32) as an unsigned big-endian number.
  PAIRHIST_XTC_INLINE uint32_t bits(int n) {
    const uint64_t w = window();
    pos_ += static_cast<uint64_t>(n);
    return static_cast<uint32_t>(w >> (64 - n));
  }

  // Reads an n-bit packed triplet (1 <= n <= 72) and splits it by `radix`. The encoder emits the
  // big number in 8-bit chunks, least significant chunk first, each chunk MSB-first; the last chunk
  // holds the n % 8 leftover bits.
  PAIRHIST_XTC_INLINE void triplet(int n, const Radix& radix, uint32_t out[3]) {
    if (n <= 56) {
      const uint64_t w = window();  // holds at least 57 valid bits
      pos_ += static_cast<uint64_t>(n);
      const int full_bits = (n >> 3) * 8;
      const int rem = n & 7;
      const uint64_t low = byte_swap64(w & ~(~uint64_t{0} >> full_bits));
      // The split shift yields 0 for rem == 0 without an out-of-range shift.
      const uint64_t high = ((w << full_bits) >> 1) >> (63 - rem);
      radix.split(low | (high << full_bits), out);
      return;
    }
    triplet_wide(n, radix.s1(), radix.s2(), out);
  }

 private:
  uint64_t window() const { return load_be64(data_ + (pos_ >> 3)) << (pos_ & 7); }

  // Values wider than 56 bits (very large boxes or small-index steps near the table's end):
  // schoolbook base-256 long division over the little-endian chunks.
  void triplet_wide(int n, uint32_t size1, uint32_t size2, uint32_t out[3]) {
    uint32_t chunk[9] = {};
    int nchunks = 0;
    for (; n >= 8; n -= 8) chunk[nchunks++] = bits(8);
    if (n > 0) chunk[nchunks++] = bits(n);
    const uint32_t divisors[3] = {0, size1, size2};
    for (int k = 2; k >= 1; --k) {
      uint64_t rest = 0;
      for (int j = nchunks - 1; j >= 0; --j) {
        rest = (rest << 8) | chunk[j];
        chunk[j] = static_cast<uint32_t>(rest / divisors[k]);
        rest %= divisors[k];
      }
      out[k] = static_cast<uint32_t>(rest);
    }
    out[0] = chunk[0] | (chunk[1] << 8) | (chunk[2] << 16) | (chunk[3] << 24);
  }

  const unsigned char* data_;
  uint64_t pos_ = 0;
};

// Radices of the run-length deltas, one per small index, computed once for all readers.
const Radix* small_radix_table() {
  static const std::array<Radix, kSmallIdxEnd> table = [] {
    std::array<Radix, kSmallIdxEnd> t{};
    for (int i = kFirstSmallIdx; i < kSmallIdxEnd; ++i) t[i] = Radix(kMagicInts[i], kMagicInts[i]);
    return t;
  }();
  return table.data();
}

// The integer ranges of a packed frame's header: per dimension its minimum and the size of its
// range, and whether a range is too wide for triplets.
struct PackedRanges {
  uint32_t sizeint[3];
  int64_t minint[3];
  bool wide = false;
};

// Checks the packed header's ranges and initial small index, filling `r`; the problem, or an
// empty string.
std::string check_packed_header(const RawFrame& h, PackedRanges& r) {
  for (int d = 0; d < 3; ++d) {
    const int64_t size = int64_t{h.maxint[d]} - h.minint[d] + 1;
    if (size < 1 || size > std::numeric_limits<int32_t>::max()) {
      return "invalid coordinate range [" + std::to_string(h.minint[d]) + ", " +
             std::to_string(h.maxint[d]) + "]";
    }
    r.sizeint[d] = static_cast<uint32_t>(size);
    r.minint[d] = h.minint[d];
    r.wide = r.wide || size > 0xffffff;
  }
  if (h.smallidx < kFirstSmallIdx || h.smallidx >= kSmallIdxEnd) {
    return "initial small index " + std::to_string(h.smallidx) + " outside [" +
           std::to_string(kFirstSmallIdx) + ", " + std::to_string(kSmallIdxEnd - 1) + "]";
  }
  return {};
}

// Decodes one frame's compressed coordinates, calling put(x, y, z) for every atom in order.
// Returns an empty string on success, otherwise a description of the corruption. Integers are
// carried in int64 so that corrupt input can only produce wrong numbers, never signed overflow.
template <class Put>
std::string decode_packed(const RawFrame& h, int natoms, Put&& put) {
  // Match GROMACS bit for bit: the reciprocal is formed in double, rounded to float, and each
  // coordinate is the float product (float)int * inv.
  const float inv = static_cast<float>(1.0 / static_cast<double>(h.precision));
  if (!std::isfinite(inv) || !(inv > 0)) return "precision has no finite inverse";

  PackedRanges ranges;
  if (std::string problem = check_packed_header(h, ranges); !problem.empty()) return problem;
  // Local copies for the loop below, as the registers it keeps them in.
  const int64_t minint[3] = {ranges.minint[0], ranges.minint[1], ranges.minint[2]};
  const bool wide = ranges.wide;
  const TripletWidths widths = triplet_widths(ranges.sizeint, wide);
  const int* dim_bits = widths.dim_bits;
  const int triplet_bits = widths.triplet_bits;
  int smallidx = h.smallidx;

  const Radix big_radix(ranges.sizeint[1], ranges.sizeint[2]);
  const Radix* const small_radices = small_radix_table();

  const uint64_t nbits = h.nbytes * 8;
  BitReader in(h.packed.data());
  int64_t atom = 0;
  int run = 0;  // persists: a cleared flag bit means "same run length as before"
  uint32_t q[3];
  auto emit = [&put, inv](const int64_t c[3]) {
    put(static_cast<float>(c[0]) * inv, static_cast<float>(c[1]) * inv,
        static_cast<float>(c[2]) * inv);
  };

  while (atom < natoms) {
    if (in.position() > nbits) {
      return "compressed data ends before atom " + std::to_string(atom);
    }
    int64_t big[3];
    if (wide) {
      for (int d = 0; d < 3; ++d) big[d] = int64_t{in.bits(dim_bits[d])} + minint[d];
    } else {
      in.triplet(triplet_bits, big_radix, q);
      for (int d = 0; d < 3; ++d) big[d] = int64_t{q[d]} + minint[d];
    }
    ++atom;

    int smaller_step = 0;
    if (in.bits(1) != 0) {
      const int code = static_cast<int>(in.bits(5));
      smaller_step = code % 3 - 1;
      run = code - code % 3;
    }

    if (run > 0) {
      const int nsmall = run / 3;
      if (atom + nsmall > natoms) {
        return "run of " + std::to_string(nsmall) + " atoms after atom " +
               std::to_string(atom - 1) + " exceeds natoms";
      }
      const uint32_t small_size = kMagicInts[smallidx];
      const int64_t small_half = small_size / 2;
      const Radix& small_radix = small_radices[smallidx];
      int64_t ref[3];
      in.triplet(smallidx, small_radix, q);
      for (int d = 0; d < 3; ++d) ref[d] = big[d] + int64_t{q[d]} - small_half;
      // The encoder swaps the first two atoms of a run (it compresses water better), so the
      // first delta-coded atom is written before the full-size one and becomes the reference.
      emit(ref);
      emit(big);
      for (int k = 1; k < nsmall; ++k) {
        in.triplet(smallidx, small_radix, q);
        for (int d = 0; d < 3; ++d) ref[d] += int64_t{q[d]} - small_half;
        emit(ref);
      }
      atom += nsmall;
    } else {
      emit(big);
    }

    smallidx += smaller_step;
    if (smallidx < kFirstSmallIdx || smallidx >= kSmallIdxEnd) {
      return "small index " + std::to_string(smallidx) + " out of range after atom " +
             std::to_string(atom - 1);
    }
  }
  if (in.position() > nbits) {
    return "compressed data ends inside the last atoms (" + std::to_string(in.position()) +
           " bits read, " + std::to_string(nbits) + " present)";
  }
  return {};
}

}  // namespace

std::string decode_frame(const RawFrame& raw, int natoms, TrajectoryFrame& out) {
  out.step = raw.step;
  out.time = raw.time;
  out.box = raw.box;
  // Every value is overwritten; a buffer that grows is allocated once, in huge pages.
  size_for_overwrite(out.xyz, static_cast<size_t>(natoms) * 3);
  if (!raw.compressed) {
    std::copy(raw.plain.begin(), raw.plain.begin() + out.xyz.size(), out.xyz.begin());
    out.precision = 0;
    return {};
  }
  if (raw.packed.size() < raw.nbytes + kPackedPadding)
    return "compressed bytes were not read";  // a caller bug, not bad input
  out.precision = raw.precision;
  float* xyz = out.xyz.data();
  const std::string problem = decode_packed(raw, natoms, [&xyz](float x, float y, float z) {
    xyz[0] = x;
    xyz[1] = y;
    xyz[2] = z;
    xyz += 3;
  });
  return problem.empty() ? problem : "corrupt compressed coordinates: " + problem;
}

std::string decode_frame_columns(const RawFrame& raw, int natoms, const ColumnMap& map,
                                 TrajectoryFrame& out, bool measure) {
  if (!raw.compressed) {  // at most kMaxUncompressedAtoms: decode, then gather
    const std::string problem = decode_frame(raw, natoms, out);
    if (!problem.empty()) return problem;
    std::vector<std::vector<int>> atoms(map.species());
    for (int i = 0; i < natoms; ++i)
      if (map.species_of(i) >= 0) atoms[static_cast<size_t>(map.species_of(i))].push_back(i);
    for (auto& a : atoms)  // the map's positions: ascending atom order within each species
      std::sort(a.begin(), a.end(),
                [&map](int x, int y) { return map.position_of(x) < map.position_of(y); });
    gather_species_columns(out.xyz.data(), atoms, out.columns);
    return {};
  }
  out.step = raw.step;
  out.time = raw.time;
  out.box = raw.box;
  out.xyz.clear();  // only the columns: a stale frame must not look like this one
  if (raw.packed.size() < raw.nbytes + kPackedPadding)
    return "compressed bytes were not read";  // a caller bug, not bad input
  out.precision = raw.precision;
  ColumnWriter writer(map, out.columns);
  const std::string problem =
      decode_packed(raw, natoms, [&writer](float x, float y, float z) { writer.add(x, y, z); });
  if (!problem.empty()) return "corrupt compressed coordinates: " + problem;
  if (measure) measure_species_columns(out.columns);
  return {};
}

}  // namespace pairhist::io::xtc
