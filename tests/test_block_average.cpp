// Block averages (analysis/block_average.hpp, analysis/rdf.hpp's rdf_block_errors): the
// standard errors of g(r) and n(r) over interval blocks against a brute force in float64 on
// fresh random runs (NPT volumes, blocks of unequal length), and Flyvbjerg-Petersen merging.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/block_average.hpp"
#include "analysis/rdf.hpp"

namespace {

using pairhist::HistogramResult;
using pairhist::IntervalBlock;
using pairhist::PairHistogram;

constexpr double kPi = 3.14159265358979323846;

/// A random run: 2 species, 3 pairs, `frames` frames with volumes of their own, cut into
/// blocks of random lengths (at least 2 frames), the counts of each block random.
HistogramResult random_run(std::mt19937_64& rng, size_t frames, int nbins) {
  HistogramResult res;
  res.species = {{"A", "a", 7}, {"B", "b", 11}};
  res.r_max = 1.3;
  res.nbins = nbins;
  res.box_kind = "orthorhombic";
  std::uniform_real_distribution<double> volume(20, 30);
  for (size_t f = 0; f < frames; ++f) {
    res.frame_indices.push_back(static_cast<int64_t>(3 * f));
    res.frame_times.push_back(0.5 * static_cast<double>(f));
    res.volumes.push_back(volume(rng));
  }
  res.pairs = {{0, 0, {}}, {0, 1, {}}, {1, 1, {}}};
  for (auto& p : res.pairs) p.counts.assign(static_cast<size_t>(nbins), 0);
  std::uniform_int_distribution<size_t> length(2, 9);
  std::uniform_int_distribution<uint64_t> count(0, 50);
  for (size_t begin = 0; begin < frames;) {
    size_t end = std::min(frames, begin + length(rng));
    if (frames - end < 2) end = frames;
    IntervalBlock b{begin, end, {}};
    for (auto& p : res.pairs) {
      std::vector<uint64_t> c(static_cast<size_t>(nbins));
      for (auto& v : c) v = count(rng) * (end - begin);
      for (size_t k = 0; k < c.size(); ++k) p.counts[k] += c[k];
      b.counts.push_back(c);
    }
    res.intervals.push_back(b);
    begin = end;
  }
  return res;
}

/// The standard error of the mean of `v` over its entries, straight from the definition.
double standard_error(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double mean = 0;
  for (double x : v) mean += x / n;
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean) / (n - 1);
  return std::sqrt(var / n);
}

}  // namespace

TEST_CASE("block errors of g(r) and n(r) equal the brute-force standard error over the blocks") {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 5; ++trial) {
    const int nbins = 17;
    const HistogramResult res = random_run(rng, 20 + 7 * static_cast<size_t>(trial), nbins);
    REQUIRE(res.intervals.size() >= 2);
    for (size_t pair = 0; pair < res.pairs.size(); ++pair) {
      const PairHistogram& p = res.pairs[pair];
      const double na = static_cast<double>(res.species[p.a].count);
      const double nb = static_cast<double>(res.species[p.b].count);
      const double npairs = p.a == p.b ? na * (na - 1) / 2 : na * nb;
      // Per block: g_k = <count_k> / (N_pairs shell_k <1/V>), n_k = m cumsum / (frames N_A).
      std::vector<std::vector<double>> g(nbins), n(nbins);
      for (const IntervalBlock& b : res.intervals) {
        const double frames = static_cast<double>(b.frame_end - b.frame_begin);
        double inv_v = 0;
        for (size_t f = b.frame_begin; f < b.frame_end; ++f) inv_v += 1 / res.volumes[f] / frames;
        double cumulative = 0;
        for (int k = 0; k < nbins; ++k) {
          const double lo = res.r_max * k / nbins, hi = res.r_max * (k + 1) / nbins;
          const double shell = 4.0 / 3.0 * kPi * (hi * hi * hi - lo * lo * lo);
          const double c = static_cast<double>(b.counts[pair][static_cast<size_t>(k)]);
          cumulative += c;
          g[k].push_back(c / frames / (npairs * shell * inv_v));
          n[k].push_back((p.a == p.b ? 2 : 1) * cumulative / (frames * na));
        }
      }
      const pairhist::analysis::RdfErrors e = pairhist::analysis::rdf_block_errors(res, pair);
      REQUIRE(e.g.size() == static_cast<size_t>(nbins));
      REQUIRE(e.coordination.size() == static_cast<size_t>(nbins));
      for (int k = 0; k < nbins; ++k) {
        CHECK(e.g[k] == doctest::Approx(standard_error(g[k])).epsilon(1e-12));
        CHECK(e.coordination[k] == doctest::Approx(standard_error(n[k])).epsilon(1e-12));
      }
      CHECK(pairhist::analysis::rdf_block_error(res, pair) == e.g);
    }
  }
}

TEST_CASE("block_runs: each block a run of its own; fewer than two blocks give no error") {
  std::mt19937_64 rng(std::random_device{}());
  HistogramResult res = random_run(rng, 30, 5);
  const std::vector<HistogramResult> runs = pairhist::analysis::block_runs(res);
  REQUIRE(runs.size() == res.intervals.size());
  for (size_t b = 0; b < runs.size(); ++b) {
    const IntervalBlock& block = res.intervals[b];
    CHECK(runs[b].intervals.empty());
    REQUIRE(runs[b].frame_indices.size() == block.frame_end - block.frame_begin);
    CHECK(runs[b].frame_indices.front() == res.frame_indices[block.frame_begin]);
    CHECK(runs[b].volumes.back() == res.volumes[block.frame_end - 1]);
    CHECK(runs[b].frame_times.size() == runs[b].frame_indices.size());
    for (size_t p = 0; p < res.pairs.size(); ++p) CHECK(runs[b].pairs[p].counts == block.counts[p]);
  }
  res.intervals.resize(1);
  CHECK(pairhist::analysis::block_runs(res).empty());
  CHECK(pairhist::analysis::rdf_block_errors(res, 0).g.empty());
  CHECK(pairhist::analysis::block_standard_error({{1.0, 2.0}}).empty());
}

TEST_CASE("block_standard_error and Flyvbjerg-Petersen merging against the definition") {
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> normal(1e6, 3);  // a large mean: no cancellation allowed
  std::vector<double> values(16);
  for (double& v : values) v = normal(rng);
  std::vector<std::vector<double>> blocks;
  for (double v : values) blocks.push_back({v, -v});
  const std::vector<double> se = pairhist::analysis::block_standard_error(blocks);
  CHECK(se[0] == doctest::Approx(standard_error(values)).epsilon(1e-9));
  CHECK(se[1] == se[0]);

  const std::vector<double> merged = pairhist::analysis::merged_block_errors(values);
  REQUIRE(merged.size() == 4);  // 16, 8, 4 and 2 blocks
  std::vector<double> level = values;
  for (double e : merged) {
    CHECK(e == doctest::Approx(standard_error(level)).epsilon(1e-9));
    std::vector<double> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back((level[i] + level[i + 1]) / 2);
    level = next;
  }
  // Correlated blocks (a slow drift): the error grows as they merge, and the check says so.
  std::vector<double> drift(16);
  for (size_t i = 0; i < drift.size(); ++i) drift[i] = static_cast<double>(i);
  CHECK_FALSE(pairhist::analysis::block_errors_level(pairhist::analysis::merged_block_errors(drift),
                                                     drift.size()));
  CHECK(pairhist::analysis::block_errors_level(merged, values.size()) ==
        (merged.back() <= merged.front() * (1.25 + 2 / std::sqrt(2.0))));
}
