// Brute-force double-precision reference, independent of the kernels' geometry code: minimum
// image by searching lattice translations directly.
#pragma once

#include <cmath>

#include "pairhist/box_setup.hpp"

namespace pairhist::test {

/// Exact-as-double minimum-image distance between p and q (x,y,z each).
inline double reference_distance(const BoxMatrix& m, const double* p, const double* q) {
  double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
  const BoxKind kind = classify_box(m);
  if (kind == BoxKind::none) return std::sqrt(dx * dx + dy * dy + dz * dz);
  // Bring the vector near the origin with fractional coordinates, then search +-2 cells.
  const double fz = std::round(dz / m[8]);
  dx -= fz * m[6];
  dy -= fz * m[7];
  dz -= fz * m[8];
  const double fy = std::round(dy / m[4]);
  dx -= fy * m[3];
  dy -= fy * m[4];
  dx -= std::round(dx / m[0]) * m[0];
  double best = INFINITY;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j)
      for (int k = -2; k <= 2; ++k) {
        const double x = dx + i * m[0] + j * m[3] + k * m[6];
        const double y = dy + j * m[4] + k * m[7];
        const double z = dz + k * m[8];
        best = std::fmin(best, x * x + y * y + z * z);
      }
  return std::sqrt(best);
}

/// Distance in units of bins: the exact value whose floor is the bin.
inline double reference_bin_position(const BoxMatrix& m, const double* p, const double* q,
                                     double r_max, int nbins) {
  return reference_distance(m, p, q) * nbins / r_max;
}

}  // namespace pairhist::test
