// CPU cell-list kernel against the all-pairs kernel, on fresh random points every run: the
// histograms must be equal bit for bit for every box, precision, cell order and reach, for
// whatever split of the home keys; the candidates must be exactly the (home, stencil) cell pairs.
// Also the grid itself: curve keys, and that no pair counted by the kernels' arithmetic lies
// outside the stencil.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "../codelets/cpu/cell_list_cpu.hpp"
#include "pairhist/cell_grid_setup.hpp"
#include "random_points.hpp"

using namespace pairhist;

namespace {

constexpr CellOrder kOrders[] = {CellOrder::row_major, CellOrder::morton, CellOrder::hilbert};

struct Setup {
  BoxMatrix box;
  double r_max;
  const char* name;
  BoxKind kind() const { return classify_box(box); }
};

/// n points of the cell m (fractional coordinates uniform in [0, 1)), each moved by up to
/// `shift` whole lattice vectors along every axis; without a box, uniform in [0, extent)^3 plus
/// `shift` extents.
std::vector<double> cell_points(const BoxMatrix& m, double extent, int64_t n, int shift) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> k(-shift, shift);
  std::vector<double> p;
  for (int64_t i = 0; i < n; ++i) {
    if (classify_box(m) == BoxKind::none) {
      for (int c = 0; c < 3; ++c) p.push_back((u(test::rng()) + shift) * extent);
      continue;
    }
    const double f0 = u(test::rng()) + k(test::rng()), f1 = u(test::rng()) + k(test::rng()),
                 f2 = u(test::rng()) + k(test::rng());
    p.insert(p.end(), {f0 * m[0] + f1 * m[3] + f2 * m[6], f1 * m[4] + f2 * m[7], f2 * m[8]});
  }
  return p;
}

template <class T>
struct Species {
  std::vector<T> soa;
  int64_t n = 0;
  explicit Species(const std::vector<double>& xyz)
      : soa(test::to_soa<T>(xyz)), n(static_cast<int64_t>(xyz.size() / 3)) {}
  cpu::Coords<T> coords() const { return {soa.data(), n}; }
  double at(int64_t i, int c) const { return static_cast<double>(soa[c * n + i]); }
};

