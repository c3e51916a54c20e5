#include "analysis/surface_distance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "pairhist/cell_grid_setup.hpp"
#include "pairhist/host_cores.hpp"

namespace pairhist::analysis {
namespace {

constexpr float kNone = std::numeric_limits<float>::infinity();
// A thread per this many positions at least: a position costs a stencil of cells, ~1 us.
constexpr size_t kMinStretch = 2048;

}  // namespace

double largest_coordinate(const float* xyz, const std::vector<int>& atoms) {
  double most = 0;
  for (int a : atoms)
    for (int c = 0; c < 3; ++c) {
      const double v = xyz[3 * static_cast<size_t>(a) + static_cast<size_t>(c)];
      if (!std::isfinite(v))
        throw std::domain_error("position " + std::to_string(a + 1) +
                                " has a non-finite coordinate");
      most = std::max(most, std::fabs(v));
    }
  return most;
}

SurfaceDistances::SurfaceDistances(const float* xyz, const std::vector<int>& ref_atoms,
                                   const std::vector<int>& group, int groups, const BoxMatrix& box,
                                   double r_max, int nbins, double r_cut, double max_abs)
    : kind_(classify_box(box)),
      params_(make_params<float>(box, kind_, r_max, nbins, r_cut)),
      groups_(groups) {
  CellGridRequest request;
  request.box = box;
  request.kind = kind_;
  for (int c = 0; c < 3; ++c) request.lo[c] = INFINITY, request.hi[c] = -INFINITY;
  for (int a : ref_atoms)
    for (int c = 0; c < 3; ++c) {
      const double v = xyz[3 * static_cast<size_t>(a) + static_cast<size_t>(c)];
      request.lo[c] = std::min(request.lo[c], v);
      request.hi[c] = std::max(request.hi[c], v);
    }
  if (ref_atoms.empty())
    for (int c = 0; c < 3; ++c) request.lo[c] = request.hi[c] = 0;
  request.max_abs = max_abs;
  request.r_max = r_max;
  // Cells in proportion to the atoms: a few ions in a large box make a coarse grid, not a
  // volume's worth of empty cells per frame.
  request.max_cells =
      std::clamp<int64_t>(4 * static_cast<int64_t>(ref_atoms.size()), 64, int64_t(1) << 24);
  grid_ = make_cell_grid(request);
  const double scale = static_cast<double>(params_.scale);
  if (kind_ != BoxKind::none)
    for (int v = 0; v < 3; ++v)
      for (int c = 0; c < 3; ++c) row_[v][c] = box[static_cast<size_t>(3 * v + c)] * scale;
  prefilter_ = true;
  for (int a = 0; a < 3; ++a)
    prefilter_ = prefilter_ && grid_.offset_hi[a] - grid_.offset_lo[a] == 2 * grid_.reach;
  // The grid's margin bounds how far a computed distance lies from the exact one; the filter's
  // and the engine's distances are two such computations.
  const double m = 2 * (grid_.r_cut - r_max) * scale;
  slack_ = static_cast<float>(2 * nbins * m + m * m);

  // Counting sort by cell: a cell's atoms side by side.
  const size_t n = ref_atoms.size();
  std::vector<int64_t> key(n);
  start_.assign(static_cast<size_t>(grid_.keys) + 1, 0);
  for (size_t k = 0; k < n; ++k) {
    const float* p = xyz + 3 * static_cast<size_t>(ref_atoms[k]);
    key[k] = cells::key_of_point(grid_, p[0], p[1], p[2]);
    ++start_[static_cast<size_t>(key[k]) + 1];
  }
  for (size_t c = 0; c + 1 < start_.size(); ++c) start_[c + 1] += start_[c];
  std::vector<uint32_t> fill(start_.begin(), start_.end() - 1);
  x_.resize(n), y_.resize(n), z_.resize(n), group_.resize(n);
  ux_.resize(n), uy_.resize(n), uz_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const uint32_t at = fill[static_cast<size_t>(key[k])]++;
    const float* p = xyz + 3 * static_cast<size_t>(ref_atoms[k]);
    float u[3];
    unit_cell(p, u);
    ux_[at] = u[0], uy_[at] = u[1], uz_[at] = u[2];
    const auto load = [&](int axis) {
      return dispatch_box_kind(
          kind_, [&](auto kind) { return loaded<decltype(kind)::value>(p[axis], params_, axis); });
    };
    x_[at] = load(0), y_[at] = load(1), z_[at] = load(2);
    group_[at] = group[k];
  }
}

CellIndex SurfaceDistances::unit_cell(const float* p, float u[3]) const {
  const double scale = static_cast<double>(params_.scale);
  double x = p[0], y = p[1], z = p[2];
  if (kind_ != BoxKind::none) {
    // cell_of_point's fractional coordinates, so that the images taken off are its own.
    const CellGrid& g = grid_;
    const double sc = fp::mul(z, g.inv_cz);
    const double sb = fp::mul(fp::fma(-sc, g.cy, y), g.inv_by);
    const double sa = fp::mul(fp::fma(-sc, g.cx, fp::fma(-sb, g.bx, x)), g.inv_ax);
    const double fa = std::floor(sa), fb = std::floor(sb), fc = std::floor(sc);
    x -= fa * g.ax + fb * g.bx + fc * g.cx;
    y -= fb * g.by + fc * g.cy;
    z -= fc * g.cz;
  }
  u[0] = static_cast<float>(x * scale);
  u[1] = static_cast<float>(y * scale);
  u[2] = static_cast<float>(z * scale);
  return cells::cell_of_point(grid_, p[0], p[1], p[2]);
}

