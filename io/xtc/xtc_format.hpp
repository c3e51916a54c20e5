// Constants and bit arithmetic of the XTC format (GROMACS's xdr3dfcoord), shared by our reader
// and writer so both follow one definition.
#pragma once

#include <cstdint>

namespace pairhist::io::xtc {

constexpr int32_t kMagicClassic = 1995;
constexpr int kMaxUncompressedAtoms = 9;      // frames this small store plain floats
constexpr size_t kFrameHeaderBytes = 14 * 4;  // magic, natoms, step, time, box[9], natoms

// Number of values of a run-length delta at each "small index": magic[i]^3 fits in i bits, which
// is why the index doubles as the bit width of a packed triplet. The values are fixed by the
// format. Indices below 9 are unused.
constexpr uint32_t kMagicInts[] = {
    0,        0,        0,       0,       0,       0,       0,       0,       0,       8,
    10,       12,       16,      20,      25,      32,      40,      50,      64,      80,
    101,      128,      161,     203,     256,     322,     406,     512,     645,     812,
    1024,     1290,     1625,    2048,    2580,    3250,    4096,    5060,    6501,    8192,
    10321,    13003,    16384,   20642,   26007,   32768,   41285,   52015,   65536,   82570,
    104031,   131072,   165140,  208063,  262144,  330280,  416127,  524287,  660561,  832255,
    1048576,  1321122,  1664510, 2097152, 2642245, 3329021, 4194304, 5284491, 6658042, 8388607,
    10568983, 13316085, 16777216};
constexpr int kFirstSmallIdx = 9;
constexpr int kSmallIdxEnd = static_cast<int>(sizeof(kMagicInts) / sizeof(kMagicInts[0]));
static_assert(kSmallIdxEnd == 73, "XTC magic-int table must have 73 entries");

inline uint64_t byte_swap64(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_bswap64(v);
#else
  v = ((v & 0x00ff00ff00ff00ffULL) << 8) | ((v >> 8) & 0x00ff00ff00ff00ffULL);
  v = ((v & 0x0000ffff0000ffffULL) << 16) | ((v >> 16) & 0x0000ffff0000ffffULL);
  return (v << 32) | (v >> 32);
#endif
}

/// Bits needed to write `size` itself (not size - 1): the format defines widths this way.
inline int bit_length(uint64_t size) {
  int bits = 0;
  while (size != 0) {
    ++bits;
    size >>= 1;
  }
  return bits;
}

/// Bit length of s0*s1*s2 for sizes up to 2^24, whose product needs up to 72 bits.
inline int bit_length_of_product(const uint32_t s[3]) {
  const uint64_t p01 = uint64_t{s[0]} * s[1];  // <= 48 bits
  const uint64_t lo = (p01 & 0xffffffffULL) * s[2];
  const uint64_t hi = (p01 >> 32) * s[2] + (lo >> 32);
  return hi != 0 ? 32 + bit_length(hi) : bit_length(lo & 0xffffffffULL);
}

/// Bit fields of one atom's integer triplet: ranges above 2^24 cannot be multiplied together, so
/// each integer then gets its own field (dim_bits); otherwise the three share one (triplet_bits).
struct TripletWidths {
  int dim_bits[3] = {0, 0, 0};
  int triplet_bits = 0;
};

inline TripletWidths triplet_widths(const uint32_t sizeint[3], bool wide) {
  TripletWidths w;
  if (wide) {
    for (int d = 0; d < 3; ++d) w.dim_bits[d] = bit_length(sizeint[d]);
  } else {
    w.triplet_bits = bit_length_of_product(sizeint);
  }
  return w;
}

}  // namespace pairhist::io::xtc
