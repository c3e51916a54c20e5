// The CPU cell-list kernel (codelets/cpu/cell_list_cpu.hpp): its histograms equal the all-pairs
// kernel's bit for bit on fresh random points in every kind of cell, for every order, reach and
// precision and any split of the home cells, with the candidates a brute force counts.
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "../codelets/cpu/cell_list_cpu.hpp"
#include "cell_scenarios.hpp"

using namespace pairhist;
using namespace pairhist::test;

namespace {

template <class T>
void check_cells(const Scenario& s, int64_t na, int64_t nb, bool same, int nbins, int reach,
                 CellOrder order, int pieces) {
  const std::string name = s.name, order_name = cell_order_name(order);
  CAPTURE(name);
  CAPTURE(na);
  CAPTURE(nb);
  CAPTURE(same);
  CAPTURE(reach);
  CAPTURE(order_name);
  CAPTURE(sizeof(T));
  const CellCase<T> c(s, na, nb, same, nbins, reach, order);
  const auto& [a, b, g, p, ca, cb] = std::tie(c.a, c.b, c.g, c.p, c.ca, c.cb);
  nb = c.nb;

  cpu::CellSortedSpecies<T> sa, sb;
  cpu::sort_into_cells(cpu::Coords<T>{a.data(), na}, g, p, sa);
  cpu::sort_into_cells(cpu::Coords<T>{b.data(), nb}, g, p, sb);
  for (int64_t k = 0; k < g.keys; ++k)
    REQUIRE(sa.cell_start[size_t(k + 1)] - sa.cell_start[size_t(k)] == ca[size_t(k)]);
  std::vector<uint64_t> hist = c.poison;
  const auto cuts = random_cuts(g.keys, pieces);
  uint64_t examined = 0;
  for (size_t c = 0; c + 1 < cuts.size(); ++c)
    examined +=
        cpu::histogram_cells(sa, same ? sa : sb, same, g, cuts[c], cuts[c + 1], p, hist.data());
  REQUIRE(hist == c.expected);
  CHECK(examined == host_candidates(g, ca, cb, same, 0, g.keys));
}

}  // namespace

TEST_CASE("CPU cell lists equal all pairs bit for bit: every cell, order, reach, precision") {
  std::uniform_int_distribution<int> pieces(1, 5);
  for (int reach = 1; reach <= kMaxCellReach; ++reach)
    for (const Scenario& s : scenarios(reach))
      for (CellOrder order : kOrders) {
        check_cells<float>(s, 700, 0, true, 300, reach, order, pieces(rng()));
        check_cells<double>(s, 500, 0, true, 97, reach, order, pieces(rng()));
        check_cells<float>(s, 80, 900, false, 1000, reach, order, pieces(rng()));
        check_cells<double>(s, 900, 17, false, 50, reach, order, pieces(rng()));
      }
}

TEST_CASE("CPU cell lists: empty species, one atom, lone pairs, every split") {
  const auto list = scenarios(2);
  for (const Scenario& s : {list[0], list[1], list[6]})
    for (CellOrder order : kOrders)
      for (int reach : {1, 3}) {
        check_cells<float>(s, 0, 0, true, 100, reach, order, 1);
        check_cells<float>(s, 0, 500, false, 100, reach, order, 2);
        check_cells<double>(s, 500, 0, false, 100, reach, order, 2);
        check_cells<float>(s, 1, 0, true, 100, reach, order, 3);
        check_cells<double>(s, 1, 1, false, 100, reach, order, 1);
        check_cells<float>(s, 2, 0, true, 1, reach, order, 1);
        check_cells<float>(s, 1, 2000, false, 100, reach, order, 1);
        check_cells<float>(s, 2000, 1, false, 100, reach, order, 7);
        check_cells<float>(s, 2000, 0, true, 200, reach, order, 16);
      }
}

TEST_CASE("CPU cell lists: points exactly on cell faces") {
  // A cube of 6 cells per axis with points on the grid planes x = i L / 6 (and their images).
  const Scenario s{"faces", cube(6.0), 1.0, 0.0, 6.0};
  for (int reach : {1, 2}) {
    const int64_t n = 7 * 7 * 7;
    std::vector<float> soa(size_t(3 * n));
    int64_t i = 0;
    for (int z = 0; z < 7; ++z)
      for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 7; ++x, ++i) {
          soa[size_t(i)] = float(x) / float(reach);
          soa[size_t(n + i)] = float(y) / float(reach);
          soa[size_t(2 * n + i)] = float(z) / float(reach);
        }
    const CellGrid g = grid_for(s, soa, n, soa, 0, reach, CellOrder::row_major);
    const HistogramParams<float> p = make_params<float>(s.box, s.kind(), s.r_max, 64);
    std::vector<uint64_t> expected(65, 0), hist(65, 0);
    cpu::histogram_pairs(cpu::Coords<float>{soa.data(), n}, {}, true, 0, n, p, expected.data());
    cpu::CellSortedSpecies<float> sorted;
    cpu::sort_into_cells(cpu::Coords<float>{soa.data(), n}, g, p, sorted);
    cpu::histogram_cells(sorted, sorted, true, g, 0, g.keys, p, hist.data());
    hist[64] = 0;
    CHECK(hist == expected);
  }
}
