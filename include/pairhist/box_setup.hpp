// Host-side box handling: classify a 3x3 box matrix, check it, and convert it into the kernels'
// Box<T>. Header-only, part of the geometry layer.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pairhist/geometry.hpp"

namespace pairhist {

/// Box vectors as rows (a = m[0..2], b = m[3..5], c = m[6..8]), like XTC and GRO store them.
using BoxMatrix = std::array<double, 9>;

inline const char* box_kind_name(BoxKind k) {
  switch (k) {
    case BoxKind::orthorhombic:
      return "orthorhombic";
    case BoxKind::triclinic:
      return "triclinic";
    default:
      return "none";
  }
}

/// GROMACS's rhombic dodecahedron (xy-square) of lattice vector length `edge`, with sqrt(1/2)
/// written to 8 digits as GROMACS prints it (the benchmarks' K3 cell).
inline BoxMatrix rhombic_dodecahedron(double edge = 1.0) {
  return {edge, 0, 0, 0, edge, 0, 0.5 * edge, 0.5 * edge, 0.70710678 * edge};
}

/// GROMACS's truncated octahedron of lattice vector length `edge`.
inline BoxMatrix truncated_octahedron(double edge = 1.0) {
  const double s2 = std::sqrt(2.0), s6 = std::sqrt(6.0);
  return {edge, 0, 0, edge / 3, 2 * s2 * edge / 3, 0, -edge / 3, s2 * edge / 3, s6 * edge / 3};
}

/// All zero means "no periodic box"; a diagonal matrix is orthorhombic; anything else triclinic.
inline BoxKind classify_box(const BoxMatrix& m) {
  bool all_zero = true, diagonal = true;
  for (int i = 0; i < 9; ++i) {
    if (m[i] != 0) all_zero = false;
    if (i % 4 != 0 && m[i] != 0) diagonal = false;
  }
  if (all_zero) return BoxKind::none;
  return diagonal ? BoxKind::orthorhombic : BoxKind::triclinic;
}

/// Empty string when the box can be used, otherwise why not. Kernels need GROMACS's
/// lower-triangular form with a positive diagonal.
inline std::string box_problem(const BoxMatrix& m) {
  for (double v : m)
    if (!std::isfinite(v)) return "box has a non-finite component";
  if (classify_box(m) == BoxKind::none) return "";
  if (m[1] != 0 || m[2] != 0 || m[5] != 0)
    return "box is not lower-triangular (a_y, a_z and b_z must be 0, as GROMACS writes boxes)";
  if (!(m[0] > 0 && m[4] > 0 && m[8] > 0)) return "box has a zero or negative diagonal";
  return "";
}

inline double box_volume(const BoxMatrix& m) {
  return m[0] * m[4] * m[8];
}

/// Calls fn(x, y, z) for every non-zero lattice vector of the lower-triangular cell m that can be
/// shorter than `reach` (a superset: coefficient bounds from |L_z|, |L_y|, |L_x| <= reach).
template <class Fn>
void for_each_lattice_vector(const BoxMatrix& m, double reach, Fn&& fn) {
  const int kmax = static_cast<int>(std::ceil(reach / m[8]));
  const int jmax = static_cast<int>(std::ceil((reach + kmax * std::fabs(m[7])) / m[4]));
  const int imax =
      static_cast<int>(std::ceil((reach + jmax * std::fabs(m[3]) + kmax * std::fabs(m[6])) / m[0]));
  for (int k = -kmax; k <= kmax; ++k)
    for (int j = -jmax; j <= jmax; ++j)
      for (int i = -imax; i <= imax; ++i)
        if (i != 0 || j != 0 || k != 0)
          fn(i * m[0] + j * m[3] + k * m[6], j * m[4] + k * m[7], k * m[8]);
}

/// Length of the shortest non-zero lattice vector of a periodic cell (any lower-triangular basis,
/// however skewed). The minimum image is unique, and a min-image histogram exact, only for r
/// below half of it.
inline double shortest_lattice_vector(const BoxMatrix& m) {
  double reach = INFINITY;  // no lattice vector is shorter than the shortest basis vector
  for (int v = 0; v < 3; ++v)
    reach = std::fmin(reach, std::sqrt(m[3 * v] * m[3 * v] + m[3 * v + 1] * m[3 * v + 1] +
                                       m[3 * v + 2] * m[3 * v + 2]));
  double best = reach;
  for_each_lattice_vector(m, reach, [&](double x, double y, double z) {
    best = std::fmin(best, std::sqrt(x * x + y * y + z * z));
  });
  return best;
}

/// Largest r_max a minimum-image histogram of this box supports (infinite without a box).
inline double max_minimum_image_rmax(const BoxMatrix& m) {
  return classify_box(m) == BoxKind::none ? INFINITY : 0.5 * shortest_lattice_vector(m);
}

/// Whether a minimum-image histogram up to r_max is exact in this box. Box vectors usually carry
/// about 8 significant digits (0.70710678 for sqrt(1/2) in K3's dodecahedron, whose limit is then
/// 0.49999999), so r_max within 1e-6 relative of the limit is accepted.
inline bool rmax_fits_minimum_image(double r_max, const BoxMatrix& m) {
  return r_max <= max_minimum_image_rmax(m) * (1 + 1e-6);
}

/// Lattice vectors L that can make a reduced triclinic displacement d (in the brick
/// |x| <= ax/2, |y| <= by/2, |z| <= cz/2) shorter than r_max: those whose -L lies within r_max of
/// the brick. Any minimum image below r_max is d + L for one of them (or d itself), so searching
/// them is exact; for GROMACS-reduced cells there are a handful (8 for a rhombic dodecahedron at
/// its inradius). Rows of the returned vector: x, y, z.
inline std::vector<std::array<double, 3>> triclinic_images(const BoxMatrix& m, double r_max) {
  const double half[3] = {0.5 * m[0], 0.5 * m[4], 0.5 * m[8]};
  const double reach = r_max + std::sqrt(half[0] * half[0] + half[1] * half[1] + half[2] * half[2]);
  std::vector<std::array<double, 3>> images;
  for_each_lattice_vector(m, reach, [&](double x, double y, double z) {
    const double l[3] = {x, y, z};
    double gap2 = 0;  // squared distance from -L to the brick
    for (int c = 0; c < 3; ++c) {
      const double g = std::fmax(std::fabs(l[c]) - half[c], 0.0);
      gap2 += g * g;
    }
    if (gap2 < r_max * r_max) images.push_back({x, y, z});
  });
  return images;
}

/// triclinic_images split by the octant of the reduced displacement: list o holds the lattice
/// vectors L whose -L lies within r_max of the part of the brick where the signs of d are o
/// (bit 0: x < 0, bit 1: y < 0, bit 2: z < 0; each part closed, so a zero component is covered
/// by both octants it borders). A rhombic dodecahedron at its inradius needs one per octant
/// instead of 8 in all.
inline std::array<std::vector<std::array<double, 3>>, 8> triclinic_octant_images(const BoxMatrix& m,
                                                                                 double r_max) {
  const double half[3] = {0.5 * m[0], 0.5 * m[4], 0.5 * m[8]};
  std::array<std::vector<std::array<double, 3>>, 8> lists;
  for (const auto& l : triclinic_images(m, r_max)) {
    for (int o = 0; o < 8; ++o) {
      double gap2 = 0;  // squared distance from -L to this octant's part of the brick
      for (int c = 0; c < 3; ++c) {
        const bool negative = (o >> c) & 1;
        const double lo = negative ? -half[c] : 0.0, hi = negative ? 0.0 : half[c];
        const double p = -l[static_cast<size_t>(c)];
        const double g = std::fmax(std::fmax(lo - p, p - hi), 0.0);
        gap2 += g * g;
      }
      if (gap2 < r_max * r_max) lists[static_cast<size_t>(o)].push_back(l);
    }
  }
  return lists;
}

/// Most translations any octant of this cell needs searched at r_max.
inline size_t triclinic_search_size(const BoxMatrix& m, double r_max) {
  size_t most = 0;
  for (const auto& list : triclinic_octant_images(m, r_max)) most = std::max(most, list.size());
  return most;
}

/// The kernels' form of a box for histograms up to r_max (in the units of m), rounded once to T
/// so every worker uses the same values. Throws std::invalid_argument for a triclinic cell so
/// skewed that more than kMaxOctantImages translations would have to be searched in one octant
/// (reduce the cell first).
template <class T>
Box<T> make_box(const BoxMatrix& m, BoxKind kind, double r_max) {
  Box<T> b;
  b.kind = kind;
  if (kind == BoxKind::none) return b;
  b.ax = static_cast<T>(m[0]);
  b.bx = static_cast<T>(m[3]);
  b.by = static_cast<T>(m[4]);
  b.cx = static_cast<T>(m[6]);
  b.cy = static_cast<T>(m[7]);
  b.cz = static_cast<T>(m[8]);
  b.inv_ax = static_cast<T>(1.0 / m[0]);
  b.inv_by = static_cast<T>(1.0 / m[4]);
  b.inv_cz = static_cast<T>(1.0 / m[8]);
  if (kind == BoxKind::orthorhombic) {
    b.bx = b.cx = b.cy = 0;
    return b;
  }
  const auto lists = triclinic_octant_images(m, r_max);
  size_t most = 0;
  for (const auto& list : lists) most = std::max(most, list.size());
  if (most > static_cast<size_t>(kMaxOctantImages))
    throw std::invalid_argument("triclinic box too skewed: " + std::to_string(most) +
                                " lattice translations to search in one octant (at most " +
                                std::to_string(kMaxOctantImages) + "); reduce the box first");
  // Every octant searches the same number of entries (no divergence between GPU lanes); the
  // padding is so far away that it never wins: its squared length (~3e36) is finite in floats.
  const T far = T(1e18);
  b.octant_images = static_cast<int>(most);
  for (size_t o = 0; o < 8; ++o)
    for (size_t i = 0; i < most; ++i) {
      ImageShift<T>& s = b.octant_image[o][i];
      if (i < lists[o].size())
        s = {static_cast<T>(lists[o][i][0]), static_cast<T>(lists[o][i][1]),
             static_cast<T>(lists[o][i][2]), T(0)};
      else
        s = {far, far, far, T(0)};
    }
  return b;
}

/// A run's bins, in the coordinates' unit: nbins equal parts of [r_min, r_max), no pair counted
/// at r >= r_cut (0: r_max) nor below r_min.
struct BinRange {
  double r_max = 0;
  int nbins = 0;
  double r_cut = 0;
  double r_min = 0;
};

/// The bin scale nbins / (r_max - r_min), rounded once to T.
template <class T>
T bin_scale(double r_max, int nbins, double r_min = 0) {
  return static_cast<T>(static_cast<double>(nbins) / (r_max - r_min));
}

/// The cut-off in bin units (HistogramParams::limit): T(nbins) where r_cut is 0 or not below
/// r_max (the last bin's upper edge: bit for bit the clamp of a whole last bin), else r_cut times
/// the very scale the coordinates are multiplied by, in double, rounded once to T.
template <class T>
T bin_limit(double r_max, int nbins, double r_cut, T scale) {
  if (!(r_cut > 0) || r_cut >= r_max) return static_cast<T>(nbins);
  return static_cast<T>(r_cut * static_cast<double>(scale));
}

/// Bins from r_min > 0: HistogramParams::lower and ::limit. Both are the lengths times the scale,
/// rounded once to T; limit then steps down (an ulp at a time, at most a few) until fl(limit -
/// lower) < nbins + 1, so that no pair's bin exceeds nbins, the index of "not counted".
template <class T>
std::pair<T, T> shifted_bounds(double r_min, double r_max, int nbins, double r_cut, T scale) {
  const double cut = r_cut > 0 && r_cut < r_max ? r_cut : r_max;
  const T lower = static_cast<T>(r_min * static_cast<double>(scale));
  T limit = static_cast<T>(cut * static_cast<double>(scale));
  while (limit > lower && !(fp::sub(limit, lower) < static_cast<T>(nbins + 1)))
    limit = std::nextafter(limit, T(0));
  return {lower, limit};
}

/// Everything a kernel needs for one frame: bin scale, bin count, bounds and the box in bin units.
/// The bins are nbins equal parts of [r_min, r_max) (r_min 0 unless given); r_cut (0: r_max),
/// inside the last bin, leaves it partial: no pair at r >= r_cut, nor at r < r_min, is counted.
/// The box is scaled in double by the very scale the coordinates are multiplied by, then rounded
/// once to T; its image tables are those for distances below r_max in bin units.
template <class T>
HistogramParams<T> make_params(const BoxMatrix& m, BoxKind kind, double r_max, int nbins,
                               double r_cut = 0, double r_min = 0) {
  if (!(r_min > 0)) r_min = 0;
  const T scale = bin_scale<T>(r_max, nbins, r_min);
  BoxMatrix in_bins;
  for (size_t k = 0; k < m.size(); ++k) in_bins[k] = m[k] * static_cast<double>(scale);
  const double reach = r_min > 0 ? r_max * static_cast<double>(scale) : static_cast<double>(nbins);
  HistogramParams<T> p{make_box<T>(in_bins, kind, reach), scale, nbins,
                       bin_limit<T>(r_max, nbins, r_cut, scale)};
  if (r_min > 0) std::tie(p.lower, p.limit) = shifted_bounds<T>(r_min, r_max, nbins, r_cut, scale);
  return p;
}

template <class T>
HistogramParams<T> make_params(const BoxMatrix& m, BoxKind kind, const BinRange& bins) {
  return make_params<T>(m, kind, bins.r_max, bins.nbins, bins.r_cut, bins.r_min);
}

}  // namespace pairhist
