// Checks of the g(r) normalisation against cases whose answer is known independently of the
// implementation: an ideal gas (g = 1), hand-computed shell volumes, a simple cubic lattice.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/rdf.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/result.hpp"

using pairhist::HistogramResult;
using pairhist::PairHistogram;
using pairhist::SpeciesInfo;
using pairhist::analysis::compute_rdf;

namespace {

constexpr double kPi = 3.14159265358979323846;
using Vec = std::array<double, 3>;

/// Brute-force minimum-image pair counting in a cubic box, independent of the production kernels.
/// Same-species pairs (same == true) are counted once, i < j.
void count_pairs(const std::vector<Vec>& a, const std::vector<Vec>& b, bool same, double box,
                 double r_max, int nbins, std::vector<uint64_t>& counts) {
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = same ? i + 1 : 0; j < b.size(); ++j) {
      double r2 = 0;
      for (int d = 0; d < 3; ++d) {
        double x = a[i][d] - b[j][d];
        x -= box * std::round(x / box);
        r2 += x * x;
      }
      const double r = std::sqrt(r2);
      const auto k = static_cast<long>(std::floor(r * nbins / r_max));
      if (k < nbins) ++counts[k];
    }
  }
}

HistogramResult two_species(int64_t na, int64_t nb, double r_max, int nbins) {
  HistogramResult res;
  res.species = {SpeciesInfo{"A", "name A", na}, SpeciesInfo{"B", "name B", nb}};
  res.r_max = r_max;
  res.nbins = nbins;
  res.box_kind = "orthorhombic";
  res.pairs = {PairHistogram{0, 0, std::vector<uint64_t>(nbins)},
               PairHistogram{0, 1, std::vector<uint64_t>(nbins)},
               PairHistogram{1, 1, std::vector<uint64_t>(nbins)}};
  return res;
}

}  // namespace

TEST_CASE("bin edges and centres") {
  const auto e = pairhist::analysis::bin_edges(1.5, 3);
  REQUIRE(e.size() == 4);
  CHECK(e[0] == 0.0);
  CHECK(e[1] == doctest::Approx(0.5));
  CHECK(e[2] == doctest::Approx(1.0));
  CHECK(e[3] == 1.5);  // exact, no accumulated rounding
  const auto c = pairhist::analysis::bin_centres(1.5, 3);
  REQUIRE(c.size() == 3);
  CHECK(c[0] == doctest::Approx(0.25));
  CHECK(c[1] == doctest::Approx(0.75));
  CHECK(c[2] == doctest::Approx(1.25));
  CHECK_THROWS_AS(pairhist::analysis::bin_edges(0.0, 3), pairhist::UsageError);
  CHECK_THROWS_AS(pairhist::analysis::bin_edges(1.0, 0), pairhist::UsageError);
  CHECK_THROWS_AS(pairhist::analysis::bin_centres(-1.0, 3), pairhist::UsageError);
}

TEST_CASE("ideal gas in a fluctuating periodic box gives g(r) = 1") {
  const int na = 500, nb = 300, nbins = 10, n_frames = 40;
  const double r_max = 0.9;  // at most half the smallest box edge, so shells are complete
  HistogramResult res = two_species(na, nb, r_max, nbins);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> box_dist(1.8, 2.2);
  double mean_inv_v = 0;
  for (int f = 0; f < n_frames; ++f) {
    const double box = box_dist(rng);
    std::uniform_real_distribution<double> u(0.0, box);
    std::vector<Vec> a(na), b(nb);
    for (auto& p : a) p = {u(rng), u(rng), u(rng)};
    for (auto& p : b) p = {u(rng), u(rng), u(rng)};
    count_pairs(a, a, true, box, r_max, nbins, res.pairs[0].counts);
    count_pairs(a, b, false, box, r_max, nbins, res.pairs[1].counts);
    count_pairs(b, b, true, box, r_max, nbins, res.pairs[2].counts);
    res.frame_indices.push_back(f);
    res.frame_times.push_back(2.0 * f);
    res.volumes.push_back(box * box * box);
    mean_inv_v += 1.0 / (box * box * box);
  }
  mean_inv_v /= n_frames;

  for (const auto& p : res.pairs) {
    CAPTURE(p.a);
    CAPTURE(p.b);
    const auto curve = compute_rdf(res, p);
    REQUIRE(curve.g.size() == static_cast<size_t>(nbins));
    REQUIRE(curve.r.size() == static_cast<size_t>(nbins));
    double mean_g = 0;
    for (int k = 0; k < nbins; ++k) {
      // Poisson error of the bin: relative sigma = 1 / sqrt(counts). Bins are pre-checked to be
      // well populated so the test really pins g to a few percent.
      const double sigma = 1.0 / std::sqrt(static_cast<double>(p.counts[k]));
      CAPTURE(k);
      REQUIRE(sigma < 0.04);
      CHECK(std::fabs(curve.g[k] - 1.0) < 5 * sigma);
      mean_g += curve.g[k];
    }
    CHECK(mean_g / nbins == doctest::Approx(1.0).epsilon(0.01));

    // Running coordination of an ideal gas: (number of other B atoms) * <1/V> * sphere volume.
    const double partners = p.a == p.b ? (p.a == 0 ? na - 1 : nb - 1) : nb;
    const double expected_n = partners * mean_inv_v * 4.0 / 3.0 * kPi * r_max * r_max * r_max;
    CHECK(curve.coordination.back() == doctest::Approx(expected_n).epsilon(0.01));
  }
}

