// Periodic boxes, minimum image and distance -> bin: the single source of truth shared by the CPU
// and CUDA kernels. Results must be bit-identical on both, so every operation here is spelled out:
// on the device through explicitly rounded intrinsics, on the host with -ffp-contract=off (set by
// CMake for every target that includes this header). Fused multiply-adds are used only where
// written (fp::fma): IEEE fma is correctly rounded on both sides, so they agree as well.
//
// Distances are computed in bin units: every coordinate is multiplied by scale = fl(nbins /
// (r_max - r_min)) once, where a kernel loads it (`scaled`), and the box comes in the same units
// (make_params), so fl(sqrt(d2)) is the bin position itself and the per-pair multiply by scale
// disappears. Bin of a pair: with r = fl(sqrt(d2)) and s = fl(r - lower),
//   k = int(r < limit && s >= 0 ? s : nbins), counted iff k < nbins;
// lower is r_min in bin units (0 for bins from 0: then s == r and the rule is int(r < limit ? r :
// nbins), bit for bit), limit the cut-off r_cut in bin units (nbins itself where r_min is 0 and
// r_cut the last bin's upper edge), so no pair at r < r_min or r >= r_cut is counted and a cut-off
// inside the last bin leaves that bin partial. Everything that bins a pair (CPU and CUDA kernels,
// the exclusion re-binning) goes through bin_of_points or the same steps.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#define PH_HD __host__ __device__ __forceinline__
#else
#define PH_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define PH_DEVICE_UNROLL4 _Pragma("unroll 4")
#else
#define PH_DEVICE_UNROLL4
#endif

