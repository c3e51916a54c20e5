// Per-point pruning for the CPU cell lists (CellGrid::prune, --cell-prune): a home point
// examines only the part of each stencil run (cells along x) whose cells can hold a point within
// r_cut. Per run it tests the run's y and z bounds (the bounding box of its grid row's points,
// or of its one cell), then trims cells from both ends while their own box of points lies
// r_cut or more away; the piece left is copied into the point's buffer, and one distance pass
// covers them all. With cells of r_cut / 3 the region a point examines is about its own
// position dilated by a few cells' boxes and r_cut: ~1.4-1.5 pairs examined per pair within
// r_max in a liquid, against ~3 (reach 3) or ~4 (reach 2) without (docs/design.md).
//
// Why it is exact. Each point q gets a relative position rel_q = q - F_q - corner(j_q): F_q is
// the lattice translation cell_of_point took off (the floors of its own fractional
// coordinates), j_q its cell, corner(j) = j_a e_a + j_b e_b + j_c e_c with e the cell's edge
// vectors (a / n_a, b / n_b, c / n_c, or the bounding box's cells). For a home point p in cell h
// and a stencil cell j visited at offset d (h + d = j modulo the grid), the displacement
//   q - p + Λ_d = rel_q - rel_p + d_a e_a + d_b e_b + d_c e_c,
//   Λ_d = F_p - F_q + corner(h + d) - corner(j)   (a lattice vector, as h + d ≡ j),
// is the image whose unwrapped cell lies at offset d. A pair that the all-pairs kernel counts
// has an image within r_cut (cutoff_with_margin), and that image's cells lie within the stencil
// (cell_grid.hpp); without an aliased axis each neighbour cell is visited at exactly one offset,
// so that image is Λ_d. Its length is at least the distance from rel_p to the box of the cell's
// rel_q shifted by d·e, the sum over x, y, z of the squared gaps to the box's faces. The test
// computes it in double from the raw coordinates: a few dozen roundings, each at most 2^-53 of
// the coordinates' or box's magnitude or of r_cut, far below what prune_cut adds to r_cut
// (cell_grid_setup.hpp). So a cell is skipped only when every pair it could form is beyond r_cut,
// hence uncounted: the histograms stay bit-identical to all pairs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "codelets/cpu/kernel_isa.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::cpu {

/// Bounding boxes of every cell's relative positions, by key (empty cells: lo > hi), and the
/// y and z bounds of every grid row along x (the cells of one (b, c) index), by b + n_b c.
/// Data only: add_to_boxes is compiled into each kernel build, the sizing once (cell_bounds.cpp:
/// std::vector's out-of-line members must not come from the AVX-512 build, kernel_isa.hpp).
struct CellBoxes {
  std::vector<double> lo[3], hi[3];
  std::vector<double> row_lo[2], row_hi[2];
};

/// Every cell's box empty (lo = +inf, hi = -inf), every row's bounds likewise.
void reset_boxes(CellBoxes& b, const CellGrid& g);
/// No boxes (a run without pruning).
void clear_boxes(CellBoxes& b);

// The helpers below are compiled into each kernel build: kernel_isa.hpp.
inline namespace PAIRHIST_CPU_HELPERS {

/// The vectors the relative positions are built from.
struct CellFrame {
  double edge[3][3] = {};     // edge[axis]: one cell's edge vector along the grid's axis
  double lattice[3][3] = {};  // the periodic cell's a, b, c (zero without a box)
  double origin[3] = {};      // the bounding box's corner (without a box)

  explicit CellFrame(const CellGrid& g) {
    if (g.kind == BoxKind::none) {
      for (int a = 0; a < 3; ++a) {
        edge[a][a] = g.side[a];
        origin[a] = g.origin[a];
      }
      return;
    }
    const double v[3][3] = {{g.ax, 0, 0}, {g.bx, g.by, 0}, {g.cx, g.cy, g.cz}};
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) {
        lattice[a][c] = v[a][c];
        edge[a][c] = v[a][c] / g.n[a];
      }
  }

  /// d_a e_a + d_b e_b + d_c e_c.
  void shift(int da, int db, int dc, double out[3]) const {
    for (int c = 0; c < 3; ++c) out[c] = da * edge[0][c] + db * edge[1][c] + dc * edge[2][c];
  }
};

