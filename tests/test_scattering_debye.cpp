// Debye intensities from histograms (analysis/scattering_debye): the sine integral and the
// within-bin rules against independent numbers, and the intensity of fresh random systems against
// the brute-force double sum over all atom pairs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "pairhist/errors.hpp"

using namespace pairhist;
using namespace pairhist::analysis;

namespace {

/// max |d sinc(x) / dx| over x >= 0 (at x = 2.0816), rounded up.
constexpr double kMaxSincSlope = 0.4362;

/// Composite Simpson of sinc(q r) over [a, b], divided by b - a.
double simpson_mean(double q, double a, double b, int n = 20000) {
  const double h = (b - a) / n;
  double s = sinc(q * a) + sinc(q * b);
  for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4 : 2) * sinc(q * (a + i * h));
  return s * h / 3 / (b - a);
}

struct Atom {
  double x, y, z;
  int species;
};

/// A weight per species and q that looks like a form factor: decreasing, species-dependent.
double weight(int species, double q) {
  return (species == 0 ? 8.0 : 1.0) * std::exp(-0.002 * q * q) + 0.3 * species;
}

/// The histograms of one or more frames of atoms as pairhist counts them: A-A pairs i < j once,
/// A-B pairs (i in A, j in B) once; bin floor(r * nbins / r_max) of the exact distance.
HistogramResult histogram(const std::vector<std::vector<Atom>>& frames, int nspecies, double r_max,
                          int nbins) {
  HistogramResult res;
  res.r_max = r_max;
  res.nbins = nbins;
  for (int s = 0; s < nspecies; ++s) {
    SpeciesInfo info;
    info.name = std::string(1, static_cast<char>('A' + s));
    for (const Atom& a : frames[0]) info.count += a.species == s;
    res.species.push_back(info);
  }
  for (int a = 0; a < nspecies; ++a)
    for (int b = a; b < nspecies; ++b) {
      PairHistogram p;
      p.a = a;
      p.b = b;
      p.counts.assign(nbins, 0);
      res.pairs.push_back(p);
    }
  auto pair_index = [&](int a, int b) {
    for (size_t i = 0; i < res.pairs.size(); ++i)
      if (res.pairs[i].a == std::min(a, b) && res.pairs[i].b == std::max(a, b)) return i;
    return res.pairs.size();
  };
  for (size_t f = 0; f < frames.size(); ++f) {
    res.frame_indices.push_back(static_cast<int64_t>(f));
    const auto& atoms = frames[f];
    for (size_t i = 0; i < atoms.size(); ++i)
      for (size_t j = i + 1; j < atoms.size(); ++j) {
        const double r =
            std::sqrt(std::pow(atoms[i].x - atoms[j].x, 2) + std::pow(atoms[i].y - atoms[j].y, 2) +
                      std::pow(atoms[i].z - atoms[j].z, 2));
        const auto bin = static_cast<int64_t>(std::floor(r * nbins / r_max));
        if (bin < nbins) res.pairs[pair_index(atoms[i].species, atoms[j].species)].counts[bin]++;
      }
  }
  return res;
}

/// Brute-force Debye sum averaged over frames: sum_i f_i^2 + 2 sum_{i<j} f_i f_j sinc(q r_ij),
/// with r_ij exact, or (nbins > 0) moved to the centre of its bin. `bound` gets
/// 2 sum_{i<j} |f_i f_j| (the factor of the per-pair error bounds).
double brute_force(const std::vector<std::vector<Atom>>& frames, double q, double r_max = 0,
                   int nbins = 0, double* bound = nullptr) {
  double total = 0, pair_weight = 0;
  for (const auto& atoms : frames) {
    for (size_t i = 0; i < atoms.size(); ++i) {
      const double fi = weight(atoms[i].species, q);
      total += fi * fi;
      for (size_t j = i + 1; j < atoms.size(); ++j) {
        double r =
            std::sqrt(std::pow(atoms[i].x - atoms[j].x, 2) + std::pow(atoms[i].y - atoms[j].y, 2) +
                      std::pow(atoms[i].z - atoms[j].z, 2));
        if (nbins > 0) r = (std::floor(r * nbins / r_max) + 0.5) * r_max / nbins;
        const double fifj = fi * weight(atoms[j].species, q);
        total += 2 * fifj * sinc(q * r);
        pair_weight += 2 * std::abs(fifj);
      }
    }
  }
  if (bound != nullptr) *bound = pair_weight / frames.size();
  return total / frames.size();
}

