// Cell grids for cutoff-aware histograms: which pairs of points can lie within r_max.
//
// A frame's grid cuts the periodic cell (or, without a box, the points' bounding box) into
// n[0] x n[1] x n[2] cells along its own axes, each at least r_cut / reach wide perpendicular to
// its faces. Two points closer than r_cut (in any periodic image) then lie in cells at most
// `reach` apart along every axis, so a pair with r < r_max is always found by searching the
// (2 reach + 1)^3 cells around a point's own cell. r_cut is r_max plus a margin that covers every
// rounding the kernels' distance arithmetic can make (cutoff_with_margin): a pair whose computed
// bin is below nbins is always a candidate, so the cell-list histograms equal the all-pairs ones
// bit for bit (the bin of a candidate pair comes from geometry.hpp, as in every kernel).
//
// Cells are numbered by a key along a space-filling curve (row-major, Morton or Hilbert, seed
// 004); points are stored sorted by key, so a run of keys is a compact piece of space.
//
// Every function a worker uses to put a point into a cell is exactly rounded (fp::), so a CPU
// and a GPU task of the same frame agree on every point's cell: a task owns the points of its
// home cells, and a point must not belong to two tasks, or to none.
#pragma once

#include <cmath>
#include <cstdint>

#include "pairhist/geometry.hpp"

