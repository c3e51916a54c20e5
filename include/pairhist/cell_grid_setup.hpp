// Host-side set-up of a frame's cell grid (cell_grid.hpp): how many cells, how wide, in which
// order. Header-only, part of the geometry layer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "pairhist/box_setup.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist {

/// What a frame's grid is made from.
struct CellGridRequest {
  BoxMatrix box{};  // rows a, b, c; zeros (kind none): the bounding box below is used
  BoxKind kind = BoxKind::none;
  double lo[3] = {0, 0, 0};  // bounding box of every point the grid will hold (needed without a
  double hi[3] = {0, 0, 0};  // box; with a box only for max_abs)
  double max_abs = 0;        // largest |coordinate| of any point (the margin grows with it)
  double r_max = 0;
  bool single_precision = true;  // the kernels' precision (the margin's unit roundoff)
  int reach = 2;                 // cells of r_cut / reach, searched reach cells to each side
  CellOrder order = CellOrder::row_major;
  int64_t max_cells = int64_t(1) << 24;  // coarser cells beyond this many (sparse frames)
  const CellGrid* previous = nullptr;    // keep its cell counts while still valid (NPT boxes)
  bool prune = false;                    // per-point pruning where the grid allows it
};

/// The search radius that makes cell lists exact: r_max plus every rounding the kernels'
/// distance arithmetic can make. A computed bin below nbins can come from an exact distance a
/// little above r_max: the coordinates are scaled and moved into the cell with a rounding each
/// (relative to their magnitude, up to the largest coordinate and box length), the displacement,
/// its reduction, the squares and the root add a few more (relative to r_max), and the bin scale
/// itself is rounded. 64 roundings of the largest magnitude plus 1e-5 relative bound all of them
/// with room to spare (one float rounding of the largest coordinate is 6e-8 of it).
inline double cutoff_with_margin(double r_max, double max_magnitude, bool single_precision) {
  const double unit = single_precision ? 0x1p-24 : 0x1p-53;
  return r_max * (1 + 1e-5) + 64 * unit * (max_magnitude + r_max);
}

namespace detail {

/// Cells of width at least `width` across a slab of thickness `thickness`.
inline int cells_across(double thickness, double width) {
  if (!(thickness > 0) || !(width > 0)) return 1;
  double n = std::floor(thickness / width);
  if (!(n >= 1)) return 1;
  n = std::min(n, 1e9);
  int cells = static_cast<int>(n);
  while (cells > 1 && thickness / cells < width) --cells;  // the rounding of the division
  return cells;
}

}  // namespace detail

/// Distances between opposite faces of the cell (plane spacings) along a, b, c of a
/// lower-triangular box, or the bounding box's extents without one.
inline void cell_thickness(const CellGridRequest& r, double out[3]) {
  if (r.kind == BoxKind::none) {
    for (int a = 0; a < 3; ++a) out[a] = std::max(0.0, r.hi[a] - r.lo[a]);
    return;
  }
  const BoxMatrix& m = r.box;
  const double ax = m[0], bx = m[3], by = m[4], cx = m[6], cy = m[7], cz = m[8];
  const double volume = ax * by * cz;
  // |b x c| and |c x a| for a = (ax,0,0), b = (bx,by,0), c = (cx,cy,cz).
  const double bc =
      std::sqrt(by * cz * by * cz + bx * cz * bx * cz + (bx * cy - by * cx) * (bx * cy - by * cx));
  const double ca = ax * std::sqrt(cy * cy + cz * cz);
  out[0] = volume / bc;
  out[1] = volume / ca;
  out[2] = cz;
}