/// The frame's grid as frame_cell_grid makes it: bounding box and largest |coordinate| of the
/// points as the kernels get them.
template <class T>
CellGrid grid_for(const Setup& s, const std::vector<const Species<T>*>& species, int reach,
                  CellOrder order) {
  CellGridRequest r;
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

/// Points per key, from cells::key_of_point directly.
template <class T>
std::vector<int64_t> points_per_key(const CellGrid& g, const Species<T>& s) {
  std::vector<int64_t> count(static_cast<size_t>(g.keys), 0);
  for (int64_t i = 0; i < s.n; ++i)
    ++count[static_cast<size_t>(cells::key_of_point(g, s.at(i, 0), s.at(i, 1), s.at(i, 2)))];
  return count;
}

/// Candidates of home keys [k0, k1): the (home, stencil) cell pairs, counted cell by cell.
template <class T>
uint64_t brute_candidates(const CellGrid& g, const Species<T>& a, const Species<T>& b, bool same,
                          int64_t k0, int64_t k1) {
  const auto ca = points_per_key(g, a), cb = same ? ca : points_per_key(g, b);
  uint64_t total = 0;
  for (int64_t key = k0; key < k1; ++key) {
    const auto na = static_cast<uint64_t>(ca[static_cast<size_t>(key)]);
    CellIndex home;
    if (na == 0 || !cells::cell_of_key(g, key, home)) continue;
    cells::for_each_stencil_cell(g, home, same, [&](int64_t k) {
      const auto nb = static_cast<uint64_t>(cb[static_cast<size_t>(k)]);
      total += (same && k == key) ? na * (na - 1) / 2 : na * nb;
    });
  }
  return total;
}

/// sort_into_cells keeps every point once, in its own cell, in input order, `loaded`.
template <BoxKind K, class T>
void check_sorted(const CellGrid& g, const Species<T>& s, const cpu::CellSortedSpecies<T>& sorted,
                  const HistogramParams<T>& p) {
  REQUIRE(sorted.size() == s.n);
  REQUIRE(sorted.cell_start.size() == static_cast<size_t>(g.keys) + 1);
  for (int64_t key = 0; key < g.keys; ++key)
    for (int64_t q = sorted.cell_start[key]; q < sorted.cell_start[key + 1]; ++q) {
      const int64_t i = sorted.index[q];
      REQUIRE(cells::key_of_point(g, s.at(i, 0), s.at(i, 1), s.at(i, 2)) == key);
      if (q > sorted.cell_start[key]) REQUIRE(sorted.index[q - 1] < i);
      REQUIRE(sorted.x[q] == loaded<K>(s.soa[i], p, 0));
      REQUIRE(sorted.y[q] == loaded<K>(s.soa[s.n + i], p, 1));
      REQUIRE(sorted.z[q] == loaded<K>(s.soa[2 * s.n + i], p, 2));
    }
}

/// Cell list == all pairs for every order and reach, whole and split into random key ranges.
template <class T>
void check_cell_list(const Setup& s, const std::vector<double>& pa, const std::vector<double>& pb,
                     bool same, int nbins, const std::vector<int>& reaches = {1, 2, 3}) {
  const std::string name = s.name;
  CAPTURE(name);
  CAPTURE(sizeof(T));
  const Species<T> a(pa), b(same ? pa : pb);
  const HistogramParams<T> p = make_params<T>(s.box, s.kind(), s.r_max, nbins);
  std::vector<uint64_t> expected(static_cast<size_t>(nbins) + 1, 0);
  cpu::histogram_pairs(a.coords(), b.coords(), same, 0, a.n, p, expected.data());
  const uint64_t all = same ? uint64_t(a.n) * uint64_t(std::max<int64_t>(a.n - 1, 0)) / 2
                            : uint64_t(a.n) * uint64_t(b.n);
  for (CellOrder order : kOrders)
    for (int reach : reaches) {
      CAPTURE(cell_order_name(order));
      CAPTURE(reach);
      const CellGrid g = grid_for<T>(s, {&a, &b}, reach, order);
      cpu::CellSortedSpecies<T> sa, sb;
      cpu::sort_into_cells(a.coords(), g, p, sa);
      cpu::sort_into_cells(b.coords(), g, p, sb);
      if (s.kind() == BoxKind::triclinic) check_sorted<BoxKind::triclinic>(g, a, sa, p);
      if (s.kind() == BoxKind::orthorhombic) check_sorted<BoxKind::orthorhombic>(g, a, sa, p);
      if (s.kind() == BoxKind::none) check_sorted<BoxKind::none>(g, a, sa, p);

      std::vector<uint64_t> got(static_cast<size_t>(nbins) + 1, 0);
      const uint64_t candidates = cpu::histogram_cells(sa, sb, same, g, 0, g.keys, p, got.data());
      REQUIRE(got[nbins] == candidates);
      expected[nbins] = candidates;
      REQUIRE(got == expected);
      REQUIRE(candidates == brute_candidates(g, a, b, same, 0, g.keys));
      REQUIRE(candidates <= all);

      // Arbitrary splits of the key space (empty ranges included) add up to the same.
      std::uniform_int_distribution<int64_t> cut(0, g.keys);
      std::vector<int64_t> cuts = {0, g.keys, cut(test::rng()), cut(test::rng()), cut(test::rng())};
      std::sort(cuts.begin(), cuts.end());
      std::vector<uint64_t> split(static_cast<size_t>(nbins) + 1, 0);
      uint64_t split_candidates = 0;
      for (size_t c = 0; c + 1 < cuts.size(); ++c) {
        const uint64_t part =
            cpu::histogram_cells(sa, sb, same, g, cuts[c], cuts[c + 1], p, split.data());
        CHECK(part == brute_candidates(g, a, b, same, cuts[c], cuts[c + 1]));
        split_candidates += part;
      }
      REQUIRE(split == got);
      REQUIRE(split_candidates == candidates);
    }
}

template <class T>
void check_both_ways(const Setup& s, int64_t na, int64_t nb, int shift, int nbins) {
  const double extent = 4 * s.r_max;
  const auto pa = cell_points(s.box, extent, na, shift);
  const auto pb = cell_points(s.box, extent, nb, shift);
  check_cell_list<T>(s, pa, pa, true, nbins);
  check_cell_list<T>(s, pa, pb, false, nbins);
}

std::vector<Setup> limit_setups() {
  const BoxMatrix ortho = test::random_orthorhombic(2.0, 3.0);
  const BoxMatrix tric = test::random_triclinic(2.0, 3.0);
  const BoxMatrix dodec = rhombic_dodecahedron(2.5), octa = truncated_octahedron(2.5);
  return {{BoxMatrix{}, 0.6, "no box"},
          {ortho, max_minimum_image_rmax(ortho), "orthorhombic at its limit"},
          {tric, max_minimum_image_rmax(tric), "triclinic at its limit"},
          {dodec, max_minimum_image_rmax(dodec), "rhombic dodecahedron at its limit"},
          {octa, max_minimum_image_rmax(octa), "truncated octahedron at its limit"}};
}

/// The same boxes with r_max a fraction of the limit: many cells, clipped stencils.
std::vector<Setup> small_rmax_setups() {
  std::uniform_real_distribution<double> f(0.15, 0.3);
  std::vector<Setup> out = limit_setups();
  for (Setup& s : out) s.r_max *= f(test::rng());
  out[0].name = "no box, small r_max";
  out[1].name = "orthorhombic, small r_max";
  out[2].name = "triclinic, small r_max";
  out[3].name = "rhombic dodecahedron, small r_max";
  out[4].name = "truncated octahedron, small r_max";
  return out;
}

}  // namespace

