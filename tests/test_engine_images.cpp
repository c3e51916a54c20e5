// EngineConfig::periodic_images: r_max beyond half the box, every periodic image counted. Against
// a float64 brute force over all lattice translations (pairs within rounding of a bin edge may
// fall either side), orthorhombic and triclinic boxes, r_max 0.7 and 1.6 box lengths, a species
// with itself and across species; all pairs equal cell lists bit for bit under several
// schedulers; below the minimum-image limit the images agree with the minimum image; the bin
// an excluded pair is re-binned into is the one the engine's layout counts; ideal-gas points give
// g(r) -> 1 beyond the box.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "pairhist/periodic_images.hpp"
#include "tasks/periodic_images.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

/// Per bin, the pairs a float64 brute force over every image puts there for sure, and those
/// within `eps` bins of an edge, which may fall in the bin below (at r_max: below or nowhere).
struct Bracket {
  std::vector<double> sure_cum_low, sure_cum_high;  // cumulative counts, edge pairs low / high
};

/// Float64 brute force: pair (i, j + s) over all lattice vectors s with |n| <= kmax, A != B every
/// ordered (i, j), A == B each unordered pair once (i < j any s; i == j, s in the half-space).
/// Returns the cumulative counts up to each bin with edge pairs put low and put high.
Bracket brute_force(const std::vector<float>& a, const std::vector<float>& b, bool same,
                    const BoxMatrix& m, double r_max, int nbins, double eps) {
  const int kmax = 6;
  std::vector<double> low(static_cast<size_t>(nbins) + 1, 0), high(low);
  const size_t na = a.size() / 3, nb = b.size() / 3;
  const double scale = nbins / r_max;
  for (size_t i = 0; i < na; ++i)
    for (size_t j = same ? i : 0; j < nb; ++j)
      for (int k = -kmax; k <= kmax; ++k)
        for (int jj = -kmax; jj <= kmax; ++jj)
          for (int ii = -kmax; ii <= kmax; ++ii) {
            const int n[3] = {ii, jj, k};
            if (same && i == j && !in_upper_half(n)) continue;
            const double s[3] = {ii * m[0] + jj * m[3] + k * m[6], jj * m[4] + k * m[7], k * m[8]};
            double d2 = 0;
            for (int c = 0; c < 3; ++c) {
              const double d = double(b[3 * j + c]) + s[c] - double(a[3 * i + c]);
              d2 += d * d;
            }
            const double pos = std::sqrt(d2) * scale;
            if (pos >= nbins + eps) continue;
            const int lo = static_cast<int>(std::max(pos - eps, 0.0));
            const int hi = std::min(static_cast<int>(pos + eps), nbins);
            low[static_cast<size_t>(lo)] += 1;
            high[static_cast<size_t>(hi)] += 1;
          }
  Bracket out;
  double cl = 0, ch = 0;
  for (int k = 0; k < nbins; ++k) {
    cl += low[static_cast<size_t>(k)];
    ch += high[static_cast<size_t>(k)];
    out.sure_cum_low.push_back(cl);
    out.sure_cum_high.push_back(ch);
  }
  return out;
}

/// The engine's cumulative counts lie between those of edge pairs put high and put low.
void check_bracket(const std::vector<uint64_t>& h, const Bracket& b) {
  double cum = 0;
  for (size_t k = 0; k < h.size(); ++k) {
    cum += static_cast<double>(h[k]);
    CAPTURE(k);
    CHECK(cum >= b.sure_cum_high[k]);
    CHECK(cum <= b.sure_cum_low[k]);
  }
}

test::RandomFrames image_frames(const std::vector<int64_t>& sizes, BoxKind kind, int frames) {
  // Boxes of about 2 (NPT-like, one per frame), points up to a box length outside the cell.
  return test::roomy_frames(sizes, frames, kind, 2.0, 2.2);
}

double shortest_side(const test::RandomFrames& f) {
  double s = INFINITY;
  for (const auto& b : f.boxes) s = std::min(s, 2 * max_minimum_image_rmax(b));
  return s;
}

