// Cells the cell-list kernels must handle (shared by the CPU and GPU cell-list tests): boxes at
// their limits, skewed and far-out cells; the grid for a scenario's points, and the candidates a
// brute force over (home, stencil) cell pairs counts.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "pairhist/cell_grid_setup.hpp"
#include "tests/random_points.hpp"

namespace pairhist::test {

/// A periodic cell (or none) with the r_max to count up to and where the points lie.
struct Scenario {
  const char* name;
  BoxMatrix box{};
  double r_max = 1;
  double lo = 0, hi = 1;
  BoxKind kind() const { return classify_box(box); }
};

inline BoxMatrix cube(double side) {
  return {side, 0, 0, 0, side, 0, 0, 0, side};
}

/// Every kind of cell the grids must handle; some depend on the reach (3 cells per axis).
inline std::vector<Scenario> scenarios(int reach) {
  std::vector<Scenario> s;
  s.push_back({"no box", {}, 1.5, -2.0, 5.0});
  const BoxMatrix ortho = random_orthorhombic(2.0, 3.0);
  s.push_back({"random orthorhombic", ortho, 0.7, -1.0, 4.0});
  s.push_back({"r_max beyond half the box", cube(1.0), 0.8, 0.0, 1.0});
  s.push_back({"box of exactly 2 r_max", cube(2.0), 1.0, 0.0, 2.0});
  s.push_back({"box of 2.01 r_max", cube(2.01), 1.0, -1.0, 3.0});
  s.push_back({"3 cells per axis", cube(3.003 / reach), 1.0, 0.0, 3.003 / reach});
  BoxMatrix tric;
  do tric = random_triclinic(2.0, 3.0);
  while (triclinic_search_size(tric, max_minimum_image_rmax(tric)) > size_t(kMaxOctantImages));
  const double limit = max_minimum_image_rmax(tric);
  s.push_back({"random triclinic at its limit", tric, limit, -1.0, 4.0});
  s.push_back({"random triclinic, small r_max", tric, 0.4 * limit, -1.0, 4.0});
  const BoxMatrix rd = rhombic_dodecahedron(3.0), to = truncated_octahedron(3.0);
  s.push_back({"rhombic dodecahedron at its limit", rd, max_minimum_image_rmax(rd), 0.0, 3.0});
  s.push_back({"truncated octahedron at its limit", to, max_minimum_image_rmax(to), 0.0, 3.0});
  const double far = 1000 * ortho[0];
  s.push_back({"orthorhombic, 1000 box lengths out", ortho, 0.7, far, far + 3.0});
  s.push_back({"rhombic dodecahedron, 1000 box lengths out", rd, 1.2, 3000.0, 3003.0});
  return s;
}

template <class T>
CellGrid grid_for(const Scenario& s, const std::vector<T>& a, int64_t na, const std::vector<T>& b,
                  int64_t nb, int reach, CellOrder order) {
  CellGridRequest r;
  r.box = s.box;
  r.kind = s.kind();
  r.r_max = s.r_max;
  r.single_precision = sizeof(T) == 4;
  r.reach = reach;
  r.order = order;
  for (int c = 0; c < 3; ++c) r.lo[c] = INFINITY, r.hi[c] = -INFINITY;
  for (const auto& [v, n] : {std::pair{&a, na}, std::pair{&b, nb}})
    for (int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        const double x = (*v)[static_cast<size_t>(c * n + i)];
        r.lo[c] = std::min(r.lo[c], x), r.hi[c] = std::max(r.hi[c], x);
        r.max_abs = std::max(r.max_abs, std::fabs(x));
      }
  if (na + nb == 0)
    for (int c = 0; c < 3; ++c) r.lo[c] = r.hi[c] = 0;
  r.max_cells = std::max<int64_t>(64, 4 * (na + nb));
  return make_cell_grid(r);
}

template <class T>
std::vector<int64_t> host_keys(const std::vector<T>& soa, int64_t n, const CellGrid& g) {
  std::vector<int64_t> keys(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    keys[size_t(i)] = cells::key_of_point(g, double(soa[size_t(i)]), double(soa[size_t(n + i)]),
                                          double(soa[size_t(2 * n + i)]));
  return keys;
}

inline std::vector<int64_t> counts_per_key(const std::vector<int64_t>& keys, const CellGrid& g) {
  std::vector<int64_t> counts(static_cast<size_t>(g.keys), 0);
  for (int64_t k : keys) ++counts[size_t(k)];
  return counts;
}

/// Candidates of home keys [k0, k1): a brute force over (home, stencil) cell pairs.
inline uint64_t host_candidates(const CellGrid& g, const std::vector<int64_t>& ca,
                                const std::vector<int64_t>& cb, bool same, int64_t k0, int64_t k1) {
  uint64_t total = 0;
  for (int64_t key = k0; key < k1; ++key) {
    const auto na = static_cast<uint64_t>(ca[size_t(key)]);
    CellIndex home;
    if (!cells::cell_of_key(g, key, home)) {
      REQUIRE(na == 0);
      continue;
    }
    uint64_t stencil = 0;
    cells::for_each_stencil_cell(g, home, same,
                                 [&](int64_t k) { stencil += uint64_t(cb[size_t(k)]); });
    total += same ? na * (stencil - na) + na * (na - 1) / 2 : na * stencil;
  }
  return total;
}

/// Cuts [0, keys) into `pieces` ranges at random (some may be empty).
inline std::vector<int64_t> random_cuts(int64_t keys, int pieces) {
  std::vector<int64_t> cuts{0, keys};
  std::uniform_int_distribution<int64_t> u(0, keys);
  for (int c = 1; c < pieces; ++c) cuts.push_back(u(rng()));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

/// One check's inputs: fresh points of a scenario (b is a for the same species), their grid and
/// kernel parameters, the points per key, and the expected histogram: all pairs counted by the
/// CPU's all-pairs kernel on top of a random (poisoned) start, with the brute-force candidates in
/// the extra last entry. The CAPTUREs name the case in a failure.
template <class T>
struct CellCase {
  int64_t na, nb;
  bool same;
  std::vector<T> a, b;
  CellGrid g;
  HistogramParams<T> p;
  std::vector<int64_t> ca, cb;
  std::vector<uint64_t> poison, expected;

  /// cut_below_rmax > 0: the cut-off that many bins below r_max, inside the last bin;
  /// rmin_part > 0: bins from r_min = rmin_part * r_max.
  CellCase(const Scenario& s, int64_t na_, int64_t nb_, bool same_, int nbins, int reach,
           CellOrder order, double cut_below_rmax = 0, double rmin_part = 0)
      : na(na_), nb(same_ ? na_ : nb_), same(same_) {
    a = to_soa<T>(random_points(na, s.lo, s.hi));
    b = same ? a : to_soa<T>(random_points(nb, s.lo, s.hi));
    g = grid_for(s, a, na, b, nb, reach, order);
    const double r_min = rmin_part * s.r_max, width = (s.r_max - r_min) / nbins;
    p = make_params<T>(s.box, s.kind(), s.r_max, nbins,
                       cut_below_rmax > 0 ? s.r_max - cut_below_rmax * width : 0.0, r_min);
    ca = counts_per_key(host_keys(a, na, g), g);
    cb = same ? ca : counts_per_key(host_keys(b, nb, g), g);
    poison.resize(size_t(nbins) + 1);
    for (auto& v : poison) v = rng()() >> 4;
    expected = poison;
    cpu::pair_histogram(cpu::Coords<T>{a.data(), na}, cpu::Coords<T>{b.data(), nb}, same, 0, na, p,
                        expected.data());
    expected[size_t(nbins)] += host_candidates(g, ca, cb, same, 0, g.keys);
  }
};

constexpr CellOrder kOrders[] = {CellOrder::row_major, CellOrder::morton, CellOrder::hilbert};

}  // namespace pairhist::test