TEST_CASE("cell list equals all pairs at the minimum-image limit") {
  for (const Setup& s : limit_setups()) {
    check_both_ways<float>(s, 1500, 700, 2, 97);
    check_both_ways<double>(s, 1200, 500, 2, 1000);
  }
}

TEST_CASE("cell list equals all pairs with many cells, clipped and unclipped stencils") {
  for (const Setup& s : small_rmax_setups()) {
    check_both_ways<float>(s, 5000, 3000, 1, 240);
    check_both_ways<double>(s, 3000, 2000, 1, 64);
  }
}

TEST_CASE("cell list equals all pairs with coordinates a thousand box lengths out") {
  for (const Setup& s : small_rmax_setups()) {
    check_both_ways<float>(s, 2000, 1000, 1000, 100);
    check_both_ways<double>(s, 2000, 1000, 1000, 100);
  }
}

TEST_CASE("cell list equals all pairs in boxes of 2 r_max and 2.01 r_max") {
  for (double factor : {2.0, 2.01}) {
    const double r = 0.7;
    const BoxMatrix ortho{factor * r, 0, 0, 0, factor * r, 0, 0, 0, factor * r};
    const BoxMatrix dodec = rhombic_dodecahedron(factor * r / 0.99999999);
    for (const Setup& s : {Setup{ortho, r, "cube"}, Setup{dodec, r, "dodecahedron"}}) {
      check_both_ways<float>(s, 600, 300, 3, 50);
      check_both_ways<double>(s, 600, 300, 3, 50);
    }
  }
}

