// The cell grid (include/pairhist/cell_grid.hpp): curves are bijections, stencils visit each
// neighbour cell once and symmetrically, and every pair the kernels would count lies in
// neighbouring cells, also at the half-box limit, in skewed cells and far outside the box.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "pairhist/cell_grid_setup.hpp"
#include "tests/random_points.hpp"

using namespace pairhist;

namespace {

CellGrid grid_with(BoxKind kind, int nx, int ny, int nz, int reach, CellOrder order) {
  CellGridRequest r;
  r.kind = kind;
  r.reach = reach;
  r.order = order;
  r.r_max = 1.0;
  const double width = cutoff_with_margin(1.0, 0, true) / reach * 1.0000001;
  if (kind == BoxKind::none) {
    r.hi[0] = nx * width, r.hi[1] = ny * width, r.hi[2] = nz * width;
  } else {
    r.box = {nx * width, 0, 0, 0, ny * width, 0, 0, 0, nz * width};
  }
  return make_cell_grid(r);
}

}  // namespace

TEST_CASE("Hilbert keys walk the cube one face-neighbour at a time") {
  for (int bits = 1; bits <= 5; ++bits) {
    CAPTURE(bits);
    const uint32_t side = 1u << bits, count = side * side * side;
    std::vector<int> seen(count, 0);
    uint32_t px = 0, py = 0, pz = 0;
    for (uint32_t key = 0; key < count; ++key) {
      uint32_t x, y, z;
      cells::hilbert_cell(key, bits, x, y, z);
      REQUIRE(x < side);
      REQUIRE(y < side);
      REQUIRE(z < side);
      REQUIRE(cells::hilbert_key(x, y, z, bits) == key);
      ++seen[x + side * (y + side * z)];
      if (key > 0) {
        const int step =
            std::abs(int(x) - int(px)) + std::abs(int(y) - int(py)) + std::abs(int(z) - int(pz));
        REQUIRE(step == 1);
      }
      px = x, py = y, pz = z;
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == int(count));
  }
}

TEST_CASE("Morton and row-major keys name each cell once") {
  for (CellOrder order : {CellOrder::row_major, CellOrder::morton, CellOrder::hilbert}) {
    const CellGrid g = grid_with(BoxKind::orthorhombic, 7, 3, 5, 1, order);
    CAPTURE(cell_order_name(g.order));
    std::set<int64_t> keys;
    for (int z = 0; z < g.n[2]; ++z)
      for (int y = 0; y < g.n[1]; ++y)
        for (int x = 0; x < g.n[0]; ++x) {
          const int64_t k = cells::key_of(g, {x, y, z});
          REQUIRE(k >= 0);
          REQUIRE(k < g.keys);
          CellIndex back{-1, -1, -1};
          REQUIRE(cells::cell_of_key(g, k, back));
          CHECK((back.x == x && back.y == y && back.z == z));
          keys.insert(k);
        }
    CHECK(keys.size() == size_t(g.n[0]) * g.n[1] * g.n[2]);
    int64_t valid = 0;
    for (int64_t k = 0; k < g.keys; ++k) {
      CellIndex c;
      valid += cells::cell_of_key(g, k, c) ? 1 : 0;
    }
    CHECK(valid == int64_t(keys.size()));
  }
}

TEST_CASE("stencils visit each neighbour once, symmetrically; half stencils each pair once") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic})
    for (int reach = 1; reach <= 3; ++reach)
      for (int n : {1, 2, 3, 4, 5, 6, 8}) {
        const CellGrid g = grid_with(kind, n, std::max(1, n - 1), n + 1, reach, CellOrder::hilbert);
        CAPTURE(box_kind_name(kind));
        CAPTURE(reach);
        CAPTURE(n);
        std::map<int64_t, std::vector<int64_t>> full;
        std::map<std::pair<int64_t, int64_t>, int> half_visits;
        for (int z = 0; z < g.n[2]; ++z)
          for (int y = 0; y < g.n[1]; ++y)
            for (int x = 0; x < g.n[0]; ++x) {
              const CellIndex home{x, y, z};
              const int64_t hk = cells::key_of(g, home);
              auto& list = full[hk];
              cells::for_each_stencil_cell(g, home, false, [&](int64_t k) { list.push_back(k); });
              std::vector<int64_t> sorted = list;
              std::sort(sorted.begin(), sorted.end());
              REQUIRE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
              REQUIRE(std::count(sorted.begin(), sorted.end(), hk) == 1);
              cells::for_each_stencil_cell(g, home, true, [&](int64_t k) {
                REQUIRE(k >= hk);
                ++half_visits[{std::min(hk, k), std::max(hk, k)}];
              });
            }
        for (const auto& [home, list] : full)
          for (int64_t k : list) {
            const auto& back = full[k];
            REQUIRE(std::find(back.begin(), back.end(), home) != back.end());
            REQUIRE(half_visits[{std::min(home, k), std::max(home, k)}] == 1);
          }
      }
}