namespace pairhist {

enum class BoxKind : int { none = 0, orthorhombic = 1, triclinic = 2 };

/// A box kind as a type, what dispatch_box_kind hands its function: `decltype(kind)::value` is
/// the kind as a constant, to instantiate a kernel with.
template <BoxKind K>
using BoxKindTag = std::integral_constant<BoxKind, K>;

/// Calls f(BoxKindTag<K>{}) for the kind K that `kind` holds and returns what f returns: the one
/// place a run-time box kind picks a kernel instantiation (the kernels take the kind as a
/// template argument, so that the minimum image of a kind without a box costs nothing). A value
/// outside BoxKind throws std::invalid_argument. Host code only (CPU kernels and CUDA
/// launchers); call it once per task or launch, outside the loops over pairs.
template <class F>
decltype(auto) dispatch_box_kind(BoxKind kind, F&& f) {
  switch (kind) {
    case BoxKind::none:
      return std::forward<F>(f)(BoxKindTag<BoxKind::none>{});
    case BoxKind::orthorhombic:
      return std::forward<F>(f)(BoxKindTag<BoxKind::orthorhombic>{});
    case BoxKind::triclinic:
      return std::forward<F>(f)(BoxKindTag<BoxKind::triclinic>{});
  }
  throw std::invalid_argument("unknown box kind " + std::to_string(static_cast<int>(kind)));
}

/// Most lattice vectors a reduced triclinic displacement is compared against in one octant.
constexpr int kMaxOctantImages = 16;

/// A lattice translation (w pads it to 16 or 32 bytes: one vector load on the GPU).
template <class T>
struct ImageShift {
  T x, y, z, w;
};

/// A periodic cell in GROMACS's lower-triangular form: a = (ax,0,0), b = (bx,by,0), c = (cx,cy,cz).
/// The inverse diagonal is stored so CPU and GPU multiply by the very same rounded value. For a
/// triclinic cell, `octant_image[o]` lists the lattice vectors that can bring a reduced
/// displacement whose sign bits are o (x: 1, y: 2, z: 4) closer than r_max (the reach make_box
/// was given: nbins for the kernels' boxes, which are in bin units); every octant has
/// `octant_images` entries, the unused ones far away (computed on the host by make_box, see
/// box_setup.hpp).
template <class T>
struct Box {
  BoxKind kind = BoxKind::none;
  T ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;
  T inv_ax = 0, inv_by = 0, inv_cz = 0;
  int octant_images = 0;
  ImageShift<T> octant_image[8][kMaxOctantImages] = {};
};

/// What a kernel needs besides coordinates. Bin k of the pair (p, q) is
///   k = floor( fl(sqrt(d2)) ),
/// with d2 the squared minimum-image distance, in `box` (given in bin units), of the displacement
/// fl(fl(q * scale) - fl(p * scale)) per component, scale = fl(nbins / r_max) (single-precision
/// rectangular cells: of the coordinates as `loaded` moves them into the cell); d2 is
/// norm2(dx, dy, dz) = fma(dx, dx, fma(dy, dy, fma(dz, dz, 2^-100))), every operation rounded to T.
/// Counted iff lower <= fl(sqrt(d2)) < limit (and its bin below nbins: see bin_of_distance).
template <class T>
struct HistogramParams {
  Box<T> box;   // in bin units: the lengths times scale (make_params)
  T scale = 0;  // applied to the coordinates only, once each, where they are loaded
  int nbins = 0;
  // The cut-off in bin units: T(nbins) where the bins start at 0 and it is the last bin's upper
  // edge (also when left out of an aggregate initialiser), else fl(r_cut * scale) (make_params).
  // One value, rounded once on the host, so every kernel on every device cuts at the same r.
  T limit = static_cast<T>(nbins);
  // r_min in bin units, fl(r_min * scale): bin k spans [lower + k, lower + k + 1). 0 for bins
  // from 0; make_params keeps fl(limit - lower) < nbins + 1, so no bin index exceeds nbins.
  T lower = 0;
};

namespace fp {
// Explicitly rounded arithmetic: identical on host and device, never fused.
#if defined(__CUDA_ARCH__)
PH_HD float add(float a, float b) {
  return __fadd_rn(a, b);
}
PH_HD float sub(float a, float b) {
  return __fsub_rn(a, b);
}
PH_HD float mul(float a, float b) {
  return __fmul_rn(a, b);
}
PH_HD float sqrt(float a) {
  return __fsqrt_rn(a);
}
PH_HD float fma(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
PH_HD float min(float a, float b) {
  return ::fminf(a, b);
}
PH_HD double add(double a, double b) {
  return __dadd_rn(a, b);
}
PH_HD double sub(double a, double b) {
  return __dsub_rn(a, b);
}
PH_HD double mul(double a, double b) {
  return __dmul_rn(a, b);
}
PH_HD double sqrt(double a) {
  return __dsqrt_rn(a);
}
PH_HD double fma(double a, double b, double c) {
  return __fma_rn(a, b, c);
}
PH_HD double min(double a, double b) {
  return ::fmin(a, b);
}
#else
template <class T>
PH_HD T add(T a, T b) {
  return a + b;
}
template <class T>
PH_HD T sub(T a, T b) {
  return a - b;
}
template <class T>
PH_HD T mul(T a, T b) {
  return a * b;
}
PH_HD float sqrt(float a) {
  return std::sqrt(a);
}
PH_HD double sqrt(double a) {
  return std::sqrt(a);
}
PH_HD float fma(float a, float b, float c) {
  return std::fma(a, b, c);
}
PH_HD double fma(double a, double b, double c) {
  return std::fma(a, b, c);
}
// a < b ? a : b, which maps NaN to b exactly like fminf does on the device.
template <class T>
PH_HD T min(T a, T b) {
  return a < b ? a : b;
}
#endif
}  // namespace fp

/// What every squared distance starts from: 2^-100 (in bins squared: a distance grows by at most
/// 2^-50 bins, and where an FMA's exact result is a tie between two floats the tie now rounds up,
/// so d2 may also differ by one ulp from the sum without it). It keeps squared distances inside the
/// range where the GPU's five-instruction square root is correctly rounded (from 2^-101; zero is
/// outside), so the kernels need no branch for coincident points (codelets/cuda/bin_roots.cuh). It
/// costs nothing: the innermost product becomes an FMA.
template <class T>
constexpr T kSquaredDistanceFloor = T(0x1p-100);

/// dx*dx + dy*dy + dz*dz + 2^-100 as fma(dx, dx, fma(dy, dy, fma(dz, dz, 2^-100))): never below
/// 2^-100 (or NaN).
template <class T>
PH_HD T norm2(T dx, T dy, T dz) {
  return fp::fma(dx, dx, fp::fma(dy, dy, fp::fma(dz, dz, kSquaredDistanceFloor<T>)));
}

/// The integer nearest to d * inv (ties to even), computed as fl(fma(d, inv, M) - M) with
/// M = 1.5 * 2^(digits - 1): an FMA and a subtraction, where rint would be a quarter-rate
/// conversion on the GPU. Exact for |d * inv| < 2^22 (float) or 2^51 (double): displacements up to
/// four million box lengths in single precision.
template <class T>
PH_HD T nearest_integer(T d, T inv) {
  constexpr T magic = sizeof(T) == 4 ? T(12582912.0) : T(6755399441055744.0);
  return fp::sub(fp::fma(d, inv, magic), magic);
}

/// d - n * L in one rounding.
template <class T>
PH_HD T shift(T d, T n, T length) {
  return fp::fma(-n, length, d);
}

/// Rectangular cell: per-component shift by the nearest whole box length (exact minimum image at
/// any distance).
template <class T>
PH_HD void wrap_orthorhombic(const Box<T>& box, T& dx, T& dy, T& dz) {
  dx = shift(dx, nearest_integer(dx, box.inv_ax), box.ax);
  dy = shift(dy, nearest_integer(dy, box.inv_by), box.by);
  dz = shift(dz, nearest_integer(dz, box.inv_cz), box.cz);
}

/// Triclinic cell, step 1: reduce along c, then b, then a (each removes the component its vector
/// alone carries). The result lies in the brick |x| <= ax/2, |y| <= by/2, |z| <= cz/2. `Cell` is a
/// Box<T> or anything with its vectors and inverse diagonal (the CPU passes keep a local copy of
/// those nine values, which the compiler can hold in registers).
template <class Cell, class T>
PH_HD void reduce_triclinic(const Cell& box, T& dx, T& dy, T& dz) {
  T s = nearest_integer(dz, box.inv_cz);
  dx = shift(dx, s, box.cx);
  dy = shift(dy, s, box.cy);
  dz = shift(dz, s, box.cz);
  s = nearest_integer(dy, box.inv_by);
  dx = shift(dx, s, box.bx);
  dy = shift(dy, s, box.by);
  s = nearest_integer(dx, box.inv_ax);
  dx = shift(dx, s, box.ax);
}

/// The sign bit of v, read from its representation (so -0 counts as negative on every device).
PH_HD unsigned sign_bit(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v) >> 31;
#else
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits >> 31;
#endif
}
PH_HD unsigned sign_bit(double v) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(static_cast<unsigned long long>(__double_as_longlong(v)) >> 63);
#else
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<unsigned>(bits >> 63);
#endif
}