TEST_CASE("cell list equals all pairs for points on cell faces and repeated coordinates") {
  // A cube of side 4 with r_max just under 1: cells of exactly 1/2 (reach 2) or 1 (reach 1), so
  // points on multiples of 1/4 lie on faces; their many equal coordinates give displacement
  // components of exactly zero (and -0 coordinates signed zeros), the triclinic cells' octant
  // choice included.
  std::uniform_int_distribution<int> q(-8, 24);
  std::vector<double> lattice;
  for (int i = 0; i < 1500; ++i)
    for (int c = 0; c < 3; ++c) {
      const int v = q(test::rng());
      lattice.push_back(v == 0 && (i & 1) ? -0.0 : 0.25 * v);
    }
  const std::vector<double> few(lattice.begin(), lattice.begin() + 3 * 40);
  const BoxMatrix tric{4, 0, 0, 1, 4, 0, -1.5, 2, 4};
  for (const Setup& s : {Setup{{4, 0, 0, 0, 4, 0, 0, 0, 4}, 0.999, "cube"},
                         Setup{tric, 0.999, "triclinic"}, Setup{BoxMatrix{}, 0.999, "no box"}}) {
    check_cell_list<float>(s, lattice, lattice, true, 37);
    check_cell_list<double>(s, lattice, lattice, true, 37);
    check_cell_list<float>(s, lattice, few, false, 37);
    check_cell_list<double>(s, few, lattice, false, 37);
  }
}

TEST_CASE("cell list edge cases: empty, one atom, empty cells, very different sizes") {
  const BoxMatrix box = test::random_orthorhombic(3.0, 4.0);
  const BoxMatrix tric = test::random_triclinic(3.0, 4.0);
  for (const Setup& s : {Setup{box, 0.4, "orthorhombic"}, Setup{tric, 0.4, "triclinic"},
                         Setup{BoxMatrix{}, 0.4, "no box"}}) {
    const auto big = cell_points(s.box, 2.0, 5000, 1);
    const auto three = cell_points(s.box, 2.0, 3, 1);
    const auto one = cell_points(s.box, 2.0, 1, 0);
    const std::vector<double> none;
    // A cluster in one corner: most cells empty.
    auto cluster = cell_points(BoxMatrix{}, 0.5, 800, 0);
    check_cell_list<float>(s, cluster, cluster, true, 30);
    check_cell_list<float>(s, three, big, false, 30);
    check_cell_list<double>(s, big, three, false, 30);
    check_cell_list<float>(s, one, one, true, 30);
    check_cell_list<float>(s, one, big, false, 30);
    check_cell_list<double>(s, none, none, true, 30);
    check_cell_list<double>(s, none, big, false, 30);
    check_cell_list<float>(s, big, none, false, 30);
  }
}

TEST_CASE("cell grid: curve keys are bijections, Hilbert steps are face-adjacent") {
  for (CellOrder order : {CellOrder::morton, CellOrder::hilbert})
    for (int bits = 0; bits <= 5; ++bits) {
      CAPTURE(cell_order_name(order));
      CAPTURE(bits);
      CellGrid g;
      g.order = order;
      g.curve_bits = bits;
      g.n[0] = g.n[1] = g.n[2] = 1 << bits;
      g.keys = int64_t(1) << (3 * bits);
      std::vector<char> seen(static_cast<size_t>(g.keys), 0);
      for (int z = 0; z < g.n[2]; ++z)
        for (int y = 0; y < g.n[1]; ++y)
          for (int x = 0; x < g.n[0]; ++x) {
            const int64_t key = cells::key_of(g, CellIndex{x, y, z});
            REQUIRE(key >= 0);
            REQUIRE(key < g.keys);
            REQUIRE(!seen[static_cast<size_t>(key)]);
            seen[static_cast<size_t>(key)] = 1;
            CellIndex back{};
            REQUIRE(cells::cell_of_key(g, key, back));
            REQUIRE((back.x == x && back.y == y && back.z == z));
          }
      if (order != CellOrder::hilbert) continue;
      CellIndex prev{};
      cells::cell_of_key(g, 0, prev);
      for (int64_t key = 1; key < g.keys; ++key) {
        CellIndex c{};
        cells::cell_of_key(g, key, c);
        REQUIRE(std::abs(c.x - prev.x) + std::abs(c.y - prev.y) + std::abs(c.z - prev.z) == 1);
        prev = c;
      }
    }
}