void check_against_brute_force(BoxKind kind, double r_over_l, Precision precision) {
  CAPTURE(box_kind_name(kind));
  CAPTURE(r_over_l);
  CAPTURE(precision == Precision::single);
  const auto frames = image_frames({90, 70}, kind, 2);
  const double r_max = r_over_l * shortest_side(frames);
  const int nbins = 37;
  EngineConfig config = test::engine_config(frames, kind, nbins, r_max, precision);
  config.periodic_images = true;
  config.ncuda = 0;
  config.ncpu = 2;
  RunActivity activity;
  const auto counts = test::run_engine(frames, config, &activity);
  CHECK(activity.periodic_images);
  CHECK(activity.most_image_translations > 1);
  const auto pairs = species_pairs(2);
  const double u = precision == Precision::single ? 0x1p-24 : 0x1p-53;
  for (size_t p = 0; p < pairs.size(); ++p) {
    CAPTURE(p);
    const auto [a, b] = pairs[p];
    std::vector<double> low(static_cast<size_t>(nbins), 0), high(low);
    Bracket sum{low, high};
    for (size_t t = 0; t < frames.xyz.size(); ++t) {
      const double extent = 4 * (frames.boxes[t][0] + r_max);
      const double eps = 256 * u * extent * nbins / r_max;
      const Bracket one = brute_force(frames.xyz[t][a], frames.xyz[t][b], a == b, frames.boxes[t],
                                      r_max, nbins, eps);
      for (int k = 0; k < nbins; ++k) {
        sum.sure_cum_low[k] += one.sure_cum_low[k];
        sum.sure_cum_high[k] += one.sure_cum_high[k];
      }
    }
    check_bracket(counts[p], sum);
    CHECK(sum.sure_cum_high.back() > 1000);  // the test counts many pairs, beyond the box too
  }
}

}  // namespace

TEST_CASE("periodic images: every image within r_max, as a float64 brute force counts them") {
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic})
    for (double r : {0.7, 1.6}) check_against_brute_force(kind, r, Precision::single);
  check_against_brute_force(BoxKind::triclinic, 1.6, Precision::double_);
}

TEST_CASE("periodic images: all pairs equal cell lists bit for bit, every scheduler") {
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = image_frames({400, 150, 1, 0}, kind, 3);
    EngineConfig config =
        test::engine_config(frames, kind, 60, 0.9 * shortest_side(frames), Precision::single);
    config.periodic_images = true;
    config.ncuda = 0;
    config.algorithm = Algorithm::all_pairs;
    config.ncpu = 1;
    const auto expected = test::run_engine(frames, config);
    uint64_t total = 0;
    for (const auto& h : expected)
      for (uint64_t v : h) total += v;
    CHECK(total > 100000);
    config.algorithm = Algorithm::cell_list;
    for (const char* sched : {"lws", "eager", "dmda"})
      for (int ncpu : {1, 2}) {
        CAPTURE(sched);
        CAPTURE(ncpu);
        config.scheduler = sched;
        config.ncpu = ncpu;
        RunActivity activity;
        REQUIRE(test::run_engine(frames, config, &activity) == expected);
        CHECK(activity.pair_work.size() == 10);
        CHECK(activity.pair_work[0].algorithm == Algorithm::cell_list);
      }
    config.counted_pairs = {false, true, false, false, true, false, false, false, false, false};
    const auto some = test::run_engine(frames, config);
    for (size_t p = 0; p < some.size(); ++p)
      CHECK(some[p] == (config.counted_pairs[p] ? expected[p] : std::vector<uint64_t>(60, 0)));
    config.counted_pairs.clear();
    config.precision = Precision::double_;
    config.algorithm = Algorithm::all_pairs;
    const auto doubles = test::run_engine(frames, config);
    config.algorithm = Algorithm::cell_list;
    CHECK(test::run_engine(frames, config) == doubles);
  }
}

TEST_CASE("periodic images below the minimum-image limit agree with the minimum image") {
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    auto frames = image_frames({300, 200}, kind, 2);
    double limit = INFINITY;
    for (const auto& b : frames.boxes) limit = std::min(limit, max_minimum_image_rmax(b));
    EngineConfig config = test::engine_config(frames, kind, 50, 0.999 * limit, Precision::double_);
    config.ncuda = 0;
    const auto minimum_image = test::run_engine(frames, config);
    config.periodic_images = true;
    const auto images = test::run_engine(frames, config);
    // Double precision: only pairs within ~1e-13 bins of an edge could differ; none do here.
    CHECK(images == minimum_image);
  }
}