/// Octant of a displacement from its sign bits (x: 1, y: 2, z: 4). A zero component lies in both
/// octants it borders, and the lists of both cover it.
template <class T>
PH_HD int octant_of(T dx, T dy, T dz) {
  return static_cast<int>(sign_bit(dx) | (sign_bit(dy) << 1) | (sign_bit(dz) << 2));
}

/// Triclinic cell, step 2: squared length of the reduced displacement moved by one lattice vector.
template <class T>
PH_HD T shifted_norm2(const ImageShift<T>& s, T dx, T dy, T dz) {
  return norm2(fp::add(dx, s.x), fp::add(dy, s.y), fp::add(dz, s.z));
}

/// Where a triclinic search finds its candidates: octant o's list starts at first + o * stride.
/// The CPU reads the box's own table; the GPU kernels copy the used part of it into shared
/// memory, where lanes of different octants read different entries without serialising.
template <class T>
struct ImageTable {
  const ImageShift<T>* first;
  int stride;
};

template <class T>
PH_HD ImageTable<T> image_table(const Box<T>& box) {
  return {&box.octant_image[0][0], kMaxOctantImages};
}

/// The nine values reduce_triclinic reads, apart from a box's image table.
template <class T>
struct CellVectors {
  T ax, bx, by, cx, cy, cz, inv_ax, inv_by, inv_cz;
  PH_HD explicit CellVectors(const Box<T>& b)
      : ax(b.ax),
        bx(b.bx),
        by(b.by),
        cx(b.cx),
        cy(b.cy),
        cz(b.cz),
        inv_ax(b.inv_ax),
        inv_by(b.inv_by),
        inv_cz(b.inv_cz) {}
};