namespace {

/// Every pair the kernels' arithmetic counts (bin below nbins) has b's cell in a's stencil;
/// stencils hold each cell once and are symmetric. Half the b points sit at r_max (1 - 10^-u),
/// u in [4, 8], from an a point, in random directions and periodic images, to probe the margin.
template <BoxKind K, class T>
void check_stencil_covers(const Setup& s, int reach, CellOrder order) {
  const int64_t n = 300;
  const int nbins = 50;
  auto pa = cell_points(s.box, 3.0, n, 3), pb = cell_points(s.box, 3.0, n, 3);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> image(-2, 2);
  std::uniform_real_distribution<double> digits(4.0, 8.0);
  const BoxMatrix& m = s.box;
  for (int64_t i = 0; i < n; i += 2) {
    const double v[3] = {normal(test::rng()), normal(test::rng()), normal(test::rng())};
    const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const double gap = std::pow(10.0, -digits(test::rng()));  // inside r_max, or rounded out
    const double l[3] = {double(image(test::rng())), double(image(test::rng())),
                         double(image(test::rng()))};
    const double shift[3] = {l[0] * m[0] + l[1] * m[3] + l[2] * m[6], l[1] * m[4] + l[2] * m[7],
                             l[2] * m[8]};
    for (int c = 0; c < 3; ++c)
      pb[3 * i + c] = pa[3 * i + c] + v[c] / len * s.r_max * (1 - gap) + shift[c];
  }
  const Species<T> a(pa), b(pb);
  const CellGrid grid = grid_for<T>(s, {&a, &b}, reach, order);
  const HistogramParams<T> p = make_params<T>(s.box, s.kind(), s.r_max, nbins);
  uint64_t counted = 0;
  for (int64_t i = 0; i < n; ++i) {
    const CellIndex ci = cells::cell_of_point(grid, a.at(i, 0), a.at(i, 1), a.at(i, 2));
    std::set<int64_t> stencil;
    cells::for_each_stencil_cell(grid, ci, false, [&](int64_t k) {
      REQUIRE(stencil.insert(k).second);
      if (i >= 4) return;
      CellIndex c;
      REQUIRE(cells::cell_of_key(grid, k, c));
      bool back = false;  // the neighbour's stencil holds the home cell
      cells::for_each_stencil_cell(grid, c, false,
                                   [&](int64_t h) { back = back || h == cells::key_of(grid, ci); });
      REQUIRE(back);
    });
    for (int64_t j = 0; j < n; ++j) {
      const int bin = bin_of_points<K, T>(p, a.soa[i], a.soa[n + i], a.soa[2 * n + i], b.soa[j],
                                          b.soa[n + j], b.soa[2 * n + j]);
      if (bin >= nbins) continue;
      ++counted;
      INFO("pair " << i << "," << j);
      REQUIRE(stencil.count(cells::key_of_point(grid, b.at(j, 0), b.at(j, 1), b.at(j, 2))) == 1);
    }
  }
  CHECK(counted >= static_cast<uint64_t>(n / 8));
}

}  // namespace

TEST_CASE("cell grid: every counted pair lies in the stencil (cell list CPU suite)") {
  for (int round = 0; round < 3; ++round)
    for (const Setup& s : small_rmax_setups())
      for (CellOrder order : kOrders)
        for (int reach = 1; reach <= kMaxCellReach; ++reach) {
          const std::string name = s.name;
          CAPTURE(name);
          CAPTURE(reach);
          if (s.kind() == BoxKind::none) {
            check_stencil_covers<BoxKind::none, float>(s, reach, order);
            check_stencil_covers<BoxKind::none, double>(s, reach, order);
          } else if (s.kind() == BoxKind::orthorhombic) {
            check_stencil_covers<BoxKind::orthorhombic, float>(s, reach, order);
            check_stencil_covers<BoxKind::orthorhombic, double>(s, reach, order);
          } else {
            check_stencil_covers<BoxKind::triclinic, float>(s, reach, order);
            check_stencil_covers<BoxKind::triclinic, double>(s, reach, order);
          }
        }
}
