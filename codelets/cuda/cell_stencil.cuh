// A home cell's stencil as the GPU counting kernel walks it: rows along x, each row one or two
// runs of consecutive keys (row-major order), so the points of a run are contiguous in the
// sorted species. The same cells as cells::for_each_stencil_cell, each once.
#pragma once

#include <algorithm>
#include <climits>

#include "pairhist/cell_grid.hpp"

namespace pairhist::cuda {

constexpr int kMaxStencilRows = (2 * kMaxCellReach + 1) * (2 * kMaxCellReach + 1);

/// One row of the stencil along x: the offsets (dy, dz) and the dx whose cells can reach the home
/// cell (offset_reaches is monotonic in |dx|, so they form one interval).
struct StencilRow {
  int dy, dz, dx_lo, dx_hi;
};

struct Stencil {
  int rows = 0;
  StencilRow row[kMaxStencilRows];
};

/// The stencil's rows from the grid's offsets and clipping (cells::offset_reaches), on the host.
inline Stencil make_stencil(const CellGrid& g) {
  Stencil s;
  for (int dz = g.offset_lo[2]; dz <= g.offset_hi[2]; ++dz)
    for (int dy = g.offset_lo[1]; dy <= g.offset_hi[1]; ++dy) {
      int lo = INT_MAX, hi = INT_MIN;
      for (int dx = g.offset_lo[0]; dx <= g.offset_hi[0]; ++dx)
        if (cells::offset_reaches(g, dx, dy, dz)) lo = std::min(lo, dx), hi = std::max(hi, dx);
      if (lo <= hi) s.row[s.rows++] = {dy, dz, lo, hi};
    }
  return s;
}

/// Neighbour index along an axis; -1 off a grid without a box. A periodic offset is shorter than
/// the axis (make_cell_grid; launch_cell_histogram checks), so one wrap suffices.
__device__ __forceinline__ int neighbour(int i, int offset, int n, bool periodic) {
  const int j = i + offset;
  if (periodic) return j < 0 ? j + n : (j >= n ? j - n : j);
  return j < 0 || j >= n ? -1 : j;
}

/// cells::cell_of_key in 32-bit arithmetic for row-major keys (keys < 2^31: build_cells checks).
__device__ __forceinline__ CellIndex home_cell(const CellGrid& g, int key) {
  if (g.order != CellOrder::row_major) {
    CellIndex c;
    cells::cell_of_key(g, key, c);
    return c;
  }
  const auto k = static_cast<unsigned>(key), n0 = static_cast<unsigned>(g.n[0]);
  const unsigned plane = n0 * static_cast<unsigned>(g.n[1]);
  const unsigned z = k / plane, rest = k - z * plane, y = rest / n0;
  return {static_cast<int>(rest - y * n0), static_cast<int>(y), static_cast<int>(z)};
}

/// Row-major keys: the cells x + [lo, hi] of a row (wrapped on a periodic axis, clipped without a
/// box) as at most two runs, without visiting them; `upper` keeps keys >= home_key.
template <class Run>
__device__ __forceinline__ void row_major_runs(const CellGrid& g, int base, int x, int lo, int hi,
                                               int home_key, bool upper, Run& run) {
  const int n = g.n[0];
  int x0 = x + lo, x1 = x + hi;
  const auto emit = [&](int a, int b) {
    const int k1 = base + b;
    if (upper && k1 < home_key) return;
    run(upper ? max(base + a, home_key) : base + a, k1);
  };
  if (g.kind == BoxKind::none) {
    x0 = max(x0, 0), x1 = min(x1, n - 1);
    if (x0 <= x1) emit(x0, x1);
  } else if (x1 - x0 + 1 >= n) {  // aliased: the offsets are every residue once
    emit(0, n - 1);
  } else if (x0 < 0) {
    emit(x0 + n, n - 1);
    emit(0, x1);
  } else if (x1 >= n) {
    emit(x0, n - 1);
    emit(0, x1 - n);
  } else {
    emit(x0, x1);
  }
}

/// Calls run(k0, k1) for runs of consecutive keys k0..k1 that together hold every stencil cell of
/// the rows this lane owns (lane, lane + 32, ...) once; with `upper` only cells of key >= home_key.
/// Curve orders look keys up in cell_keys (row-major cell index -> key) and merge what they can.
template <class Run>
__device__ __forceinline__ void for_each_run(const CellGrid& g, const StencilRow* rows, int nrows,
                                             const int32_t* __restrict__ cell_keys, CellIndex home,
                                             int home_key, bool upper, int lane, Run&& run) {
  const bool periodic = g.kind != BoxKind::none;
  for (int r = lane; r < nrows; r += 32) {
    const StencilRow row = rows[r];
    const int y = neighbour(home.y, row.dy, g.n[1], periodic);
    const int z = neighbour(home.z, row.dz, g.n[2], periodic);
    if (y < 0 || z < 0) continue;
    const int base = g.n[0] * (y + g.n[1] * z);
    if (!cell_keys) {
      row_major_runs(g, base, home.x, row.dx_lo, row.dx_hi, home_key, upper, run);
      continue;
    }
    int k0 = 0, k1 = -2;  // no run yet: no key is k1 + 1
    for (int dx = row.dx_lo; dx <= row.dx_hi; ++dx) {
      const int x = neighbour(home.x, dx, g.n[0], periodic);
      if (x < 0) continue;
      const int key = __ldg(cell_keys + base + x);
      if (upper && key < home_key) continue;
      if (key == k1 + 1) {
        k1 = key;
        continue;
      }
      if (k1 >= 0) run(k0, k1);
      k0 = k1 = key;
    }
    if (k1 >= 0) run(k0, k1);
  }
}

}  // namespace pairhist::cuda
