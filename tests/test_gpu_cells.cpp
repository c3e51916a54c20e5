// GPU cell lists (label "gpu", run on the device machine by scripts/gpu-suite.sh): the cells the
// GPU sorts equal the CPU's, and cell-list histograms equal the CPU's all-pairs histograms bit
// for bit on fresh random points, with the candidates a host brute force over the stencils counts.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "pairhist/cell_grid_setup.hpp"
#include "tests/cell_scenarios.hpp"
#include "tests/cuda_support.hpp"

using namespace pairhist;
using namespace pairhist::test;

namespace {

template <BoxKind K, class T>
std::array<T, 3> loaded_point(const std::vector<T>& soa, int64_t n, int64_t i,
                              const HistogramParams<T>& p) {
  return {loaded<K>(soa[size_t(i)], p, 0), loaded<K>(soa[size_t(n + i)], p, 1),
          loaded<K>(soa[size_t(2 * n + i)], p, 2)};
}

/// The GPU's cells equal the CPU's: the same cell starts, and in each cell the same points as the
/// kernels load them (in any order).
template <class T>
void check_build(const std::vector<T>& soa, int64_t n, const CellGrid& g,
                 const HistogramParams<T>& p, const cuda::DeviceCells<T>& cells) {
  const auto keys = host_keys(soa, n, g);
  const auto counts = counts_per_key(keys, g);
  std::vector<int32_t> start(size_t(g.keys) + 1, 0);
  for (int64_t k = 0; k < g.keys; ++k)
    start[size_t(k + 1)] = start[size_t(k)] + int32_t(counts[size_t(k)]);
  REQUIRE(download(cells.cell_start, start.size()) == start);
  const auto stored = download(cells.points, size_t(4 * n));
  std::vector<std::vector<std::array<T, 3>>> want(size_t(g.keys)), got(size_t(g.keys));
  for (int64_t i = 0; i < n; ++i) {
    const std::array<T, 3> v = dispatch_box_kind(
        p.box.kind, [&](auto kind) { return loaded_point<decltype(kind)::value>(soa, n, i, p); });
    want[size_t(keys[size_t(i)])].push_back(v);
  }
  for (int64_t k = 0; k < g.keys; ++k)
    for (int32_t s = start[size_t(k)]; s < start[size_t(k + 1)]; ++s) {
      got[size_t(k)].push_back(
          {stored[size_t(4 * s)], stored[size_t(4 * s + 1)], stored[size_t(4 * s + 2)]});
      REQUIRE(stored[size_t(4 * s + 3)] == T(0));
    }
  for (int64_t k = 0; k < g.keys; ++k) {
    std::sort(want[size_t(k)].begin(), want[size_t(k)].end());
    std::sort(got[size_t(k)].begin(), got[size_t(k)].end());
    REQUIRE(std::memcmp(want[size_t(k)].data(), got[size_t(k)].data(),
                        want[size_t(k)].size() * sizeof(std::array<T, 3>)) == 0);
    REQUIRE(want[size_t(k)].size() == got[size_t(k)].size());
  }
}

/// GPU cell lists over `pieces` key ranges against the CPU's all pairs, on poisoned histograms.
template <class T>
void check_cells(const Scenario& s, int64_t na, int64_t nb, bool same, int nbins, int reach,
                 CellOrder order, int pieces, double cut_below_rmax = 0, double rmin_part = 0) {
  const std::string name = s.name, order_name = cell_order_name(order);
  CAPTURE(name);
  CAPTURE(na);
  CAPTURE(nb);
  CAPTURE(same);
  CAPTURE(nbins);
  CAPTURE(reach);
  CAPTURE(order_name);
  CAPTURE(sizeof(T));
  CAPTURE(cut_below_rmax);
  CAPTURE(rmin_part);
  const CellCase<T> c(s, na, nb, same, nbins, reach, order, cut_below_rmax, rmin_part);
  const auto& [a, b, g, p, ca, cb] = std::tie(c.a, c.b, c.g, c.p, c.ca, c.cb);
  nb = c.nb;
  CAPTURE(g.n[0]);
  CAPTURE(g.n[1]);
  CAPTURE(g.n[2]);
  const std::vector<uint64_t>& poison = c.poison;
  const std::vector<uint64_t>& expected = c.expected;

  DeviceArray<T> da(a), db(b);
  cuda::CellWorkspace wa, wb;
  cuda::DeviceCells<T> cells_a, cells_b;
  CUDA_REQUIRE(cuda::build_cells(da.ptr, na, g, p, wa, cells_a, 0));
  if (!same) CUDA_REQUIRE(cuda::build_cells(db.ptr, nb, g, p, wb, cells_b, 0));
  const cuda::DeviceCells<T>& other = same ? cells_a : cells_b;
  CUDA_REQUIRE(cudaDeviceSynchronize());
  check_build(a, na, g, p, cells_a);
  if (!same) check_build(b, nb, g, p, cells_b);

  DeviceArray<uint64_t> hist(poison), piece(std::vector<uint64_t>(size_t(nbins) + 1, 0));
  auto* h = reinterpret_cast<unsigned long long*>(hist.ptr);
  const auto cuts = random_cuts(g.keys, pieces);
  // Work items per home cell: automatic (several on these small grids), one, or any other count.
  const int slices = std::uniform_int_distribution<int>(0, 8)(test::rng());
  CAPTURE(slices);
  for (size_t c = 0; c + 1 < cuts.size(); ++c)
    CUDA_REQUIRE(cuda::launch_cell_histogram(cells_a, other, same, g, cuts[c], cuts[c + 1], p, h, 0,
                                             slices));
  // One range alone: its candidates are those of its home cells.
  CUDA_REQUIRE(cuda::launch_cell_histogram(cells_a, other, same, g, cuts[0], cuts[1], p,
                                           reinterpret_cast<unsigned long long*>(piece.ptr), 0,
                                           8 - slices));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  REQUIRE(download(hist.ptr, expected.size()) == expected);
  CHECK(download(piece.ptr, expected.size())[size_t(nbins)] ==
        host_candidates(g, ca, cb, same, cuts[0], cuts[1]));
}

}  // namespace

