// The cell grid (include/pairhist/cell_grid.hpp) as the CPU cell-list kernel relies on it: curve
// keys are bijections, and no pair that the kernels' arithmetic counts lies outside the stencil.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "tests/cell_list_setups.hpp"

using namespace pairhist;
using test::cell_points;
using test::grid_for;
using test::kOrders;
using test::Setup;
using test::Species;

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
    for (const Setup& s : test::small_rmax_setups())
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
