// Shared by the cell-list CPU tests: boxes with their r_max, random points in them, and the grid
// a frame of such points gets.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "pairhist/cell_grid_setup.hpp"
#include "tests/random_points.hpp"

namespace pairhist::test {

inline constexpr CellOrder kOrders[] = {CellOrder::row_major, CellOrder::morton,
                                        CellOrder::hilbert};

struct Setup {
  BoxMatrix box;
  double r_max;
  const char* name;
  BoxKind kind() const { return classify_box(box); }
};

/// n points of the cell m (fractional coordinates uniform in [0, 1)), each moved by up to
/// `shift` whole lattice vectors along every axis; without a box, uniform in [0, extent)^3 plus
/// `shift` extents.
inline std::vector<double> cell_points(const BoxMatrix& m, double extent, int64_t n, int shift) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> k(-shift, shift);
  std::vector<double> p;
  for (int64_t i = 0; i < n; ++i) {
    if (classify_box(m) == BoxKind::none) {
      for (int c = 0; c < 3; ++c) p.push_back((u(rng()) + shift) * extent);
      continue;
    }
    const double f0 = u(rng()) + k(rng()), f1 = u(rng()) + k(rng()), f2 = u(rng()) + k(rng());
    p.insert(p.end(), {f0 * m[0] + f1 * m[3] + f2 * m[6], f1 * m[4] + f2 * m[7], f2 * m[8]});
  }
  return p;
}

template <class T>
struct Species {
  std::vector<T> soa;
  int64_t n = 0;
  explicit Species(const std::vector<double>& xyz)
      : soa(to_soa<T>(xyz)), n(static_cast<int64_t>(xyz.size() / 3)) {}
  cpu::Coords<T> coords() const { return {soa.data(), n}; }
  double at(int64_t i, int c) const { return static_cast<double>(soa[c * n + i]); }
};

/// The frame's grid as frame_cell_grid makes it: bounding box and largest |coordinate| of the
/// points as the kernels get them.
template <class T>
CellGrid grid_for(const Setup& s, const std::vector<const Species<T>*>& species, int reach,
                  CellOrder order, bool prune = true) {
  CellGridRequest r;
  r.prune = prune;
  r.box = s.box;
  r.kind = s.kind();
  r.r_max = s.r_max;
  r.single_precision = sizeof(T) == 4;
  r.reach = reach;
  r.order = order;
  int64_t total = 0;
  for (int c = 0; c < 3; ++c) r.lo[c] = INFINITY, r.hi[c] = -INFINITY;
  for (const Species<T>* sp : species) {
    total += sp->n;
    for (int64_t i = 0; i < sp->n; ++i)
      for (int c = 0; c < 3; ++c) {
        r.lo[c] = std::min(r.lo[c], sp->at(i, c));
        r.hi[c] = std::max(r.hi[c], sp->at(i, c));
        r.max_abs = std::max(r.max_abs, std::fabs(sp->at(i, c)));
      }
  }
  if (total == 0)
    for (int c = 0; c < 3; ++c) r.lo[c] = r.hi[c] = 0;
  r.max_cells = std::max<int64_t>(64, 4 * total);
  return make_cell_grid(r);
}

inline std::vector<Setup> limit_setups() {
  const BoxMatrix ortho = random_orthorhombic(2.0, 3.0);
  const BoxMatrix tric = random_triclinic(2.0, 3.0);
  const BoxMatrix dodec = rhombic_dodecahedron(2.5), octa = truncated_octahedron(2.5);
  return {{BoxMatrix{}, 0.6, "no box"},
          {ortho, max_minimum_image_rmax(ortho), "orthorhombic at its limit"},
          {tric, max_minimum_image_rmax(tric), "triclinic at its limit"},
          {dodec, max_minimum_image_rmax(dodec), "rhombic dodecahedron at its limit"},
          {octa, max_minimum_image_rmax(octa), "truncated octahedron at its limit"}};
}

/// The same boxes with r_max a fraction of the limit: many cells, clipped stencils.
inline std::vector<Setup> small_rmax_setups() {
  std::uniform_real_distribution<double> f(0.15, 0.3);
  std::vector<Setup> out = limit_setups();
  for (Setup& s : out) s.r_max *= f(rng());
  out[0].name = "no box, small r_max";
  out[1].name = "orthorhombic, small r_max";
  out[2].name = "triclinic, small r_max";
  out[3].name = "rhombic dodecahedron, small r_max";
  out[4].name = "truncated octahedron, small r_max";
  return out;
}

/// The CPU cell lists' counts of (a, b) under p equal `all_pairs` bit for bit, in every order
/// and with reach 1 and 2 (b is a where `same`).
template <class T>
void require_cells_equal(const Setup& s, const Species<T>& a, const Species<T>& b, bool same,
                         const HistogramParams<T>& p, const std::vector<uint64_t>& all_pairs) {
  for (CellOrder order : kOrders)
    for (int reach : {1, 2}) {
      const CellGrid g = grid_for<T>(s, {&a, &b}, reach, order);
      cpu::CellSortedSpecies<T> sa, sb;
      cpu::sort_into_cells(a.coords(), g, p, sa);
      cpu::sort_into_cells(b.coords(), g, p, sb);
      std::vector<uint64_t> cells(static_cast<size_t>(p.nbins) + 1, 0);
      cpu::cell_histogram(sa, sb, same, g, 0, g.keys, p, cells.data());
      cells.pop_back();  // the candidates
      REQUIRE(cells == all_pairs);
    }
}

}  // namespace pairhist::test