TEST_CASE("g(r) uses exact shell volumes") {
  // One A-B pair, one frame of unit volume: g_k = count_k / shell_k.
  HistogramResult res = two_species(1, 1, 3.0, 3);
  res.frame_indices = {0};
  res.volumes = {1.0};
  res.pairs[1].counts = {1, 1, 1};
  const auto curve = compute_rdf(res, res.pairs[1]);
  // shells 4/3 pi (1^3 - 0^3), (2^3 - 1^3), (3^3 - 2^3)
  CHECK(curve.g[0] == doctest::Approx(1.0 / (4.0 / 3.0 * kPi * 1.0)));
  CHECK(curve.g[1] == doctest::Approx(1.0 / (4.0 / 3.0 * kPi * 7.0)));
  CHECK(curve.g[2] == doctest::Approx(1.0 / (4.0 / 3.0 * kPi * 19.0)));
  CHECK(curve.r[0] == doctest::Approx(0.5));
  CHECK(curve.r[2] == doctest::Approx(2.5));
  CHECK(curve.coordination[2] == doctest::Approx(3.0));
}

TEST_CASE("coordination numbers from hand-built counts") {
  HistogramResult res = two_species(4, 3, 1.5, 3);
  res.frame_indices = {0, 1};
  res.volumes = {10.0, 10.0};
  res.pairs[1].counts = {1, 3, 2};  // A-B: cumsum 1, 4, 6 over 2 frames * 4 A atoms
  res.pairs[0].counts = {2, 2, 4};  // A-A: each unique pair counts for both atoms
  const auto ab = compute_rdf(res, res.pairs[1]);
  CHECK(ab.coordination[0] == doctest::Approx(0.125));
  CHECK(ab.coordination[1] == doctest::Approx(0.5));
  CHECK(ab.coordination[2] == doctest::Approx(0.75));
  const auto aa = compute_rdf(res, res.pairs[0]);
  CHECK(aa.coordination[0] == doctest::Approx(0.5));
  CHECK(aa.coordination[1] == doctest::Approx(1.0));
  CHECK(aa.coordination[2] == doctest::Approx(2.0));
}

TEST_CASE("simple cubic lattice has 6 nearest neighbours") {
  // 4x4x4 lattice of unit spacing in a periodic box of edge 4, split like a checkerboard into
  // species A and B: every nearest neighbour (r = 1) of an A atom is a B atom, the nearest A-A
  // distance is sqrt(2), outside r_max = 1.2.
  const double box = 4, r_max = 1.2;
  const int nbins = 4;  // edges 0, 0.3, 0.6, 0.9, 1.2: r = 1 lands in the last bin
  std::vector<Vec> all, a, b;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        const Vec p{double(i), double(j), double(k)};
        all.push_back(p);
        ((i + j + k) % 2 == 0 ? a : b).push_back(p);
      }
  HistogramResult res = two_species(32, 32, r_max, nbins);
  res.frame_indices = {7};
  res.volumes = {box * box * box};
  count_pairs(a, a, true, box, r_max, nbins, res.pairs[0].counts);
  count_pairs(a, b, false, box, r_max, nbins, res.pairs[1].counts);
  const auto ab = compute_rdf(res, res.pairs[1]);
  const auto aa = compute_rdf(res, res.pairs[0]);
  CHECK(ab.coordination == std::vector<double>{0, 0, 0, 6});
  CHECK(aa.coordination == std::vector<double>{0, 0, 0, 0});

  // All 64 atoms as one species: unique pairs, each nearest-neighbour bond counted once, yet
  // every atom still has 6 neighbours.
  HistogramResult one;
  one.species = {SpeciesInfo{"X", "all", 64}};
  one.r_max = r_max;
  one.nbins = nbins;
  one.pairs = {PairHistogram{0, 0, std::vector<uint64_t>(nbins)}};
  one.frame_indices = {0};
  one.volumes = {box * box * box};
  count_pairs(all, all, true, box, r_max, nbins, one.pairs[0].counts);
  CHECK(one.pairs[0].counts[3] == 64 * 6 / 2);
  CHECK(compute_rdf(one, one.pairs[0]).coordination.back() == doctest::Approx(6.0));
}