TEST_CASE("GPU cell lists equal CPU all pairs bit for bit: every cell, order, reach, precision") {
  std::uniform_int_distribution<int> pieces(1, 4);
  for (int reach = 1; reach <= kMaxCellReach; ++reach)
    for (const Scenario& s : scenarios(reach))
      for (CellOrder order : kOrders) {
        check_cells<float>(s, 1500, 0, true, 300, reach, order, pieces(test::rng()));
        check_cells<double>(s, 1200, 0, true, 97, reach, order, pieces(test::rng()));
        check_cells<float>(s, 150, 2500, false, 1000, reach, order, pieces(test::rng()));
        check_cells<double>(s, 2500, 37, false, 50, reach, order, pieces(test::rng()));
      }
}

TEST_CASE("GPU cell lists, a cut-off inside the last bin: equal to CPU all pairs bit for bit") {
  for (int reach : {1, 2})
    for (const Scenario& s : scenarios(reach)) {
      check_cells<float>(s, 1500, 0, true, 300, reach, CellOrder::hilbert, 2, 0.37);
      check_cells<double>(s, 1200, 0, true, 97, reach, CellOrder::morton, 1, 0.81);
      check_cells<float>(s, 150, 2500, false, 7, reach, CellOrder::row_major, 3, 0.5);
      check_cells<double>(s, 2500, 37, false, 50, reach, CellOrder::hilbert, 1, 0.37);
    }
  // Global-memory counts.
  check_cells<float>(scenarios(2)[1], 2000, 0, true, 70000, 2, CellOrder::row_major, 2, 0.37);
}