namespace pairhist {

enum class CellOrder : int { row_major = 0, morton = 1, hilbert = 2 };

constexpr int kMaxCellReach = 3;
/// Morton and Hilbert keys span a cube of 2^bits cells per axis, bits <= kMaxCurveBits.
constexpr int kMaxCurveBits = 10;

/// How points map to cells and cells to keys; the same for every species of a frame.
struct CellGrid {
  BoxKind kind = BoxKind::none;
  CellOrder order = CellOrder::row_major;
  int n[3] = {1, 1, 1};  // cells along the grid's three axes (a, b, c of a periodic cell)
  int reach = 1;         // cells searched on each side along every axis
  int curve_bits = 0;    // Morton/Hilbert: the keys span a cube of 2^curve_bits cells per axis
  int64_t keys = 1;      // size of the key space: a cell-start table has keys + 1 entries
  // Neighbour offsets searched along each axis. A periodic axis of fewer than 2 reach + 1 cells
  // searches each distinct neighbour once (all n of them), so no pair of cells is visited twice.
  int offset_lo[3] = {0, 0, 0};
  int offset_hi[3] = {0, 0, 0};
  // Stencil clipping: skip neighbour cells whose nearest points are r_cut or more apart (only for
  // axis-aligned cells without aliased neighbours; see make_cell_grid).
  int clip = 0;
  double side[3] = {0, 0, 0};  // cell widths along x, y, z (axis-aligned cells)
  double r_cut = 0;            // the search radius the grid guarantees, in coordinate units
  // Per-point pruning (CPU cell lists, cell_bounds.hpp): each point tests the bounding box of
  // every stencil cell's points before examining them. Needs one stencil offset per neighbour
  // cell (no aliased axis). prune_cut is r_cut plus the roundings of that double-precision test.
  int prune = 0;
  double prune_cut = 0;
  // Periodic cell (GROMACS lower-triangular rows a, b, c) and its inverse diagonal.
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;
  double inv_ax = 0, inv_by = 0, inv_cz = 0;
  // No box: the points' bounding box.
  double origin[3] = {0, 0, 0};
  double inv_extent[3] = {0, 0, 0};
};

/// Cell coordinates of a cell, and whether a key names a cell inside the grid.
struct CellIndex {
  int x, y, z;
};

namespace cells {

/// Fractional position of a coordinate pair along one axis, moved into [0, 1) for a periodic
/// axis or clamped there without a box, scaled to cells and truncated.
PH_HD int axis_cell(double u, int n, bool periodic) {
  if (periodic) u = fp::sub(u, std::floor(u));
  double c = fp::mul(u, static_cast<double>(n));
  // u in [0, 1] (1 only by rounding, or for the bounding box's far face): the last cell.
  if (!(c >= 0)) c = 0;
  const int i = c < static_cast<double>(n) ? static_cast<int>(c) : n - 1;
  return i;
}

/// Fractional coordinates of a point along the grid's axes: along a, b, c of the
/// lower-triangular periodic cell, or across the bounding box without one.
PH_HD void fractional_of_point(const CellGrid& g, double x, double y, double z, double s[3]) {
  if (g.kind == BoxKind::none) {
    s[0] = fp::mul(fp::sub(x, g.origin[0]), g.inv_extent[0]);
    s[1] = fp::mul(fp::sub(y, g.origin[1]), g.inv_extent[1]);
    s[2] = fp::mul(fp::sub(z, g.origin[2]), g.inv_extent[2]);
    return;
  }
  s[2] = fp::mul(z, g.inv_cz);
  s[1] = fp::mul(fp::fma(-s[2], g.cy, y), g.inv_by);
  s[0] = fp::mul(fp::fma(-s[2], g.cx, fp::fma(-s[1], g.bx, x)), g.inv_ax);
}

/// The cell of a point (coordinates in the frame's length unit). Bit-identical on every worker.
PH_HD CellIndex cell_of_point(const CellGrid& g, double x, double y, double z) {
  double s[3];
  fractional_of_point(g, x, y, z, s);
  const bool periodic = g.kind != BoxKind::none;
  return {axis_cell(s[0], g.n[0], periodic), axis_cell(s[1], g.n[1], periodic),
          axis_cell(s[2], g.n[2], periodic)};
}

/// Bits 0..9 of v moved to bits 0, 3, 6, ..., 27.
PH_HD uint32_t spread3(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

/// Inverse of spread3: bits 0, 3, ..., 27 of v packed into bits 0..9.
PH_HD uint32_t compact3(uint32_t v) {
  v &= 0x09249249u;
  v = (v | (v >> 2)) & 0x030c30c3u;
  v = (v | (v >> 4)) & 0x0300f00fu;
  v = (v | (v >> 8)) & 0x030000ffu;
  v = (v | (v >> 16)) & 0x3ffu;
  return v;
}

/// Hilbert key of a cell of the 2^bits cube (J. Skilling's transposed form: undo the rotations
/// and reflections level by level, Gray-encode, then read the bits out axis-interleaved).
PH_HD uint32_t hilbert_key(uint32_t x, uint32_t y, uint32_t z, int bits) {
  uint32_t X[3] = {x, y, z};
  if (bits <= 0) return 0;
  const uint32_t top = 1u << (bits - 1);
  for (uint32_t q = top; q > 1; q >>= 1) {
    const uint32_t p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (X[i] & q) {
        X[0] ^= p;
      } else {
        const uint32_t t = (X[0] ^ X[i]) & p;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  X[1] ^= X[0];
  X[2] ^= X[1];
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1)
    if (X[2] & q) t ^= q - 1;
  X[0] ^= t;
  X[1] ^= t;
  X[2] ^= t;
  // Bit b of the key triple is (X[0], X[1], X[2]) bit b, X[0] the most significant.
  return (spread3(X[0]) << 2) | (spread3(X[1]) << 1) | spread3(X[2]);
}

/// Inverse of hilbert_key.
PH_HD void hilbert_cell(uint32_t key, int bits, uint32_t& x, uint32_t& y, uint32_t& z) {
  uint32_t X[3] = {compact3(key >> 2), compact3(key >> 1), compact3(key)};
  if (bits > 0) {
    const uint32_t end = 2u << (bits - 1);
    const uint32_t t = X[2] >> 1;
    X[2] ^= X[1];
    X[1] ^= X[0];
    X[0] ^= t;
    for (uint32_t q = 2; q != end; q <<= 1) {
      const uint32_t p = q - 1;
      for (int i = 2; i >= 0; --i) {
        if (X[i] & q) {
          X[0] ^= p;
        } else {
          const uint32_t s = (X[0] ^ X[i]) & p;
          X[0] ^= s;
          X[i] ^= s;
        }
      }
    }
  }
  x = X[0];
  y = X[1];
  z = X[2];
}

/// Key of a cell (inside the grid).
PH_HD int64_t key_of(const CellGrid& g, CellIndex c) {
  switch (g.order) {
    case CellOrder::morton:
      return static_cast<int64_t>(spread3(static_cast<uint32_t>(c.x)) |
                                  (spread3(static_cast<uint32_t>(c.y)) << 1) |
                                  (spread3(static_cast<uint32_t>(c.z)) << 2));
    case CellOrder::hilbert:
      return static_cast<int64_t>(hilbert_key(static_cast<uint32_t>(c.x),
                                              static_cast<uint32_t>(c.y),
                                              static_cast<uint32_t>(c.z), g.curve_bits));
    default:
      return c.x + static_cast<int64_t>(g.n[0]) * (c.y + static_cast<int64_t>(g.n[1]) * c.z);
  }
}

/// The cell a key names; false when the key lies outside the grid (Morton and Hilbert keys
/// span a cube that may be larger than the grid: such keys hold no points).
PH_HD bool cell_of_key(const CellGrid& g, int64_t key, CellIndex& c) {
  uint32_t x, y, z;
  switch (g.order) {
    case CellOrder::morton: {
      const auto k = static_cast<uint32_t>(key);
      x = compact3(k), y = compact3(k >> 1), z = compact3(k >> 2);
      break;
    }
    case CellOrder::hilbert:
      hilbert_cell(static_cast<uint32_t>(key), g.curve_bits, x, y, z);
      break;
    default: {
      const int64_t plane = static_cast<int64_t>(g.n[0]) * g.n[1];
      z = static_cast<uint32_t>(key / plane);
      const int64_t rest = key - static_cast<int64_t>(z) * plane;
      y = static_cast<uint32_t>(rest / g.n[0]);
      x = static_cast<uint32_t>(rest - static_cast<int64_t>(y) * g.n[0]);
    }
  }
  c = {static_cast<int>(x), static_cast<int>(y), static_cast<int>(z)};
  return x < static_cast<uint32_t>(g.n[0]) && y < static_cast<uint32_t>(g.n[1]) &&
         z < static_cast<uint32_t>(g.n[2]);
}

/// Key of the point's cell.
PH_HD int64_t key_of_point(const CellGrid& g, double x, double y, double z) {
  return key_of(g, cell_of_point(g, x, y, z));
}

/// Neighbour index along one axis, wrapped on a periodic axis; -1 when it leaves a grid
/// without a box.
PH_HD int neighbour_along(const CellGrid& g, int axis, int i, int offset) {
  int j = i + offset;
  const int n = g.n[axis];
  if (g.kind == BoxKind::none) return (j < 0 || j >= n) ? -1 : j;
  j %= n;
  return j < 0 ? j + n : j;
}

/// Whether a stencil offset can hold a point within r_cut of a point of the home cell.
PH_HD bool offset_reaches(const CellGrid& g, int dx, int dy, int dz) {
  if (!g.clip) return true;
  const int d[3] = {dx, dy, dz};
  double gap2 = 0;
  for (int a = 0; a < 3; ++a) {
    const int cells_between = (d[a] < 0 ? -d[a] : d[a]) - 1;
    if (cells_between > 0) {
      const double gap = cells_between * g.side[a];
      gap2 += gap * gap;
    }
  }
  return gap2 < g.r_cut * g.r_cut;
}

/// Calls visit(key) for every cell of the home cell's stencil (the home cell included), each
/// cell once. With `upper_half` only the cells whose key is at least the home key: for a species
/// with itself each pair of neighbouring cells is then visited from one side only (the
/// neighbour relation is symmetric), and the home cell itself pairs its points i < j.
template <class Visit>
PH_HD void for_each_stencil_cell(const CellGrid& g, CellIndex home, bool upper_half,
                                 Visit&& visit) {
  const int64_t home_key = key_of(g, home);
  for (int dz = g.offset_lo[2]; dz <= g.offset_hi[2]; ++dz) {
    const int z = neighbour_along(g, 2, home.z, dz);
    if (z < 0) continue;
    for (int dy = g.offset_lo[1]; dy <= g.offset_hi[1]; ++dy) {
      const int y = neighbour_along(g, 1, home.y, dy);
      if (y < 0) continue;
      for (int dx = g.offset_lo[0]; dx <= g.offset_hi[0]; ++dx) {
        const int x = neighbour_along(g, 0, home.x, dx);
        if (x < 0 || !offset_reaches(g, dx, dy, dz)) continue;
        const int64_t key = key_of(g, CellIndex{x, y, z});
        if (upper_half && key < home_key) continue;
        visit(key);
      }
    }
  }
}

/// Cells of a stencil (the most for_each_stencil_cell can visit).
PH_HD int stencil_size(const CellGrid& g) {
  return (g.offset_hi[0] - g.offset_lo[0] + 1) * (g.offset_hi[1] - g.offset_lo[1] + 1) *
         (g.offset_hi[2] - g.offset_lo[2] + 1);
}

}  // namespace cells
}  // namespace pairhist