TEST_CASE("periodic images: an excluded pair's bin is the one the engine's layout counts") {
  // A species of two atoms: its histogram holds the pair's images and each atom's own images;
  // below half the box the lowest counted bin is the pair's minimum image, which
  // image_pair_bin must reproduce (the exclusions subtract it). The second atom lies a whole
  // number of bins (of 1/128) below the first along x, often across the cell's face: a bin edge
  // up to rounding, so only the engine's own layout (which image of which atom) gives its bin.
  const int nbins = 512;
  const double r_max = 4.0;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> steps(1, 80);
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic})
    for (bool same : {true, false}) {
      CAPTURE(box_kind_name(kind));
      CAPTURE(same);
      EngineConfig config;
      config.species_sizes = same ? std::vector<int64_t>{2} : std::vector<int64_t>{1, 1};
      config.r_max = r_max;
      config.nbins = nbins;
      config.box_kind = kind;
      config.periodic_images = true;
      PeriodicImages images(config);
      const EngineConfig& inner = images.internal();
      const auto inner_pairs = species_pairs(static_cast<int>(inner.species_sizes.size()));
      const HistogramParams<float> p = make_params<float>(BoxMatrix{}, BoxKind::none, r_max, nbins);
      for (int t = 0; t < 300; ++t) {
        const BoxMatrix box = kind == BoxKind::orthorhombic ? test::random_orthorhombic(2.0, 2.2)
                                                            : test::random_triclinic(2.0, 2.2);
        const float ax = static_cast<float>(0.5 * u(test::rng()));
        const float ay = static_cast<float>(2 * u(test::rng()));
        const float az = static_cast<float>(2 * u(test::rng()));
        const float bx = static_cast<float>(ax - steps(test::rng()) / 128.0);
        std::vector<std::vector<float>> soa;
        std::vector<int64_t> counts;
        if (same) {
          soa = {{ax, bx, ay, ay, az, az}};
          counts = {2};
        } else {
          soa = {{ax, ay, az}, {bx, ay, az}};
          counts = {1, 1};
        }
        std::vector<const float*> ptr;
        for (const auto& s : soa) ptr.push_back(s.data());
        images.prepare<float>(box, ptr, counts);
        std::vector<std::vector<uint64_t>> hist(inner_pairs.size(),
                                                std::vector<uint64_t>(nbins + 1, 0));
        std::vector<std::vector<float>> laid(inner.species_sizes.size());
        for (size_t s = 0; s < laid.size(); ++s) {
          laid[s].resize(3 * static_cast<size_t>(images.counts()[s]));
          images.copy(s, laid[s].data());
        }
        for (size_t q = 0; q < inner_pairs.size(); ++q) {
          if (!inner.counted_pairs[q]) continue;
          const auto [x, y] = inner_pairs[q];
          cpu::pair_histogram_reference(cpu::Coords<float>{laid[x].data(), images.counts()[x]},
                                        cpu::Coords<float>{laid[y].data(), images.counts()[y]},
                                        x == y, p, hist[q].data());
        }
        const auto folded = images.fold(hist);
        const std::vector<uint64_t>& h = folded[same ? 0 : 1];
        const size_t lowest = static_cast<size_t>(
            std::find_if(h.begin(), h.end(), [](uint64_t v) { return v; }) - h.begin());
        // The engine wraps each point as given: the pair's points as laid out for it.
        float wa[3], wb[3];
        wrapped_point<float>(box, ax, ay, az, wa);
        wrapped_point<float>(box, bx, ay, az, wb);
        CAPTURE(t);
        CHECK(static_cast<size_t>(image_pair_bin(p, box, wa, wb, same)) == lowest);
      }
    }
}

TEST_CASE("periodic images: ideal-gas points give g(r) -> 1 beyond the box") {
  // Two independent uniform species: the expected A-B count in a shell is N_A N_B shell / V at
  // every r, images included, with the same normalisation as below half the box.
  test::RandomFrames frames = image_frames({500, 400}, BoxKind::orthorhombic, 4);
  for (size_t t = 0; t < frames.xyz.size(); ++t)  // uniform in the cell (not beyond it)
    for (auto& species : frames.xyz[t])
      for (size_t k = 0; k < species.size(); ++k)
        species[k] = static_cast<float>(
            std::uniform_real_distribution<double>(0, frames.boxes[t][4 * (k % 3)])(test::rng()));
  const int nbins = 10;
  const double r_max = 1.5 * shortest_side(frames);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, nbins, r_max, Precision::single);
  config.periodic_images = true;
  config.ncuda = 0;
  const auto counts = test::run_engine(frames, config);
  for (int k = nbins / 2; k < nbins; ++k) {  // r from 0.75 to 1.5 box lengths
    double expected = 0;
    for (const auto& b : frames.boxes) {
      const double r0 = k * r_max / nbins, r1 = (k + 1) * r_max / nbins;
      expected += 500.0 * 400.0 * 4 * M_PI / 3 * (r1 * r1 * r1 - r0 * r0 * r0) / box_volume(b);
    }
    const double g = static_cast<double>(counts[1][static_cast<size_t>(k)]) / expected;
    CAPTURE(k);
    CHECK(g == doctest::Approx(1.0).epsilon(0.02));
  }
}