/// Exact minimum image in a triclinic cell for every distance below the r_max the box was made
/// for: the reduced vector, or one of the few lattice translations of its octant that can beat it.
/// FixedImages > 0 promises box.octant_images == FixedImages (the GPU kernels' loop-free path for
/// the common one-candidate cells: the rhombic dodecahedron); 0 reads the count from the box.
template <class T, int FixedImages = 0>
PH_HD T distance2_triclinic(const Box<T>& box, ImageTable<T> images, T dx, T dy, T dz) {
  reduce_triclinic(box, dx, dy, dz);
  T best = norm2(dx, dy, dz);
  const ImageShift<T>* candidates = images.first + octant_of(dx, dy, dz) * images.stride;
  const int count = FixedImages > 0 ? FixedImages : box.octant_images;
  PH_DEVICE_UNROLL4 for (int m = 0; m < count; ++m) {
    best = fp::min(shifted_norm2(candidates[m], dx, dy, dz), best);
  }
  return best;
}

/// Squared (minimum-image) distance of the displacement (dx, dy, dz) = p_b - p_a; a triclinic
/// cell searches the translations in `images` (the box's table or a copy of it).
template <BoxKind K, class T, int FixedImages = 0>
PH_HD T distance2(const Box<T>& box, ImageTable<T> images, T dx, T dy, T dz) {
  if constexpr (K == BoxKind::orthorhombic) {
    (void)images;
    wrap_orthorhombic(box, dx, dy, dz);
    return norm2(dx, dy, dz);
  } else if constexpr (K == BoxKind::triclinic) {
    return distance2_triclinic<T, FixedImages>(box, images, dx, dy, dz);
  } else {
    (void)box;
    (void)images;
    return norm2(dx, dy, dz);
  }
}

template <BoxKind K, class T>
PH_HD T distance2(const Box<T>& box, T dx, T dy, T dz) {
  return distance2<K>(box, image_table(box), dx, dy, dz);
}

/// A coordinate in bin units: x * scale, rounded to T. Kernels apply it once per coordinate.
template <class T>
PH_HD T scaled(T x, const HistogramParams<T>& p) {
  return fp::mul(x, p.scale);
}

/// Single precision folds minimum images from coordinates moved into the cell (2 instructions per
/// component); double precision keeps wrap_orthorhombic per pair, because on the H100 a double
/// min is a compare and two selects (K2 double: 482 -> 428 bapps with the fold).
template <class T>
constexpr bool kFoldInCell = sizeof(T) == 4;

/// x - floor(x / L) * L: a coordinate moved into [0, L] (up to a rounding at either end).
template <class T>
PH_HD T into_cell(T x, T length, T inv_length) {
  return fp::fma(-std::floor(fp::mul(x, inv_length)), length, x);
}

/// Coordinate `axis` of a point as the kernels load it: in bin units and, in a rectangular cell,
/// moved into the cell, so that every displacement is shorter than a box length (up to roundings)
/// and its minimum image is min(|d|, L - |d|) per component (pair_distance2): two instructions per
/// component instead of the three of wrap_orthorhombic. The rounding of x / L leaves a coordinate
/// up to ~|x| 2^-23 outside [0, L] in single precision (about a bin at 1000 box lengths, 0.1 L at
/// 2^20): harmless up to |d| = 1.5 L (see folded), i.e. for coordinates within ~2^20 box lengths
/// of the origin, where single precision has long stopped resolving bins anyway.
template <BoxKind K, class T>
PH_HD T loaded(T x, const HistogramParams<T>& p, int axis) {
  const T v = scaled(x, p);
  if constexpr (K == BoxKind::orthorhombic && kFoldInCell<T>) {
    const Box<T>& b = p.box;
    return axis == 0   ? into_cell(v, b.ax, b.inv_ax)
           : axis == 1 ? into_cell(v, b.by, b.inv_by)
                       : into_cell(v, b.cz, b.inv_cz);
  } else {
    return v;
  }
}