/// The cell of a raw point (as cells::cell_of_point) and its relative position (see above).
inline CellIndex relative_position(const CellGrid& g, const CellFrame& f, double x, double y,
                                   double z, double rel[3]) {
  double s[3];
  cells::fractional_of_point(g, x, y, z, s);
  const bool periodic = g.kind != BoxKind::none;
  const CellIndex c{cells::axis_cell(s[0], g.n[0], periodic),
                    cells::axis_cell(s[1], g.n[1], periodic),
                    cells::axis_cell(s[2], g.n[2], periodic)};
  const double q[3] = {x, y, z};
  const int j[3] = {c.x, c.y, c.z};
  for (int k = 0; k < 3; ++k) {
    double v = q[k] - f.origin[k];
    for (int a = 0; a < 3; ++a) {
      const double image = periodic ? std::floor(s[a]) : 0.0;
      v -= image * f.lattice[a][k] + j[a] * f.edge[a][k];
    }
    rel[k] = v;
  }
  return c;
}

inline void add_to_boxes(CellBoxes& b, int64_t key, const CellGrid& g, CellIndex c,
                         const double rel[3]) {
  const auto k = static_cast<size_t>(key);
  for (int a = 0; a < 3; ++a) {
    b.lo[a][k] = std::min(b.lo[a][k], rel[a]);
    b.hi[a][k] = std::max(b.hi[a][k], rel[a]);
  }
  const size_t row = static_cast<size_t>(c.y) + static_cast<size_t>(g.n[1]) * c.z;
  for (int a = 0; a < 2; ++a) {
    b.row_lo[a][row] = std::min(b.row_lo[a][row], rel[a + 1]);
    b.row_hi[a][row] = std::max(b.row_hi[a][row], rel[a + 1]);
  }
}

/// A run of stencil cells along x as a home cell sees it: keys k0..k1 at x offsets from dx
/// on; the x shift of its first cell, and its points' y and z bounds shifted into the home
/// cell's frame (of its grid row, or of its one cell).
struct StencilRun {
  int64_t k0, k1;
  double x0, y_lo, y_hi, z_lo, z_hi;
  double y0, z0;  // the y and z shift of its cells
};

inline StencilRun stencil_run(const CellGrid& g, const CellFrame& f, const CellBoxes& boxes,
                              int64_t k0, int64_t k1, int dx, int dy, int dz) {
  double shift[3];
  f.shift(dx, dy, dz, shift);
  StencilRun r{k0, k1, shift[0], 0, 0, 0, 0, shift[1], shift[2]};
  if (k0 == k1) {
    const auto k = static_cast<size_t>(k0);
    r.y_lo = boxes.lo[1][k], r.y_hi = boxes.hi[1][k];
    r.z_lo = boxes.lo[2][k], r.z_hi = boxes.hi[2][k];
  } else {  // several cells: row-major keys, so k0 / n_a is the grid row
    const auto row = static_cast<size_t>(k0 / g.n[0]);
    r.y_lo = boxes.row_lo[0][row], r.y_hi = boxes.row_hi[0][row];
    r.z_lo = boxes.row_lo[1][row], r.z_hi = boxes.row_hi[1][row];
  }
  r.y_lo += shift[1], r.y_hi += shift[1], r.z_lo += shift[2], r.z_hi += shift[2];
  return r;
}

/// The gap from v to [lo, hi] (0 inside; +inf for an empty box, lo = inf).
inline double gap_to(double v, double lo, double hi) {
  const double below = lo - v, above = v - hi;
  const double g = below > above ? below : above;
  return g > 0 ? g : 0;
}

/// Whether cell k of a run (its box shifted) lies within sqrt(cut2) of p.
inline bool cell_kept(const StencilRun& r, const CellBoxes& boxes, double edge_x, const double p[3],
                      double cut2, int64_t k) {
  const auto c = static_cast<size_t>(k);
  const double sx = r.x0 + static_cast<double>(k - r.k0) * edge_x;
  const double gx = gap_to(p[0], boxes.lo[0][c] + sx, boxes.hi[0][c] + sx);
  const double gy = gap_to(p[1], boxes.lo[1][c] + r.y0, boxes.hi[1][c] + r.y0);
  const double gz = gap_to(p[2], boxes.lo[2][c] + r.z0, boxes.hi[2][c] + r.z0);
  return gx * gx + gy * gy + gz * gz < cut2;
}

/// The first and last cell of a run that p keeps (cell_kept); the cells between them are kept
/// too (one piece of the run: fewer, longer copies). False when p keeps none.
inline bool kept_cells(const StencilRun& r, const CellBoxes& boxes, double edge_x,
                       const double p[3], double cut2, int64_t& first, int64_t& last) {
  int64_t k = r.k0;
  while (k <= r.k1 && !cell_kept(r, boxes, edge_x, p, cut2, k)) ++k;
  if (k > r.k1) return false;
  int64_t l = r.k1;
  while (l > k && !cell_kept(r, boxes, edge_x, p, cut2, l)) --l;
  first = k, last = l;
  return true;
}

}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