/// The grid of one frame (see cell_grid.hpp).
inline CellGrid make_cell_grid(const CellGridRequest& r) {
  CellGrid g;
  g.kind = r.kind;
  g.reach = std::clamp(r.reach, 1, kMaxCellReach);
  double magnitude = r.max_abs;
  if (r.kind != BoxKind::none) magnitude += std::fabs(r.box[0]) + std::fabs(r.box[4]) + r.box[8];
  g.r_cut = cutoff_with_margin(r.r_max, magnitude, r.single_precision);

  double thickness[3];
  cell_thickness(r, thickness);
  const double width = g.r_cut / g.reach;
  for (int a = 0; a < 3; ++a) g.n[a] = detail::cells_across(thickness[a], width);
  // Sparse frames (few points in a large box): coarser cells, each still wide enough. The count
  // is a double until capped: up to 1e9 cells per axis (a margin far below the extent: double
  // precision, coordinates ~1e30) would overflow a 64-bit product.
  const auto cells = [&] { return static_cast<double>(g.n[0]) * g.n[1] * g.n[2]; };
  const int64_t cap = std::max<int64_t>(r.max_cells, 1);
  while (cells() > static_cast<double>(cap)) {
    const double f = std::cbrt(static_cast<double>(cap) / cells());
    for (int a = 0; a < 3; ++a)
      g.n[a] = std::max(1, std::min(g.n[a] - 1, static_cast<int>(std::floor(g.n[a] * f))));
  }
  // Under NPT the box breathes by a fraction of a percent; keeping the previous counts while
  // their cells stay wide enough (and not much coarser) keeps the key space, and with it the
  // tasks' key ranges and perfmodel footprints, steady.
  if (const CellGrid* p = r.previous;
      p && p->kind == r.kind && p->reach == g.reach && p->order == r.order) {
    bool keep = true;
    for (int a = 0; a < 3; ++a)
      keep = keep && p->n[a] <= g.n[a] && p->n[a] * 10 >= g.n[a] * 9 &&
             thickness[a] / p->n[a] >= width;
    if (keep)
      for (int a = 0; a < 3; ++a) g.n[a] = p->n[a];
  }

  const bool periodic = r.kind != BoxKind::none;
  bool aliased = false;
  for (int a = 0; a < 3; ++a) {
    const int n = g.n[a];
    if (!periodic || n >= 2 * g.reach + 1) {
      g.offset_lo[a] = -g.reach;
      g.offset_hi[a] = g.reach;
    } else {  // every residue once: neighbours that wrap onto each other are one cell
      g.offset_lo[a] = -((n - 1) / 2);
      g.offset_hi[a] = g.offset_lo[a] + n - 1;
      aliased = true;
    }
  }
  if (periodic) {
    const BoxMatrix& m = r.box;
    g.ax = m[0], g.bx = m[3], g.by = m[4], g.cx = m[6], g.cy = m[7], g.cz = m[8];
    g.inv_ax = 1.0 / m[0], g.inv_by = 1.0 / m[4], g.inv_cz = 1.0 / m[8];
    if (r.kind == BoxKind::orthorhombic)
      for (int a = 0; a < 3; ++a) g.side[a] = m[static_cast<size_t>(4 * a)] / g.n[a];
  } else {
    for (int a = 0; a < 3; ++a) {
      g.origin[a] = r.lo[a];
      const double extent = thickness[a];
      g.inv_extent[a] = extent > 0 ? 1.0 / extent : 0.0;
      g.side[a] = extent / g.n[a];
    }
  }
  // Clipping needs axis-aligned cells (not triclinic) and one offset per neighbour cell.
  g.clip = r.kind != BoxKind::triclinic && !aliased && g.reach >= 2;
  // Pruning needs one offset per neighbour cell too (that offset names the image it tests). Its
  // double-precision test makes a few dozen roundings of the coordinates' and the box's
  // magnitude (cell_bounds.hpp): 1e-12 of them, and of r_cut, covers those with room to spare.
  g.prune = r.prune && !aliased;
  g.prune_cut = g.r_cut + 1e-12 * (magnitude + g.r_cut);

  g.order = r.order;
  const int64_t count = static_cast<int64_t>(g.n[0]) * g.n[1] * g.n[2];
  g.keys = count;
  if (r.order != CellOrder::row_major) {
    const int largest = std::max({g.n[0], g.n[1], g.n[2]});
    int bits = 0;
    while ((1 << bits) < largest) ++bits;
    const int64_t cube = int64_t(1) << (3 * bits);
    // A curve over a cube much larger than the grid wastes keys (empty cells to skip): fall back
    // to row-major order for such flat or long grids.
    if (bits > kMaxCurveBits || cube > 8 * count + 4096) {
      g.order = CellOrder::row_major;
    } else {
      g.curve_bits = bits;
      g.keys = cube;
    }
  }
  return g;
}

inline const char* cell_order_name(CellOrder o) {
  switch (o) {
    case CellOrder::morton:
      return "morton";
    case CellOrder::hilbert:
      return "hilbert";
    default:
      return "row-major";
  }
}

}  // namespace pairhist