TEST_CASE("GPU cell lists, bins from r_min: equal to CPU all pairs bit for bit") {
  for (int reach : {1, 2})
    for (const Scenario& s : scenarios(reach)) {
      check_cells<float>(s, 1500, 0, true, 300, reach, CellOrder::hilbert, 2, 0, 0.3137);
      check_cells<double>(s, 1200, 0, true, 97, reach, CellOrder::morton, 1, 0.81, 0.41);
      check_cells<float>(s, 150, 2500, false, 7, reach, CellOrder::row_major, 3, 0.5, 0.05);
    }
  check_cells<float>(scenarios(2)[1], 2000, 0, true, 70000, 2, CellOrder::row_major, 2, 0, 0.25);
}

TEST_CASE("GPU cell lists: empty species, one atom, lone pairs, every split") {
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
        check_cells<float>(s, 1, 3000, false, 100, reach, order, 1);
        check_cells<float>(s, 3000, 1, false, 100, reach, order, 7);
        check_cells<float>(s, 4000, 0, true, 200, reach, order, 16);
      }
}

TEST_CASE("GPU cell lists: histograms too wide for shared memory count in global memory") {
  const auto list = scenarios(2);
  for (const Scenario& s : {list[1], list[8]}) {
    check_cells<float>(s, 2000, 0, true, 70000, 2, CellOrder::row_major, 2);
    check_cells<double>(s, 700, 1800, false, 70000, 2, CellOrder::hilbert, 1);
    check_cells<float>(s, 1000, 0, true, (1 << 23) + 5, 1, CellOrder::morton, 1);
  }
}

TEST_CASE("GPU cell lists: one crowded cell, counts beyond 2^32 in one bin") {
  // 70,000 x 70,000 coincident points in one cell: 4.9e9 pairs into bin 0 from one warp, so the
  // block's 32-bit counters must be flushed on the way.
  const int64_t n = 70000;
  const std::vector<float> soa(size_t(3 * n), 0.25f);
  CellGridRequest r;
  r.r_max = 1.0;
  r.max_cells = 4 * n;
  const CellGrid g = make_cell_grid(r);
  REQUIRE(g.keys == 1);
  const HistogramParams<float> p = make_params<float>(BoxMatrix{}, BoxKind::none, 1.0, 10);
  DeviceArray<float> d(soa);
  cuda::CellWorkspace wa, wb;
  cuda::DeviceCells<float> a, b;
  CUDA_REQUIRE(cuda::build_cells(d.ptr, n, g, p, wa, a, 0));
  CUDA_REQUIRE(cuda::build_cells(d.ptr, n, g, p, wb, b, 0));
  DeviceArray<uint64_t> cross(std::vector<uint64_t>(11, 0)), same(std::vector<uint64_t>(11, 0));
  // One slice: one warp counts the cell alone; automatic: eight warps share it.
  CUDA_REQUIRE(cuda::launch_cell_histogram(a, b, false, g, 0, 1, p,
                                           reinterpret_cast<unsigned long long*>(cross.ptr), 0, 1));
  CUDA_REQUIRE(cuda::launch_cell_histogram(a, a, true, g, 0, 1, p,
                                           reinterpret_cast<unsigned long long*>(same.ptr), 0));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto hc = download(cross.ptr, 11), hs = download(same.ptr, 11);
  CHECK(hc[0] == uint64_t(n) * uint64_t(n));
  CHECK(hc[10] == uint64_t(n) * uint64_t(n));
  CHECK(hs[0] == uint64_t(n) * (n - 1) / 2);
  CHECK(hs[10] == uint64_t(n) * (n - 1) / 2);
}