namespace {

/// Every pair whose kernel bin is below nbins must have b's cell in a's stencil.
template <BoxKind K, class T>
void check_counted_pairs_are_neighbours(const BoxMatrix& box, double r_max,
                                        const std::vector<double>& xyz, int reach,
                                        CellOrder order) {
  const int nbins = 97;
  const HistogramParams<T> p = make_params<T>(box, K, r_max, nbins);
  const size_t n = xyz.size() / 3;
  std::vector<T> pts(xyz.begin(), xyz.end());  // rounded to T as the frame buffers hold them
  CellGridRequest r;
  r.box = box;
  r.kind = K;
  r.r_max = r_max;
  r.single_precision = sizeof(T) == 4;
  r.reach = reach;
  r.order = order;
  for (int c = 0; c < 3; ++c) r.lo[c] = INFINITY, r.hi[c] = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      const double v = pts[3 * i + c];
      r.lo[c] = std::min(r.lo[c], v), r.hi[c] = std::max(r.hi[c], v);
      r.max_abs = std::max(r.max_abs, std::fabs(v));
    }
  const CellGrid g = make_cell_grid(r);
  std::vector<CellIndex> cell(n);
  for (size_t i = 0; i < n; ++i)
    cell[i] = cells::cell_of_point(g, pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
  uint64_t counted = 0;
  for (size_t i = 0; i < n; ++i) {
    std::set<int64_t> stencil;
    cells::for_each_stencil_cell(g, cell[i], false, [&](int64_t k) { stencil.insert(k); });
    for (size_t j = i + 1; j < n; ++j) {
      const int bin = bin_of_points<K>(p, pts[3 * i], pts[3 * i + 1], pts[3 * i + 2], pts[3 * j],
                                       pts[3 * j + 1], pts[3 * j + 2]);
      if (bin >= nbins) continue;
      ++counted;
      if (!stencil.count(cells::key_of(g, cell[j]))) {
        FAIL("pair " << i << "," << j << " in bin " << bin << " is not in neighbouring cells ("
                     << g.n[0] << "x" << g.n[1] << "x" << g.n[2] << " cells)");
      }
    }
  }
  CHECK(counted > 0);
}

template <BoxKind K>
void check_both_precisions(const BoxMatrix& box, double r_max, const std::vector<double>& xyz) {
  for (int reach = 1; reach <= 3; ++reach)
    for (CellOrder order : {CellOrder::row_major, CellOrder::hilbert}) {
      check_counted_pairs_are_neighbours<K, float>(box, r_max, xyz, reach, order);
      check_counted_pairs_are_neighbours<K, double>(box, r_max, xyz, reach, order);
    }
}

}  // namespace

