// The pieces of the sphere excess (analysis/sphere_excess.hpp) against brute force on fresh
// random inputs: the uniform sphere's amplitude against a Monte Carlo mean of sinc, the
// background's distance distribution against sampled distances and its total volume, the
// centre amplitudes against the sum over atoms, and the Guinier fit of an exact Guinier curve.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "analysis/sphere_excess.hpp"

namespace {

using namespace pairhist;
using namespace pairhist::analysis;

constexpr double kPi = 3.14159265358979323846;

std::mt19937_64 seeded(const char* what) {
  const uint64_t seed = std::random_device{}();
  std::printf("test_sphere_excess: %s from seed %llu\n", what,
              static_cast<unsigned long long>(seed));
  return std::mt19937_64(seed);
}

/// A point uniform in the ball of radius r.
void ball_point(std::mt19937_64& rng, double r, double* p) {
  std::uniform_real_distribution<double> u(-1, 1);
  do {
    for (int c = 0; c < 3; ++c) p[c] = u(rng);
  } while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1);
  for (int c = 0; c < 3; ++c) p[c] *= r;
}

}  // namespace

TEST_CASE("sphere excess: the uniform sphere's amplitude") {
  CHECK(uniform_sphere_amplitude(0) == 1);
  // Series and closed form meet at x = 1e-2.
  CHECK(uniform_sphere_amplitude(0.00999999) ==
        doctest::Approx(3 * (std::sin(0.01) - 0.01 * std::cos(0.01)) / 1e-6).epsilon(1e-9));
  // The mean of sinc(q d) over points of a ball of radius R: Phi(qR).
  auto rng = seeded("ball");
  const int n = 200000;
  std::vector<double> d(n);
  for (double& v : d) {
    double p[3];
    ball_point(rng, 1.3, p);
    v = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  }
  for (double q : {0.5, 2.0, 4.0, 7.5}) {
    double mean = 0;
    for (double v : d) mean += std::sin(q * v) / (q * v) / n;
    CAPTURE(q);
    CHECK(std::abs(mean - uniform_sphere_amplitude(q * 1.3)) < 5e-3);
  }
}

TEST_CASE("sphere excess: a point's distances to a uniform sphere") {
  auto rng = seeded("distances");
  std::uniform_real_distribution<double> u(0, 1);
  const double radius = 1.0 + u(rng);
  const double x = radius * u(rng);
  const double width = 0.05;
  std::vector<double> edges;
  for (int k = 0; k * width < 2 * radius + width; ++k) edges.push_back(k * width);
  const std::vector<double> v = uniform_sphere_distances(x, radius, edges);
  double total = 0;
  for (double b : v) total += b;
  // Bins up to R + x hold the whole sphere.
  CHECK(total == doctest::Approx(4 * kPi / 3 * radius * radius * radius).epsilon(1e-12));
  // Against sampled points of the sphere: the share of each bin.
  const int n = 400000;
  std::vector<double> hits(v.size(), 0);
  for (int i = 0; i < n; ++i) {
    double p[3];
    ball_point(rng, radius, p);
    const double r = std::sqrt((p[0] - x) * (p[0] - x) + p[1] * p[1] + p[2] * p[2]);
    hits[static_cast<size_t>(r / width)] += 1.0 / n;
  }
  for (size_t k = 0; k < v.size(); ++k) {
    CAPTURE(k);
    const double share = v[k] / total;
    CHECK(std::abs(hits[k] - share) < 4 * std::sqrt(share / n) + 1e-9);
  }
}

TEST_CASE("sphere excess: centre amplitudes and shell atoms from centre counts") {
  auto rng = seeded("centre counts");
  HistogramResult res;
  res.length_unit = "angstrom";
  res.sphere = "12";  // R = 12 A around a fixed point
  res.species = {{"A", "A", 10}, {"B", "B", 10}};
  res.frame_indices = {0, 1, 2};
  res.centre_bin_width = 0.5;  // A
  res.centre_counts.assign(2, std::vector<uint64_t>(24, 0));
  std::uniform_int_distribution<int> count(0, 5);
  for (auto& c : res.centre_counts)
    for (auto& n : c) n = static_cast<uint64_t>(count(rng));
  CHECK(sphere_radius_nm(res) == doctest::Approx(1.2));
  const std::vector<double> q = {0, 3, 11};
  const auto amp = centre_amplitudes(res, q, WithinBin::centre);
  for (size_t s = 0; s < 2; ++s)
    for (size_t i = 0; i < q.size(); ++i) {
      double sum = 0;
      for (size_t k = 0; k < 24; ++k) {
        const double d = (k + 0.5) * 0.05;  // nm
        sum += res.centre_counts[s][k] * (q[i] == 0 ? 1 : std::sin(q[i] * d) / (q[i] * d));
      }
      CHECK(amp[s][i] == doctest::Approx(sum / 3).epsilon(1e-12));
    }
  double inner = 0;
  const double atoms = shell_atoms(res, 1, 0.94, inner);
  CHECK(inner == doctest::Approx(0.95));  // the nearest bin edge
  double expected = 0;
  for (size_t k = 19; k < 24; ++k) expected += res.centre_counts[1][k];
  CHECK(atoms == doctest::Approx(expected / 3));
}

TEST_CASE("sphere excess: Guinier fit") {
  auto rng = seeded("Guinier");
  std::uniform_real_distribution<double> u(0.5, 3.0);
  const double rg = u(rng), i0 = 1e4 * u(rng);
  std::vector<double> q, intensity;
  for (int i = 0; i < 400; ++i) {
    q.push_back(i * 0.01);
    intensity.push_back(i0 * std::exp(-q.back() * q.back() * rg * rg / 3));
  }
  const GuinierFit fit = guinier_fit(q, intensity);
  REQUIRE(fit.ok);
  CHECK(fit.rg == doctest::Approx(rg).epsilon(1e-9));
  CHECK(fit.i0 == doctest::Approx(i0).epsilon(1e-9));
  CHECK(fit.q_lo == doctest::Approx(0.01));
  CHECK(fit.q_hi * rg <= 1.3);
  CHECK((fit.q_hi + 0.01) * rg > 1.3);
  CHECK(fit.rms_log < 1e-9);
  // Too few points: said, not fitted.
  const GuinierFit none = guinier_fit({0, 0.01, 0.02}, {1, 0.9, 0.8});
  CHECK_FALSE(none.ok);
  CHECK(!none.why.empty());
}