SurfaceDistances::Scratch SurfaceDistances::scratch() const {
  Scratch s;
  s.best.assign(static_cast<size_t>(groups_), kNone);
  return s;
}

template <BoxKind K>
void SurfaceDistances::nearest_in(const float* p, Scratch& s, std::vector<Hit>& hits) const {
  float u[3];
  const CellIndex home = unit_cell(p, u);
  const float px = loaded<K>(p[0], params_, 0), py = loaded<K>(p[1], params_, 1),
              pz = loaded<K>(p[2], params_, 2);
  const ImageTable<float> images = image_table(params_.box);
  const float reach2 = static_cast<float>(params_.nbins) * static_cast<float>(params_.nbins);
  const CellGrid& g = grid_;
  const int at[3] = {home.x, home.y, home.z};
  int offset[3], cell[3];
  for (offset[2] = g.offset_lo[2]; offset[2] <= g.offset_hi[2]; ++offset[2])
    for (offset[1] = g.offset_lo[1]; offset[1] <= g.offset_hi[1]; ++offset[1])
      for (offset[0] = g.offset_lo[0]; offset[0] <= g.offset_hi[0]; ++offset[0]) {
        if (!cells::offset_reaches(g, offset[0], offset[1], offset[2])) continue;
        // The neighbour cell and the lattice translation its atoms take to lie next to home.
        double shift[3] = {0, 0, 0};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
          cell[a] = cells::neighbour_along(g, a, at[a], offset[a]);
          inside = inside && cell[a] >= 0;
          const int wraps = at[a] + offset[a] - cell[a];  // a multiple of n[a]
          if (wraps != 0)
            for (int c = 0; c < 3; ++c) shift[c] += wraps / g.n[a] * row_[a][c];
        }
        if (!inside) continue;
        const float ox = static_cast<float>(shift[0] - u[0]),
                    oy = static_cast<float>(shift[1] - u[1]),
                    oz = static_cast<float>(shift[2] - u[2]);
        const int64_t key = cells::key_of(g, CellIndex{cell[0], cell[1], cell[2]});
        const uint32_t end = start_[static_cast<size_t>(key) + 1];
        for (uint32_t k = start_[static_cast<size_t>(key)]; k < end; ++k) {
          float& best = s.best[static_cast<size_t>(group_[k])];
          if (prefilter_) {
            const float dx = ux_[k] + ox, dy = uy_[k] + oy, dz = uz_[k] + oz;
            if (dx * dx + dy * dy + dz * dz > std::min(best, reach2) + slack_) continue;
          }
          // The displacement as the engine takes it for a (reference, selection) pair.
          const float d2 = pair_distance2<K>(params_.box, images, fp::sub(px, x_[k]),
                                             fp::sub(py, y_[k]), fp::sub(pz, z_[k]));
          if (d2 < best) {
            if (best == kNone) s.touched.push_back(group_[k]);
            best = d2;
          }
        }
      }
  for (int g : s.touched) {
    float& best = s.best[static_cast<size_t>(g)];
    // A zero displacement leaves only norm2's floor: the position is that atom.
    if (best > kSquaredDistanceFloor<float>) {
      const int bin = bin_of(best, params_);
      if (bin < params_.nbins) hits.push_back({g, bin});
    }
    best = kNone;
  }
  s.touched.clear();
}

void SurfaceDistances::nearest(const float* p, Scratch& s, std::vector<Hit>& hits) const {
  hits.clear();
  if (x_.empty()) return;
  dispatch_box_kind(kind_, [&](auto kind) { nearest_in<decltype(kind)::value>(p, s, hits); });
}

void SurfaceDistances::count(const float* xyz, const std::vector<int>& positions, int first_bin,
                             uint64_t* counts) const {
  const size_t n = positions.size(), nbins = static_cast<size_t>(params_.nbins);
  const size_t threads =
      std::clamp<size_t>(n / kMinStretch, 1, static_cast<size_t>(usable_cores()));
  const size_t step = (n + threads - 1) / threads;
  std::vector<std::vector<uint64_t>> partial(threads, std::vector<uint64_t>(nbins, 0));
  auto run = [&](size_t t) {
    Scratch s = scratch();
    std::vector<Hit> hits;
    std::vector<uint64_t>& mine = partial[t];
    for (size_t i = t * step; i < std::min(n, (t + 1) * step); ++i) {
      nearest(xyz + 3 * static_cast<size_t>(positions[i]), s, hits);
      for (const Hit& h : hits)
        if (h.bin >= first_bin) ++mine[static_cast<size_t>(h.bin)];
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (std::thread& t : pool) t.join();
  for (const auto& mine : partial)
    for (size_t b = 0; b < nbins; ++b) counts[b] += mine[b];
}

}  // namespace pairhist::analysis
