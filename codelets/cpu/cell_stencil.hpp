// A home cell's stencil as runs of consecutive keys, for the CPU cell-list kernel: the same cells
// as cells::for_each_stencil_cell visits, found with a table lookup per cell (or none: row-major
// keys run along x), since with a few points per cell the stencil walk costs as much as the
// pairs it finds.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "codelets/cpu/kernel_isa.hpp"
#include "pairhist/cell_grid.hpp"

namespace pairhist::cpu {

/// cells::key_of for every cell of a grid. A Hilbert key costs about a hundred instructions, and
/// a home cell's stencil has 27 to 343 cells: curve keys come from a table, built once per grid
/// shape and shared by every thread and call (kept while the shape lasts). Row-major keys are
/// the cell index itself.
class CellKeys {
 public:
  explicit CellKeys(const CellGrid& g);
  bool row_major() const { return keys_ == nullptr; }
  int64_t index(int x, int y, int z) const { return x + n0_ * (y + n1_ * static_cast<int64_t>(z)); }
  int64_t at(int64_t index) const { return keys_ ? static_cast<int64_t>(keys_[index]) : index; }
  int64_t operator()(int x, int y, int z) const { return at(index(x, y, z)); }

 private:
  std::shared_ptr<const std::vector<uint32_t>> table_;
  const uint32_t* keys_ = nullptr;
  int64_t n0_ = 1, n1_ = 1;
};

/// The offsets (dx_lo..dx_hi, dy, dz) of one row of the stencil whose cells can hold a point
/// within r_cut (cells::offset_reaches: a clipped row searches fewer dx), and the row-major cell
/// index offset of (dx_lo, dy, dz).
struct StencilRow {
  int dy, dz, dx_lo, dx_hi;
  int64_t index_offset;
};

/// The grid's stencil as rows; every offset for_each_stencil_cell visits lies in exactly one.
std::vector<StencilRow> stencil_rows(const CellGrid& g);

inline namespace PAIRHIST_CPU_HELPERS {  // one per build: kernel_isa.hpp

/// Index along an axis of a neighbour at offset d (|d| < n, as every stencil offset is): wrapped
/// on a periodic axis, -1 off the edge of a grid without a box.
inline int neighbour_index(int i, int d, int n, bool periodic) {
  int j = i + d;
  if (periodic) return j < 0 ? j + n : (j >= n ? j - n : j);
  return (j < 0 || j >= n) ? -1 : j;
}

/// Calls visit(k0, k1, dx, dy, dz) for runs of keys k0..k1 whose cells are in the stencil of
/// `home` and have a key above `above`; every such stencil cell lies in exactly one run (pass -1
/// for the whole stencil). A row-major grid yields one run per stencil row (two where it wraps),
/// a curve one run per cell. (dx, dy, dz) is the stencil offset of the run's first cell; the
/// cell of key k0 + i lies at offset dx + i (a row-major run runs along x).
template <class Visit>
void for_each_stencil_run(const CellGrid& g, const CellKeys& keys,
                          const std::vector<StencilRow>& rows, CellIndex home, int64_t above,
                          Visit&& visit) {
  const bool periodic = g.kind != BoxKind::none;
  const int nx = g.n[0];
  // Away from the grid's faces no offset wraps or leaves the grid: a row is a run of cell
  // indices at a fixed distance from the home cell's (most home cells of a large grid).
  bool interior = true;
  const int h[3] = {home.x, home.y, home.z};
  for (int a = 0; a < 3; ++a)
    interior = interior && h[a] + g.offset_lo[a] >= 0 && h[a] + g.offset_hi[a] < g.n[a];
  if (interior) {
    const int64_t home_index = keys.index(home.x, home.y, home.z);
    for (const StencilRow& r : rows) {
      const int64_t i0 = home_index + r.index_offset, i1 = i0 + (r.dx_hi - r.dx_lo);
      if (keys.row_major()) {
        const int64_t first = i0 > above ? i0 : above + 1;
        if (first <= i1) visit(first, i1, r.dx_lo + static_cast<int>(first - i0), r.dy, r.dz);
      } else {
        for (int64_t i = i0; i <= i1; ++i) {
          const int64_t k = keys.at(i);
          if (k > above) visit(k, k, r.dx_lo + static_cast<int>(i - i0), r.dy, r.dz);
        }
      }
    }
    return;
  }
  for (const StencilRow& r : rows) {
    const int y = neighbour_index(home.y, r.dy, g.n[1], periodic);
    const int z = neighbour_index(home.z, r.dz, g.n[2], periodic);
    if (y < 0 || z < 0) continue;
    // The row's x cells as at most two intervals. A periodic row of nx or more offsets is an
    // aliased axis (or one of exactly 2 reach + 1 cells): its offsets are every residue once.
    int span[2][2];
    int spans = 0;
    const int xa = home.x + r.dx_lo, xb = home.x + r.dx_hi;
    if (!periodic) {
      const int lo = xa < 0 ? 0 : xa, hi = xb >= nx ? nx - 1 : xb;
      if (lo <= hi) span[spans][0] = lo, span[spans++][1] = hi;
    } else if (xb - xa + 1 >= nx) {  // from xa's residue on, so that offsets run on in a span
      const int start = ((xa % nx) + nx) % nx;
      span[spans][0] = start, span[spans++][1] = nx - 1;
      if (start > 0) span[spans][0] = 0, span[spans++][1] = start - 1;
    } else if (xa < 0) {
      span[spans][0] = xa + nx, span[spans++][1] = nx - 1;
      span[spans][0] = 0, span[spans++][1] = xb;
    } else if (xb >= nx) {
      span[spans][0] = xa, span[spans++][1] = nx - 1;
      span[spans][0] = 0, span[spans++][1] = xb - nx;
    } else {
      span[spans][0] = xa, span[spans++][1] = xb;
    }
    // The offset of cell x of a span (no span wraps inside: its offsets are consecutive).
    const auto offset_of = [&](int x) {
      int d = x - home.x;
      if (periodic && d < r.dx_lo) d += nx;
      if (periodic && d > r.dx_hi) d -= nx;
      return d;
    };
    for (int s = 0; s < spans; ++s) {
      if (keys.row_major()) {
        const int64_t k0 = keys.index(span[s][0], y, z);
        const int64_t k1 = k0 + (span[s][1] - span[s][0]);
        const int64_t first = k0 > above ? k0 : above + 1;
        if (first <= k1)
          visit(first, k1, offset_of(span[s][0] + static_cast<int>(first - k0)), r.dy, r.dz);
      } else {
        for (int x = span[s][0]; x <= span[s][1]; ++x) {
          const int64_t k = keys(x, y, z);
          if (k > above) visit(k, k, offset_of(x), r.dy, r.dz);
        }
      }
    }
  }
}

}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