std::vector<std::vector<double>> weights_of(int nspecies, const std::vector<double>& q) {
  std::vector<std::vector<double>> w(nspecies, std::vector<double>(q.size()));
  for (int s = 0; s < nspecies; ++s)
    for (size_t i = 0; i < q.size(); ++i) w[s][i] = weight(s, q[i]);
  return w;
}

}  // namespace

TEST_CASE("sine integral against 80-digit series values") {
  // Si(x) summed as a power series in 80-digit decimal arithmetic (Python's decimal module).
  const std::pair<double, double> known[] = {
      {0.5, 0.493107418043066689}, {1, 0.946083070367183014},  {2, 1.605412976802694848},
      {3, 1.848652527999468256},   {5, 1.549931244944674137},  {10, 1.658347594218874049},
      {20, 1.548241701043439840},  {50, 1.551617072485935894}, {100, 1.562225466889056293}};
  for (const auto& [x, si] : known) {
    CHECK(sine_integral(x) == doctest::Approx(si).epsilon(2e-15));
    CHECK(sine_integral(-x) == doctest::Approx(-si).epsilon(2e-15));
  }
  CHECK(sine_integral(0) == 0);
  // Both methods meet at x = 3 without a step.
  CHECK(std::abs(sine_integral(std::nextafter(3.0, 4.0)) - sine_integral(3.0)) < 1e-14);
  CHECK(sine_integral(1e6) == doctest::Approx(1.5707963267948966).epsilon(2e-6));
}

namespace {

/// The sine integral beyond 3 as it was computed up to 63504aa, with std::complex<double>.
double complex_sine_integral(double x) {
  using C = std::complex<double>;
  C b(1.0, x);
  C c(1.0 / 1e-300, 0.0);
  C d = 1.0 / b;
  C h = d;
  for (int i = 1; i < 10000; ++i) {
    const double a = -static_cast<double>(i) * i;
    b += 2.0;
    d = 1.0 / (a * d + b);
    c = b + a / c;
    const C del = c * d;
    h *= del;
    if (std::abs(del.real() - 1.0) + std::abs(del.imag()) < 1e-16) break;
  }
  h *= C(std::cos(x), -std::sin(x));
  return 1.57079632679489661923 + h.imag();
}

}  // namespace

TEST_CASE("sine integral beyond 3: the bits of the std::complex evaluation it replaced") {
  // Results are bit-identical across versions: the real-arithmetic Lentz iteration must round
  // exactly as std::complex (libgcc's Smith division) did, on the q x r products of a grid and
  // on random x.
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> near(3.0, 100.0), far(100.0, 1e5);
  std::vector<double> xs;
  for (int i = 0; i <= 500; ++i)
    for (int k = 0; k <= 240; ++k) xs.push_back((50.0 * i / 500) * (1.2 * k / 240));
  for (int i = 0; i < 200000; ++i) xs.push_back(i % 10 == 0 ? far(rng) : near(rng));
  size_t differ = 0;
  for (double x : xs)
    if (x > 3 && sine_integral(x) != complex_sine_integral(x)) {
      if (differ++ < 5) MESSAGE("x = ", x);
    }
  CHECK(differ == 0);
}