TEST_CASE("NPT normalisation uses the frame average of 1/V") {
  // Two frames with volumes 1 and 4. Fill the counts with the ideal-gas expectation of each frame,
  // N_pairs * shell / V_f, with N_pairs so large (1e12) that integer rounding is negligible.
  const int64_t n = 1000000;
  const int nbins = 3;
  const double r_max = 0.3;
  HistogramResult res = two_species(n, n, r_max, nbins);
  res.frame_indices = {0, 1};
  res.volumes = {1.0, 4.0};
  const auto edges = pairhist::analysis::bin_edges(r_max, nbins);
  const double n_pairs = double(n) * double(n);
  for (int k = 0; k < nbins; ++k) {
    const double shell = 4.0 / 3.0 * kPi * (std::pow(edges[k + 1], 3) - std::pow(edges[k], 3));
    res.pairs[1].counts[k] = static_cast<uint64_t>(std::llround(n_pairs * shell * (1.0 + 0.25)));
  }
  CHECK(res.pairs[1].counts[2] > (uint64_t{1} << 32));
  const auto curve = compute_rdf(res, res.pairs[1]);
  for (int k = 0; k < nbins; ++k) {
    CAPTURE(k);
    CHECK(curve.g[k] == doctest::Approx(1.0).epsilon(1e-9));
    // 1/<V> = 1/2.5 instead of <1/V> = 0.625 would give 1.5625 here.
    CHECK(std::fabs(curve.g[k] - 1.5625) > 0.5);
  }
}

TEST_CASE("g(r) needs a volume and at least one frame") {
  HistogramResult res = two_species(3, 3, 1.0, 2);
  res.frame_indices = {0, 1};
  CHECK_THROWS_AS(compute_rdf(res, res.pairs[0]), pairhist::UsageError);
  CHECK_THROWS_WITH(compute_rdf(res, res.pairs[0]), doctest::Contains("volume"));
  res.frame_indices.clear();
  res.volumes.clear();
  CHECK_THROWS_AS(compute_rdf(res, res.pairs[0]), pairhist::UsageError);
  res.frame_indices = {0};
  res.volumes = {0.0};
  CHECK_THROWS_AS(compute_rdf(res, res.pairs[0]), pairhist::InputError);
}

TEST_CASE("a species with a single atom has no same-species pairs") {
  HistogramResult res = two_species(1, 5, 1.0, 2);
  res.frame_indices = {0};
  res.volumes = {8.0};
  const auto curve = compute_rdf(res, res.pairs[0]);
  CHECK(std::isnan(curve.g[0]));
  CHECK(curve.coordination[1] == 0.0);
}

TEST_CASE("block-average error of g(r): standard error over the interval blocks") {
  using namespace pairhist;
  HistogramResult res;
  res.species = {{"A", "A", 1}, {"B", "B", 1}};
  res.r_max = 1.0;
  res.nbins = 1;
  res.frame_indices = {0, 1};
  res.frame_times = {0, 1};
  res.volumes = {1.0, 1.0};
  res.pairs = {{0, 1, {30}}};
  res.intervals = {{0, 1, {{10}}}, {1, 2, {{20}}}};
  const double shell = 4.0 / 3.0 * 3.14159265358979323846;
  const std::vector<double> e = analysis::rdf_block_error(res, 0);
  REQUIRE(e.size() == 1);
  // g of the blocks: 10/shell and 20/shell; standard error of two values = |g1 - g2| / 2.
  CHECK(e[0] == doctest::Approx(10.0 / shell / 2.0));
  res.intervals.pop_back();
  CHECK(analysis::rdf_block_error(res, 0).empty());  // one block: no error estimate
}
