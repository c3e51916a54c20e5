// CPU cell-list kernel against the all-pairs kernel, on fresh random points every run: the
// histograms must be equal bit for bit for every box, precision, cell order and reach, for
// whatever split of the home keys; the candidates must be exactly the (home, stencil) cell pairs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "tests/cell_list_setups.hpp"

using namespace pairhist;
using test::cell_points;
using test::grid_for;
using test::kOrders;
using test::Setup;
using test::Species;

namespace {

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
  cpu::pair_histogram(a.coords(), b.coords(), same, 0, a.n, p, expected.data());
  const uint64_t all = same ? uint64_t(a.n) * uint64_t(std::max<int64_t>(a.n - 1, 0)) / 2
                            : uint64_t(a.n) * uint64_t(b.n);
  for (CellOrder order : kOrders)
    for (int reach : reaches)
      for (bool prune : {false, true}) {
        CAPTURE(cell_order_name(order));
        CAPTURE(reach);
        CAPTURE(prune);
        const CellGrid g = grid_for<T>(s, {&a, &b}, reach, order, prune);
        cpu::CellSortedSpecies<T> sa, sb;
        cpu::sort_into_cells(a.coords(), g, p, sa);
        cpu::sort_into_cells(b.coords(), g, p, sb);
        if (s.kind() == BoxKind::triclinic) check_sorted<BoxKind::triclinic>(g, a, sa, p);
        if (s.kind() == BoxKind::orthorhombic) check_sorted<BoxKind::orthorhombic>(g, a, sa, p);
        if (s.kind() == BoxKind::none) check_sorted<BoxKind::none>(g, a, sa, p);

        std::vector<uint64_t> got(static_cast<size_t>(nbins) + 1, 0);
        const uint64_t candidates = cpu::cell_histogram(sa, sb, same, g, 0, g.keys, p, got.data());
        REQUIRE(got[nbins] == candidates);
        expected[nbins] = candidates;
        REQUIRE(got == expected);
        // Pruning examines a part of the stencil's pairs, never fewer than it counts.
        const uint64_t stencil_pairs = brute_candidates(g, a, b, same, 0, g.keys);
        if (g.prune) {
          REQUIRE(candidates <= stencil_pairs);
          REQUIRE(candidates >= std::accumulate(got.begin(), got.end() - 1, uint64_t(0)));
        } else {
          REQUIRE(candidates == stencil_pairs);
        }
        REQUIRE(candidates <= all);

        // Arbitrary splits of the key space (empty ranges included) add up to the same.
        std::uniform_int_distribution<int64_t> cut(0, g.keys);
        std::vector<int64_t> cuts = {0, g.keys, cut(test::rng()), cut(test::rng()),
                                     cut(test::rng())};
        std::sort(cuts.begin(), cuts.end());
        std::vector<uint64_t> split(static_cast<size_t>(nbins) + 1, 0);
        uint64_t split_candidates = 0;
        for (size_t c = 0; c + 1 < cuts.size(); ++c) {
          const uint64_t part =
              cpu::cell_histogram(sa, sb, same, g, cuts[c], cuts[c + 1], p, split.data());
          const uint64_t part_stencil = brute_candidates(g, a, b, same, cuts[c], cuts[c + 1]);
          if (g.prune)
            CHECK(part <= part_stencil);
          else
            CHECK(part == part_stencil);
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

}  // namespace

TEST_CASE("cell list equals all pairs at the minimum-image limit") {
  for (const Setup& s : test::limit_setups()) {
    check_both_ways<float>(s, 1500, 700, 2, 97);
    check_both_ways<double>(s, 1200, 500, 2, 1000);
  }
}

TEST_CASE("cell list equals all pairs with many cells, clipped and unclipped stencils") {
  for (const Setup& s : test::small_rmax_setups()) {
    check_both_ways<float>(s, 5000, 3000, 1, 240);
    check_both_ways<double>(s, 3000, 2000, 1, 64);
  }
}

TEST_CASE("cell list equals all pairs with coordinates a thousand box lengths out") {
  for (const Setup& s : test::small_rmax_setups()) {
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

TEST_CASE("cell list with coordinates spread over 1e30 (huge bounding box, no box)") {
  // The double-precision margin is far below such an extent: 1e9 cells per axis before the cap
  // (make_cell_grid once overflowed counting them).
  auto points = cell_points(BoxMatrix{}, 1.0, 400, 0);
  for (int c = 0; c < 3; ++c)
    for (double far : {-1e30, 1e30}) {
      std::vector<double> p = {0.5, 0.5, 0.5};
      p[static_cast<size_t>(c)] = far;
      points.insert(points.end(), p.begin(), p.end());
    }
  const Setup s{BoxMatrix{}, 0.2, "no box, 1e30"};
  check_cell_list<double>(s, points, points, true, 20, {2});
  check_cell_list<float>(s, points, points, true, 20, {2});
}

TEST_CASE("pruned cell lists examine few pairs per counted pair in a liquid") {
  // Uniform points at water's oxygen density (33.4 per nm^3), r_max 1.2 nm, in boxes of 6 nm:
  // cells of r_cut / 3 and the boxes of their few points leave ~1.3-1.5 pairs examined per pair
  // within r_max (issue 43 asks for at most 1.8); without pruning it is ~2.3 (reach 3) to ~4.
  const double r = 1.2, side = 6.0;
  const auto n = static_cast<int64_t>(33.4 * side * side * side);
  const BoxMatrix cube{side, 0, 0, 0, side, 0, 0, 0, side};
  const BoxMatrix tric{side, 0, 0, side / 3, side, 0, -side / 4, side / 5, side};
  for (const Setup& s :
       {Setup{cube, r, "cube"}, Setup{tric, r, "triclinic"}, Setup{BoxMatrix{}, r, "no box"}}) {
    CAPTURE(s.name);
    const Species<float> a(cell_points(s.box, side, n, 0));
    const HistogramParams<float> p = make_params<float>(s.box, s.kind(), s.r_max, 120);
    std::vector<uint64_t> expected(121, 0);
    cpu::pair_histogram(a.coords(), a.coords(), true, 0, a.n, p, expected.data());
    const uint64_t counted = std::accumulate(expected.begin(), expected.end() - 1, uint64_t(0));
    const CellGrid g = grid_for<float>(s, {&a}, 3, CellOrder::row_major);
    REQUIRE(g.prune);
    cpu::CellSortedSpecies<float> sa;
    cpu::sort_into_cells(a.coords(), g, p, sa);
    std::vector<uint64_t> got(121, 0);
    const uint64_t examined = cpu::cell_histogram(sa, sa, true, g, 0, g.keys, p, got.data());
    expected[120] = examined;
    REQUIRE(got == expected);
    const double ratio = static_cast<double>(examined) / static_cast<double>(counted);
    CAPTURE(ratio);
    MESSAGE(s.name, ": ", ratio, " examined per counted");
    CHECK(ratio <= 1.8);
  }
}
