// Every periodic image within r_max, not only the minimum image: the geometry of a frame counted
// as no-box sub-problems (r_max beyond half the box's shortest lattice vector, where the minimum
// image misses pairs). Host code only; the engine lays frames out with it (tasks/periodic_images)
// and the exclusions re-bin their pairs with it (analysis/exclusions.cpp), so both see the very
// same coordinates and the kernels' bins of excluded pairs can be taken out exactly.
//
// A frame's points are first moved into the cell (wrap_into_cell, in double, rounded once to the
// run's precision T). A physical pair is (i, j + s) for a lattice vector s. Species A against B
// (A != B): all pairs of A against the "halo" of B, the images w_j + s (every s, 0 included) that
// lie within reach of the wrapped points' bounding box. A against itself: the usual i < j
// triangle of A (s = 0), plus A against its half halo, the images with s in one half-space
// (in_upper_half) and i = j allowed: {i, j + s} and {j, i - s} are one pair, and exactly one of s
// and -s is in the half-space, so every unordered pair is counted once. Each image coordinate is
// fl_T(w + s) with s in double (image_coordinate): one rounding, on the host, so every worker and
// every algorithm reads identical inputs and the no-box kernels stay bit-identical.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist {

/// The distance up to which a run counts pairs: r_cut where it cuts inside the last bin, else
/// r_max.
inline double counted_radius(double r_max, double r_cut) {
  return r_cut > 0 && r_cut < r_max ? r_cut : r_max;
}

/// Whether a frame with this box, counted up to `radius`, needs images beyond the minimum image.
inline bool beyond_minimum_image(const BoxMatrix& m, double radius) {
  return classify_box(m) != BoxKind::none && !rmax_fits_minimum_image(radius, m);
}

/// A lattice translation n_a a + n_b b + n_c c, its coefficients and its vector (in double).
struct LatticeShift {
  int n[3];
  double v[3];
};

/// The half-space of translations whose images a species meets against itself: the last non-zero
/// coefficient (c, then b, then a) positive. Exactly one of s and -s is in it for s != 0.
inline bool in_upper_half(const int n[3]) {
  if (n[2] != 0) return n[2] > 0;
  if (n[1] != 0) return n[1] > 0;
  return n[0] > 0;
}

/// p moved into the lower-triangular cell m: along c, then b, then a, by whole lattice vectors,
/// in double (fractional coordinates in [0, 1) up to a rounding).
inline void wrap_into_cell(const BoxMatrix& m, double p[3]) {
  const double k = std::floor(p[2] / m[8]);
  p[0] -= k * m[6];
  p[1] -= k * m[7];
  p[2] -= k * m[8];
  const double j = std::floor(p[1] / m[4]);
  p[0] -= j * m[3];
  p[1] -= j * m[4];
  const double i = std::floor(p[0] / m[0]);
  p[0] -= i * m[0];
}

/// A point of a frame (float, as the engine takes it) moved into the cell, rounded once to T.
template <class T>
void wrapped_point(const BoxMatrix& m, float x, float y, float z, T out[3]) {
  double p[3] = {x, y, z};
  wrap_into_cell(m, p);
  for (int c = 0; c < 3; ++c) out[c] = static_cast<T>(p[c]);
}

/// A coordinate of an image: w + s in double, rounded once to T (exact for s = 0).
template <class T>
T image_coordinate(T w, double s) {
  return static_cast<T>(static_cast<double>(w) + s);
}

/// How far from the wrapped points' bounding box an image must be kept: the counted radius, widened
/// by every rounding between the exact distance and the kernels' computed one (the coordinates'
/// and the scale's roundings, the difference, the norm and the root: a few units of the last
/// place of the largest magnitude, 64 of them here), as the cell lists widen r_cut.
template <class T>
double image_keep_radius(double radius, double max_abs) {
  const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  return radius * (1 + 1e-5) + 64 * u * (max_abs + 2 * radius);
}

/// Squared distance from p to the box [lo, hi].
inline double gap2_to_box(const double p[3], const double lo[3], const double hi[3]) {
  double g2 = 0;
  for (int c = 0; c < 3; ++c) {
    const double g = std::fmax(std::fmax(lo[c] - p[c], p[c] - hi[c]), 0.0);
    g2 += g * g;
  }
  return g2;
}