TEST_CASE(
    "the exact within-bin mean equals a fine quadrature; the centre rule is within its bound") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  double largest_ratio = 0;
  for (int t = 0; t < 200; ++t) {
    const double q = 60 * unit(rng);
    const double a = 3 * unit(rng);
    const double dr = 0.2 * unit(rng) + 1e-4;
    const double mean = sinc_bin_mean(q, a, a + dr);
    CHECK(mean == doctest::Approx(simpson_mean(q, a, a + dr)).epsilon(1e-11).scale(1));
    const double centre_error = std::abs(sinc(q * (a + dr / 2)) - mean);
    const double bound = (q * dr) * (q * dr) / 72;
    CHECK(centre_error <= bound * (1 + 1e-9) + 1e-15);
    if (bound > 1e-6) largest_ratio = std::max(largest_ratio, centre_error / bound);
  }
  // The bound is not loose by orders of magnitude (near x = 0, sinc'' = -1/3 is where it is
  // reached).
  CHECK(largest_ratio > 0.2);
  double slope = 0;
  for (double x = 0; x < 50; x += 1e-4)
    slope = std::max(slope, std::abs((x * std::cos(x) - std::sin(x)) / (x * x + 1e-300)));
  CHECK(slope <= kMaxSincSlope);
  CHECK(slope > kMaxSincSlope - 1e-4);
}

TEST_CASE("two atoms at distance d: I = 2 f^2 (1 + sinc(q d))") {
  const double r_max = 2.0;
  const int nbins = 200;
  const double dr = r_max / nbins;
  const double d = (37 + 0.5) * dr;  // a bin centre
  const std::vector<std::vector<Atom>> frames{{{0, 0, 0, 0}, {d, 0, 0, 0}}};
  const HistogramResult res = histogram(frames, 1, r_max, nbins);
  std::vector<double> q;
  for (int i = 0; i <= 100; ++i) q.push_back(0.5 * i);
  const auto w = weights_of(1, q);
  const DebyeIntensity centre = debye_intensity(res, q, w, {WithinBin::centre});
  const DebyeIntensity exact = debye_intensity(res, q, w, {WithinBin::exact});
  for (size_t i = 0; i < q.size(); ++i) {
    const double f = w[0][i];
    const double expected = 2 * f * f * (1 + sinc(q[i] * d));
    CHECK(centre.total[i] == doctest::Approx(expected).epsilon(1e-13));
    CHECK(std::abs(exact.total[i] - expected) <= 2 * f * f * std::pow(q[i] * dr, 2) / 72 + 1e-12);
    CHECK(centre.partial[0][i] == centre.total[i]);
  }
  CHECK(centre.total[0] == doctest::Approx(4 * w[0][0] * w[0][0]));
}