TEST_CASE("every pair within r_max lies in neighbouring cells") {
  SUBCASE("no box") {
    const auto xyz = test::random_points(600, -2.0, 3.0);
    check_both_precisions<BoxKind::none>({}, 0.7, xyz);
  }
  SUBCASE("orthorhombic, r_max up to half the box and boxes of 2 r_max") {
    for (double ratio : {2.0, 2.01, 3.0, 5.3}) {
      const BoxMatrix box = {
          ratio, 0, 0, 0, ratio * 1.1, 0, 0, 0, ratio * 0.99 > 2 ? ratio * 0.99 : ratio};
      const auto xyz = test::random_points(500, -1.0, ratio + 1.0);
      check_both_precisions<BoxKind::orthorhombic>(box, 1.0, xyz);
    }
  }
  SUBCASE("skewed triclinic cells and the GROMACS cells at their limit") {
    for (int t = 0; t < 3; ++t) {
      const BoxMatrix box = test::random_triclinic(2.0, 3.0);
      const auto xyz = test::random_points(500, -1.0, 4.0);
      check_both_precisions<BoxKind::triclinic>(box, max_minimum_image_rmax(box), xyz);
    }
    for (const BoxMatrix& box : {rhombic_dodecahedron(2.0), truncated_octahedron(2.0)}) {
      const auto xyz = test::random_points(500, -1.0, 3.0);
      check_both_precisions<BoxKind::triclinic>(box, max_minimum_image_rmax(box), xyz);
    }
  }
  SUBCASE("coordinates a thousand box lengths out") {
    const BoxMatrix box = {2.5, 0, 0, 0, 2.5, 0, 0, 0, 2.5};
    auto xyz = test::random_points(400, 0.0, 2.5);
    for (size_t i = 0; i < xyz.size(); ++i)
      xyz[i] += 2.5 * double(int(test::rng()() % 2001) - 1000);
    check_both_precisions<BoxKind::orthorhombic>(box, 1.0, xyz);
    const BoxMatrix tri = rhombic_dodecahedron(2.5);
    check_both_precisions<BoxKind::triclinic>(tri, max_minimum_image_rmax(tri), xyz);
  }
}

TEST_CASE("the grid keeps its cell counts while an NPT box breathes") {
  CellGridRequest r;
  r.kind = BoxKind::orthorhombic;
  r.r_max = 1.0;
  r.box = {10.3, 0, 0, 0, 10.3, 0, 0, 0, 10.3};
  const CellGrid first = make_cell_grid(r);
  r.box = {10.1, 0, 0, 0, 10.1, 0, 0, 0, 10.1};  // 20 cells of 0.505 still fit (0.5 + margin)
  r.previous = &first;
  const CellGrid second = make_cell_grid(r);
  CHECK(second.n[0] == first.n[0]);
  r.box = {9.4, 0, 0, 0, 9.4, 0, 0, 0, 9.4};  // cells would be too narrow: fewer of them
  const CellGrid third = make_cell_grid(r);
  CHECK(third.n[0] < first.n[0]);
  CHECK(9.4 / third.n[0] >= third.r_cut / third.reach);
}

TEST_CASE("locality of the three orders on W1's grid (figures for docs/performance.md)") {
  // Per home cell: runs of consecutive keys in its stencil (what a kernel lists), distinct blocks
  // of 64 keys it touches (a proxy for cache lines of cell starts and pages of points), and the
  // mean grid distance between cells of consecutive keys (how compact a run of home cells is).
  for (CellOrder order : {CellOrder::row_major, CellOrder::morton, CellOrder::hilbert}) {
    CellGridRequest r;
    r.kind = BoxKind::orthorhombic;
    r.box = {24.08, 0, 0, 0, 24.08, 0, 0, 0, 24.08};
    r.r_max = 1.2;
    r.order = order;
    const CellGrid g = make_cell_grid(r);
    double runs = 0, blocks = 0, step = 0;
    int64_t homes = 0, steps = 0;
    CellIndex previous{0, 0, 0};
    for (int64_t key = 0; key < g.keys; ++key) {
      CellIndex c;
      if (!cells::cell_of_key(g, key, c)) continue;
      if (homes > 0) {
        step +=
            std::abs(c.x - previous.x) + std::abs(c.y - previous.y) + std::abs(c.z - previous.z);
        ++steps;
      }
      previous = c;
      ++homes;
      std::vector<int64_t> k;
      cells::for_each_stencil_cell(g, c, false, [&](int64_t s) { k.push_back(s); });
      std::sort(k.begin(), k.end());
      std::set<int64_t> touched;
      for (size_t i = 0; i < k.size(); ++i) {
        runs += (i == 0 || k[i] != k[i - 1] + 1) ? 1 : 0;
        touched.insert(k[i] / 64);
      }
      blocks += double(touched.size());
    }
    MESSAGE(std::string(cell_order_name(g.order))
            << ": " << g.n[0] << "^3 cells, " << runs / homes << " key runs and " << blocks / homes
            << " 64-key blocks per stencil, " << step / steps << " cells between consecutive keys");
    if (order == CellOrder::hilbert) CHECK(step / steps < 1.1);  // face neighbours, bar gaps
  }
}