namespace {

/// The pairs a-a, a-b and b-b of fresh points cut into random key ranges, every piece a job of one
/// launch_cell_histograms call in random order (several launches when the pieces outnumber a
/// launch's jobs or shared memory), against the CPU's all pairs on poisoned histograms.
template <class T>
void check_fused(const Scenario& s, int64_t na, int64_t nb, int nbins, int reach, CellOrder order,
                 int pieces) {
  const std::string name = s.name, order_name = cell_order_name(order);
  CAPTURE(name);
  CAPTURE(na);
  CAPTURE(nb);
  CAPTURE(nbins);
  CAPTURE(reach);
  CAPTURE(order_name);
  CAPTURE(pieces);
  CAPTURE(sizeof(T));
  const CellCase<T> c(s, na, nb, false, nbins, reach, order);
  const auto& [a, b, g, p, ca, cb] = std::tie(c.a, c.b, c.g, c.p, c.ca, c.cb);
  const size_t slots = size_t(nbins) + 1;
  // Poisoned starts and expected counts in the order a-b (from the case), a-a, b-b.
  std::vector<uint64_t> poison = c.poison, expected = c.expected;
  for (int k = 0; k < 2; ++k) {
    const std::vector<T>& x = k ? b : a;
    const int64_t n = k ? c.nb : na;
    std::vector<uint64_t> start(slots);
    for (auto& v : start) v = rng()() >> 4;
    std::vector<uint64_t> h = start;
    cpu::pair_histogram(cpu::Coords<T>{x.data(), n}, cpu::Coords<T>{x.data(), n}, true, 0, n, p,
                        h.data());
    h[slots - 1] += host_candidates(g, k ? cb : ca, k ? cb : ca, true, 0, g.keys);
    poison.insert(poison.end(), start.begin(), start.end());
    expected.insert(expected.end(), h.begin(), h.end());
  }

  DeviceArray<T> da(a), db(b);
  cuda::CellWorkspace wa, wb;
  cuda::DeviceCells<T> cells_a, cells_b;
  CUDA_REQUIRE(cuda::build_cells(da.ptr, na, g, p, wa, cells_a, 0));
  CUDA_REQUIRE(cuda::build_cells(db.ptr, c.nb, g, p, wb, cells_b, 0));
  DeviceArray<uint64_t> hist(poison);
  auto* h = reinterpret_cast<unsigned long long*>(hist.ptr);
  std::vector<cuda::CellPairLaunch<T>> jobs;
  const cuda::DeviceCells<T>* home[3] = {&cells_a, &cells_a, &cells_b};
  const cuda::DeviceCells<T>* other[3] = {&cells_b, &cells_a, &cells_b};
  for (int k = 0; k < 3; ++k) {
    const auto cuts = random_cuts(g.keys, pieces);
    for (size_t i = 0; i + 1 < cuts.size(); ++i)
      jobs.push_back({home[k], other[k], k != 0, cuts[i], cuts[i + 1], h + size_t(k) * slots});
  }
  std::shuffle(jobs.begin(), jobs.end(), rng());
  const int slices = std::uniform_int_distribution<int>(0, 8)(rng());
  CAPTURE(slices);
  CUDA_REQUIRE(
      cuda::launch_cell_histograms(jobs.data(), int(jobs.size()), g, p, cudaStream_t{0}, slices));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  REQUIRE(download(hist.ptr, expected.size()) == expected);
}

}  // namespace

TEST_CASE("GPU cell lists: several pairs in one launch count as the launches one by one") {
  std::uniform_int_distribution<int> pieces(1, 4);
  for (int reach = 1; reach <= kMaxCellReach; reach += 2)
    for (const Scenario& s : scenarios(reach))
      for (CellOrder order : kOrders) {
        check_fused<float>(s, 1200, 2100, 240, reach, order, pieces(rng()));
        check_fused<double>(s, 900, 40, 97, reach, order, pieces(rng()));
      }
  const auto list = scenarios(2);
  // Empty and lone species; more pieces than a launch holds; counters for only some pairs in
  // shared memory at once (20,000 bins), and too wide for it (70,000: global memory).
  check_fused<float>(list[1], 0, 500, 100, 2, CellOrder::row_major, 2);
  check_fused<float>(list[1], 1, 1, 100, 2, CellOrder::morton, 1);
  check_fused<float>(list[6], 1500, 1500, 100, 2, CellOrder::hilbert, 6);
  check_fused<float>(list[1], 1500, 700, 20000, 2, CellOrder::row_major, 2);
  check_fused<double>(list[8], 700, 1500, 70000, 2, CellOrder::row_major, 1);
}