/// min(|d|, L - |d|): the minimum-image length of a component of a displacement between two
/// points moved into the cell. For L < |d| <= 1.5 L (roundings of into_cell) the minimum is the
/// negative L - |d|, whose square is (|d| - L)^2: still the minimum image, on purpose.
template <class T>
PH_HD T folded(T d, T length) {
  const T a = std::fabs(d);
  return fp::min(a, fp::sub(length, a));
}

/// Squared distance of the displacement between two points as `loaded` returns them.
template <BoxKind K, class T, int FixedImages = 0>
PH_HD T pair_distance2(const Box<T>& box, ImageTable<T> images, T dx, T dy, T dz) {
  if constexpr (K == BoxKind::orthorhombic && kFoldInCell<T>) {
    (void)images;
    return norm2(folded(dx, box.ax), folded(dy, box.by), folded(dz, box.cz));
  } else {
    return distance2<K, T, FixedImages>(box, images, dx, dy, dz);
  }
}

/// Bin of a distance r = fl(sqrt(d2)) in bin units; nbins means "not counted" (r >= limit, or
/// NaN). limit <= nbins (HistogramParams::limit).
template <class T>
PH_HD int bin_of_distance(T r, T limit, int nbins) {
  // Select first, convert after: a compare and a blend the compilers vectorise, NaN also maps to
  // nbins, and with limit == T(nbins) it is min(r, nbins), the clamp of a cut-off on a bin edge.
  // nbins is converted outside the select: converted inside one arm, GCC saw control flow and left
  // the CPU row loops scalar (K1 2.6x slower).
  const T uncounted = static_cast<T>(nbins);
  return static_cast<int>(r < limit ? r : uncounted);
}

/// Bins that start at `lower` (> 0: r_min in bin units): nbins also for r < lower. With lower = 0
/// the same as bin_of_distance(r, limit, nbins) for every r (r - 0 is r, r >= 0 or NaN).
template <class T>
PH_HD int bin_of_distance(T r, T lower, T limit, int nbins) {
  // Bitwise & and one select, for the same reason as above (no control flow in row loops).
  const T uncounted = static_cast<T>(nbins);
  const T s = fp::sub(r, lower);
  const bool counted = (r < limit) & (s >= T(0));
  return static_cast<int>(counted ? s : uncounted);
}

/// A cut-off on the last bin's upper edge: min(r, nbins).
template <class T>
PH_HD int bin_of_distance(T r, int nbins) {
  return bin_of_distance(r, T(nbins), nbins);
}

template <class T>
PH_HD int bin_of_distance(T r, const HistogramParams<T>& p) {
  return bin_of_distance(r, p.lower, p.limit, p.nbins);
}

/// Bin of a squared distance in bin units.
template <class T>
PH_HD int bin_of(T d2, T limit, int nbins) {
  return bin_of_distance(fp::sqrt(d2), limit, nbins);
}

template <class T>
PH_HD int bin_of(T d2, T lower, T limit, int nbins) {
  return bin_of_distance(fp::sqrt(d2), lower, limit, nbins);
}

template <class T>
PH_HD int bin_of(T d2, int nbins) {
  return bin_of(d2, T(nbins), nbins);
}

template <class T>
PH_HD int bin_of(T d2, const HistogramParams<T>& p) {
  return bin_of(d2, p.lower, p.limit, p.nbins);
}

/// Bin of the pair (a, b) given in the coordinates' own units: the kernels' steps, one pair at a
/// time (for the plain reference loop and the exclusion re-binning).
template <BoxKind K, class T>
PH_HD int bin_of_points(const HistogramParams<T>& p, T ax, T ay, T az, T bx, T by, T bz) {
  const T d2 = pair_distance2<K>(p.box, image_table(p.box),
                                 fp::sub(loaded<K>(bx, p, 0), loaded<K>(ax, p, 0)),
                                 fp::sub(loaded<K>(by, p, 1), loaded<K>(ay, p, 1)),
                                 fp::sub(loaded<K>(bz, p, 2), loaded<K>(az, p, 2)));
  return bin_of(d2, p);
}

}  // namespace pairhist
