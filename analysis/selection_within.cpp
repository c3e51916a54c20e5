#include "analysis/selection_within.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "pairhist/host_cores.hpp"

namespace pairhist::analysis {
namespace {

using Vec = std::array<double, 3>;

Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec& a, const Vec& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// The grid never holds more cells than about this many per atom involved, so that a tiny radius
// in a large box (or a frame of scattered points without a box) costs memory in proportion to
// the atoms, not to the volume.
constexpr int64_t kCellsPerAtom = 4;
constexpr int64_t kMinCells = 64;
constexpr int64_t kMaxCells = int64_t{1} << 24;

/// The target atoms sorted by cell, and how to find a point's cell and its images' displacements.
/// A periodic grid works in fractional coordinates s = x H^-1 (rows of H the box vectors): a
/// cell is 1/n_d wide along lattice direction d, at least `radius` measured perpendicular to the
/// opposite faces when the box allows, and a sphere of radius R spans R |g_d| n_d cells along d
/// (g_d the reciprocal vector), so the cells within `reach` of a point's hold every image near
/// it. Without a box the grid covers the targets' bounding box in cells of the radius.
class TargetGrid {
 public:
  /// `candidates`: how many atoms will ask near(); the grid may have cells for them too.
  TargetGrid(const float* xyz, const BoxMatrix& box, const std::vector<int>& targets, double radius,
             size_t candidates)
      : xyz_(xyz), radius2_(radius * radius), periodic_(classify_box(box) != BoxKind::none) {
    for (int d = 0; d < 3; ++d) rows_[d] = {box[3 * d], box[3 * d + 1], box[3 * d + 2]};
    std::array<double, 3> span{};
    if (periodic_) {
      const double volume = dot(rows_[0], cross(rows_[1], rows_[2]));
      for (int d = 0; d < 3; ++d) {
        const Vec g = cross(rows_[(d + 1) % 3], rows_[(d + 2) % 3]);
        for (int c = 0; c < 3; ++c) reciprocal_[d][c] = g[c] / volume;
        span[d] = std::sqrt(dot(reciprocal_[d], reciprocal_[d]));  // 1 / the face distance
      }
    } else {
      for (int c = 0; c < 3; ++c) lo_[c] = INFINITY, span[c] = -INFINITY;
      for (int t : targets)
        for (int c = 0; c < 3; ++c) {
          lo_[c] = std::min(lo_[c], double(xyz[3 * size_t(t) + c]));
          span[c] = std::max(span[c], double(xyz[3 * size_t(t) + c]));
        }
      for (int c = 0; c < 3; ++c) span[c] = std::max(span[c] - lo_[c], 0.0);
    }
    // Cells per direction: as many as keep them a radius wide, within the grid's budget.
    const int64_t budget = std::clamp<int64_t>(
        kCellsPerAtom * static_cast<int64_t>(targets.size() + candidates), kMinCells, kMaxCells);
    // A hair wider than the radius, so that one cell either side holds every neighbour whatever
    // the rounding of a point's cell.
    double width = radius > 0 ? radius * (1 + 1e-9) : 1.0;
    for (;;) {
      int64_t cells = 1;
      for (int d = 0; d < 3; ++d) {
        const double per_width = periodic_ ? 1.0 / (span[d] * width) : span[d] / width;
        n_[d] = static_cast<int>(std::clamp(std::floor(per_width), 1.0, 1024.0));
        if (!periodic_) n_[d] = std::min(1024, n_[d] + 1);
        cells *= n_[d];
      }
      if (cells <= budget) break;
      width *= 1.5;
    }
    for (int d = 0; d < 3; ++d) {
      // Cells a point's sphere reaches on either side of its own.
      const double cell_span = periodic_ ? radius * span[d] * n_[d] : radius / width;
      reach_[d] = std::max(static_cast<int>(std::ceil(cell_span)), 1);
      if (!periodic_) scale_[d] = 1.0 / width;
    }
    // Counting sort of the targets by cell.
    const size_t cells = size_t(n_[0]) * n_[1] * n_[2];
    start_.assign(cells + 1, 0);
    std::vector<uint32_t> cell_of(targets.size());
    std::vector<std::array<int, 3>> image_of(targets.size());
    for (size_t k = 0; k < targets.size(); ++k) {
      std::array<int, 3> cell{};
      locate(targets[k], cell, image_of[k]);
      cell_of[k] = static_cast<uint32_t>(index(cell));
      ++start_[cell_of[k] + 1];
    }
    for (size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    positions_.resize(3 * targets.size());
    images_.resize(targets.size());
    std::vector<uint32_t> fill(start_.begin(), start_.end() - 1);
    for (size_t k = 0; k < targets.size(); ++k) {
      const uint32_t at = fill[cell_of[k]]++;
      // Each cell's targets side by side: a point's neighbours are then read in a few cache
      // lines, not from all over the frame.
      for (int c = 0; c < 3; ++c) positions_[3 * size_t(at) + c] = xyz[3 * size_t(targets[k]) + c];
      images_[at] = image_of[k];
    }
    // Cells with a target within reach: a point in any other cell is near none, decided at once
    // (most points, when the targets are a few ions).
    reachable_.assign(cells, 0);
    std::array<int, 3> c{};
    for (c[0] = 0; c[0] < n_[0]; ++c[0])
      for (c[1] = 0; c[1] < n_[1]; ++c[1])
        for (c[2] = 0; c[2] < n_[2]; ++c[2]) {
          const size_t ci = index(c);
          if (start_[ci] == start_[ci + 1]) continue;
          for_neighbours(c, [&](const std::array<int, 3>& nc, const std::array<int, 3>&) {
            reachable_[index(nc)] = 1;
            return false;
          });
        }
  }

  /// Whether atom a has a target within the radius.
  bool near(int a) const {
    std::array<int, 3> cell{}, image{};
    locate(a, cell, image);
    const bool in_grid = cell[0] >= 0 && cell[0] < n_[0] && cell[1] >= 0 && cell[1] < n_[1] &&
                         cell[2] >= 0 && cell[2] < n_[2];
    if (in_grid && !reachable_[index(cell)]) return false;
    const float* p = xyz_ + 3 * size_t(a);
    return for_neighbours(cell, [&](const std::array<int, 3>& c, const std::array<int, 3>& wrap) {
      const size_t ci = index(c);
      for (uint32_t k = start_[ci]; k < start_[ci + 1]; ++k) {
        const float* q = positions_.data() + 3 * size_t(k);
        Vec d{double(q[0]) - double(p[0]), double(q[1]) - double(p[1]),
              double(q[2]) - double(p[2])};
        if (periodic_) {
          // The target's image in the neighbouring cell: its own wrap undone, the point's
          // applied, and the cell offset's lattice shift.
          for (int v = 0; v < 3; ++v) {
            const int m = wrap[v] - images_[k][v] + image[v];
            if (m == 0) continue;
            for (int x = 0; x < 3; ++x) d[x] += m * rows_[v][x];
          }
        }
        if (dot(d, d) <= radius2_) return true;
      }
      return false;
    });
  }

 private:
  static int floor_div(int a, int n) { return a >= 0 ? a / n : -((-a + n - 1) / n); }

  /// Calls f(neighbour cell, its wrap in lattice images) for every cell within reach of `cell`
  /// (with a box, periodically; without, those inside the grid) until f returns true.
  template <class F>
  bool for_neighbours(const std::array<int, 3>& cell, F&& f) const {
    std::array<int, 3> o{};
    for (o[0] = -reach_[0]; o[0] <= reach_[0]; ++o[0])
      for (o[1] = -reach_[1]; o[1] <= reach_[1]; ++o[1])
        for (o[2] = -reach_[2]; o[2] <= reach_[2]; ++o[2]) {
          std::array<int, 3> c{}, wrap{};
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            c[d] = cell[d] + o[d];
            if (periodic_) {
              wrap[d] = floor_div(c[d], n_[d]);
              c[d] -= wrap[d] * n_[d];
            } else if (c[d] < 0 || c[d] >= n_[d]) {
              inside = false;
            }
          }
          if (inside && f(c, wrap)) return true;
        }
    return false;
  }
  size_t index(const std::array<int, 3>& c) const {
    return (size_t(c[0]) * n_[1] + size_t(c[1])) * n_[2] + size_t(c[2]);
  }
  /// Atom a's cell and, with a box, the lattice images its wrap into the unit cell took off.
  void locate(int a, std::array<int, 3>& cell, std::array<int, 3>& image) const {
    const float* p = xyz_ + 3 * size_t(a);
    // A distance to such an atom means nothing: the selection would be a guess.
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
      throw std::domain_error("atom " + std::to_string(a + 1) +
                              " has a non-finite coordinate (a within/around selection needs it)");
    const Vec x{p[0], p[1], p[2]};
    for (int d = 0; d < 3; ++d) {
      if (!periodic_) {
        image[d] = 0;
        cell[d] = std::clamp(static_cast<int>(std::floor((x[d] - lo_[d]) * scale_[d])), -1,
                             n_[d]);  // outside the targets' grid: only its edge cells reach
        continue;
      }
      const double s = dot(x, reciprocal_[d]);
      const double f = std::floor(s);
      image[d] = static_cast<int>(f);
      cell[d] = std::clamp(static_cast<int>((s - f) * n_[d]), 0, n_[d] - 1);
    }
  }

