// Host-side box handling: classify a 3x3 box matrix, check it, and convert it into the kernels'
// Box<T>. Header-only, part of the geometry layer.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "pairhist/geometry.hpp"

namespace pairhist {

/// Box vectors as rows (a = m[0..2], b = m[3..5], c = m[6..8]), like XTC and GRO store them.
using BoxMatrix = std::array<double, 9>;

inline const char* box_kind_name(BoxKind k) {
  switch (k) {
    case BoxKind::orthorhombic: return "orthorhombic";
    case BoxKind::triclinic: return "triclinic";
    default: return "none";
  }
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

inline double box_volume(const BoxMatrix& m) { return m[0] * m[4] * m[8]; }

/// Length of the shortest non-zero lattice vector. The minimum image is unique (and a min-image
/// histogram exact) only for r below half of it. Searching combinations up to +-2 of each vector
/// finds it for any reduced (GROMACS-style) cell.
inline double shortest_lattice_vector(const BoxMatrix& m) {
  double best = INFINITY;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j)
      for (int k = -2; k <= 2; ++k) {
        if (i == 0 && j == 0 && k == 0) continue;
        const double x = i * m[0] + j * m[3] + k * m[6];
        const double y = i * m[1] + j * m[4] + k * m[7];
        const double z = i * m[2] + j * m[5] + k * m[8];
        best = std::min(best, std::sqrt(x * x + y * y + z * z));
      }
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

/// The kernels' form of a box, rounded once to T so every worker uses the same values.
template <class T>
Box<T> make_box(const BoxMatrix& m, BoxKind kind) {
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
  if (kind == BoxKind::orthorhombic) b.bx = b.cx = b.cy = 0;
  return b;
}

/// The bin scale nbins / r_max, rounded once to T.
template <class T>
T bin_scale(double r_max, int nbins) {
  return static_cast<T>(static_cast<double>(nbins) / r_max);
}

}  // namespace pairhist