/// The translations s (0 included) that can bring a point of the box [lo, hi] within `reach` of
/// another point of it: the box moved by s lies within reach of the box. Ordered by (n_c, n_b,
/// n_a), so the layout of a frame's images is fixed.
inline std::vector<LatticeShift> lattice_translations(const BoxMatrix& m, const double lo[3],
                                                      const double hi[3], double reach) {
  double extent[3], diag2 = 0;
  for (int c = 0; c < 3; ++c) extent[c] = hi[c] - lo[c], diag2 += extent[c] * extent[c];
  const double r = reach + std::sqrt(diag2);  // |s| <= reach + the box's diagonal
  // Coefficient bounds from |s_z|, |s_y|, |s_x| <= r (as for_each_lattice_vector).
  const int kmax = static_cast<int>(std::ceil(r / m[8]));
  const int jmax = static_cast<int>(std::ceil((r + kmax * std::fabs(m[7])) / m[4]));
  const int imax =
      static_cast<int>(std::ceil((r + jmax * std::fabs(m[3]) + kmax * std::fabs(m[6])) / m[0]));
  std::vector<LatticeShift> shifts;
  for (int k = -kmax; k <= kmax; ++k)
    for (int j = -jmax; j <= jmax; ++j)
      for (int i = -imax; i <= imax; ++i) {
        const LatticeShift s{{i, j, k},
                             {i * m[0] + j * m[3] + k * m[6], j * m[4] + k * m[7], k * m[8]}};
        double g2 = 0;  // gap between the box and the box moved by s
        for (int c = 0; c < 3; ++c) {
          const double g = std::fmax(std::fabs(s.v[c]) - extent[c], 0.0);
          g2 += g * g;
        }
        if (g2 < reach * reach) shifts.push_back(s);
      }
  return shifts;
}

/// The lattice vector s that makes b + s nearest to a (their minimum image), searched in double
/// around the reduced displacement; the first of equally near ones.
inline LatticeShift nearest_image_shift(const BoxMatrix& m, const double a[3], const double b[3]) {
  double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double k0 = -std::nearbyint(d[2] / m[8]);
  const double j0 = -std::nearbyint((d[1] + k0 * m[7]) / m[4]);
  const double i0 = -std::nearbyint((d[0] + k0 * m[6] + j0 * m[3]) / m[0]);
  LatticeShift best{{0, 0, 0}, {0, 0, 0}};
  double best2 = INFINITY;
  for (int dk = -2; dk <= 2; ++dk)
    for (int dj = -2; dj <= 2; ++dj)
      for (int di = -2; di <= 2; ++di) {
        const double i = i0 + di, j = j0 + dj, k = k0 + dk;
        const double v[3] = {i * m[0] + j * m[3] + k * m[6], j * m[4] + k * m[7], k * m[8]};
        const double x = d[0] + v[0], y = d[1] + v[1], z = d[2] + v[2];
        const double r2 = x * x + y * y + z * z;
        if (r2 < best2) best2 = r2, best = {{int(i), int(j), int(k)}, {v[0], v[1], v[2]}};
      }
  return best;
}

/// The bin the engine's image counting gives the pair (a, b + s) with s the minimum image of b
/// against a (nearest_image_shift): the pair an excluded pair stands for, the atoms of one
/// molecule (its other images belong to other molecules). a and b are the points as wrapped for
/// the engine; `same_species`: both of one species, whose pair the engine counts as s = 0 in the
/// triangle, or with the image in the half halo (a against b + s, or b against a - s). p: the
/// run's no-box parameters.
template <class T>
int image_pair_bin(const HistogramParams<T>& p, const BoxMatrix& m, const T a[3], const T b[3],
                   bool same_species) {
  const double ad[3] = {a[0], a[1], a[2]}, bd[3] = {b[0], b[1], b[2]};
  const LatticeShift s = nearest_image_shift(m, ad, bd);
  const bool zero = s.n[0] == 0 && s.n[1] == 0 && s.n[2] == 0;
  if (zero) return bin_of_points<BoxKind::none>(p, a[0], a[1], a[2], b[0], b[1], b[2]);
  if (!same_species || in_upper_half(s.n))
    return bin_of_points<BoxKind::none>(p, a[0], a[1], a[2], image_coordinate(b[0], s.v[0]),
                                        image_coordinate(b[1], s.v[1]),
                                        image_coordinate(b[2], s.v[2]));
  return bin_of_points<BoxKind::none>(p, b[0], b[1], b[2], image_coordinate(a[0], -s.v[0]),
                                      image_coordinate(a[1], -s.v[1]),
                                      image_coordinate(a[2], -s.v[2]));
}

}  // namespace pairhist