TEST_CASE("Debye from histograms against the brute-force sum over all pairs, random systems") {
  // Fresh positions every run; the seed is printed so that a failure can be replayed.
  const uint64_t seed = std::random_device{}();
  std::printf("test_scattering_debye: random systems from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> box(0, 2.0);  // nm, no periodic box
  std::vector<std::vector<Atom>> frames(2);
  for (auto& atoms : frames)
    for (int i = 0; i < 90; ++i) atoms.push_back({box(rng), box(rng), box(rng), i < 55 ? 0 : 1});
  const double r_max = 3.5;  // beyond the cube's diagonal 3.46: every pair is counted
  std::vector<double> q;
  for (int i = 0; i <= 60; ++i) q.push_back(0.75 * i);  // up to 45 / nm
  const auto w = weights_of(2, q);

  double coarsest_error[2] = {0, 0};
  for (int nbins : {64, 512, 4096}) {  // the coarsest first
    const double dr = r_max / nbins;
    const HistogramResult res = histogram(frames, 2, r_max, nbins);
    for (const auto& p : res.pairs) CHECK(pairs_beyond_rmax(res, p) == 0);
    for (WithinBin rule : {WithinBin::centre, WithinBin::exact}) {
      const DebyeIntensity hist = debye_intensity(res, q, w, {rule});
      const DebyeIntensity single = debye_intensity(res, q, w, {rule, SumPrecision::single});
      double squared_error = 0;
      for (size_t i = 0; i < q.size(); ++i) {
        double pair_weight = 0;
        const double exact = brute_force(frames, q[i], 0, 0, &pair_weight);
        // The per-pair bound: max|sinc'| q times the largest distance from a pair to where the
        // rule puts it (dr / 2 from the centre; for the mean over the bin, dr).
        const double reach = rule == WithinBin::centre ? dr / 2 : dr;
        const double bound = pair_weight * kMaxSincSlope * q[i] * reach;
        const double error = std::abs(hist.total[i] - exact);
        CHECK(error <= bound + 1e-9 * pair_weight);
        squared_error += error * error;
        if (rule == WithinBin::centre) {
          // Distances moved to their bin centres: the histogram sum is that sum, to rounding.
          CHECK(hist.total[i] == doctest::Approx(brute_force(frames, q[i], r_max, nbins))
                                     .epsilon(1e-12)
                                     .scale(pair_weight));
        }
        double parts = 0;
        for (const auto& p : hist.partial) parts += p[i];
        CHECK(parts == doctest::Approx(hist.total[i]).epsilon(1e-14));
        CHECK(single.total[i] == doctest::Approx(hist.total[i]).epsilon(1e-6).scale(pair_weight));
      }
      const int r = rule == WithinBin::centre ? 0 : 1;
      // The error is a sum of the pairs' random offsets within their bins, which shrinks as the
      // bins do, k times narrower bins k times less in expectation; one random system's sum
      // fluctuates about that by up to ~2x (seed 2490640344: 512 -> 4096 bins only 3.9x), so
      // each level is measured against the coarsest with a 4x margin: 8x narrower, at least 2x
      // smaller; 64x narrower, at least 16x.
      const double rms_error = std::sqrt(squared_error / q.size());
      if (coarsest_error[r] == 0)
        coarsest_error[r] = rms_error;
      else
        CHECK(rms_error < coarsest_error[r] / (nbins / 64.0 / 4));
    }
  }
}

TEST_CASE("lengths in angstrom give the same intensity as in nm") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> box(0, 1.5);
  std::vector<std::vector<Atom>> frames(1);
  for (int i = 0; i < 30; ++i) frames[0].push_back({box(rng), box(rng), box(rng), i % 2});
  HistogramResult nm = histogram(frames, 2, 3.0, 300);
  HistogramResult angstrom = nm;
  angstrom.r_max = 30.0;
  angstrom.length_unit = "angstrom";
  const std::vector<double> q{0, 1, 5, 20};
  const auto w = weights_of(2, q);
  const auto a = debye_intensity(nm, q, w);
  const auto b = debye_intensity(angstrom, q, w);
  for (size_t i = 0; i < q.size(); ++i)
    CHECK(a.total[i] == doctest::Approx(b.total[i]).epsilon(1e-13));
}

TEST_CASE("inputs the Debye sum cannot use are refused") {
  std::vector<std::vector<Atom>> frames{{{0, 0, 0, 0}, {0.3, 0, 0, 1}, {0, 0.3, 0, 1}}};
  const HistogramResult good = histogram(frames, 2, 1.0, 10);
  const std::vector<double> q{1.0};
  const auto w = weights_of(2, q);
  CHECK_NOTHROW(debye_intensity(good, q, w));
  HistogramResult bad = good;
  bad.pairs[1].shared_atoms = 1;
  CHECK_THROWS_WITH_AS(debye_intensity(bad, q, w), doctest::Contains("share 1 atoms"), UsageError);
  bad = good;
  bad.pairs[2].excluded_pairs = 1;
  CHECK_THROWS_WITH_AS(debye_intensity(bad, q, w), doctest::Contains("--exclude"), UsageError);
  bad = good;
  bad.pairs.pop_back();
  CHECK_THROWS_WITH_AS(debye_intensity(bad, q, w),
                       doctest::Contains("no histogram of the pair B-B"), UsageError);
  bad = good;
  bad.frame_indices.clear();
  CHECK_THROWS_AS(debye_intensity(bad, q, w), UsageError);
  CHECK_THROWS_AS(debye_intensity(good, {-1.0}, w), UsageError);
  CHECK_THROWS_AS(debye_intensity(good, {std::nan("")}, w), UsageError);
  CHECK_THROWS_AS(parse_within_bin("midpoint"), UsageError);
}