  const float* xyz_;
  double radius2_;
  bool periodic_;
  std::array<Vec, 3> rows_{};
  std::array<Vec, 3> reciprocal_{};
  std::array<double, 3> lo_{}, scale_{};
  std::array<int, 3> n_{}, reach_{};
  std::vector<uint32_t> start_;
  std::vector<char> reachable_;   // per cell: a target lies within reach
  std::vector<float> positions_;  // the targets' coordinates, sorted by cell
  std::vector<std::array<int, 3>> images_;
};

}  // namespace

void mark_within(const float* xyz, const BoxMatrix& box, const std::vector<int>& targets,
                 const std::vector<int>& candidates, double radius, std::vector<char>& hit) {
  if (targets.empty() || candidates.empty() || !(radius >= 0)) return;
  const TargetGrid grid(xyz, box, targets, radius, candidates.size());
  // Candidates in stretches, one thread each where there are many.
  constexpr size_t kMinStretch = size_t{1} << 15;
  const size_t n = candidates.size();
  const size_t threads = std::clamp<size_t>(n / kMinStretch, 1, size_t(usable_cores()));
  const size_t step = (n + threads - 1) / threads;
  auto run = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      if (grid.near(candidates[i])) hit[size_t(candidates[i])] = 1;
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(run, std::min(n, t * step), std::min(n, (t + 1) * step));
  run(0, std::min(n, step));
  for (std::thread& t : pool) t.join();
}

}  // namespace pairhist::analysis
