// Structure factors from g(r) (analysis/scattering_structure): the windowed shell integrals against
// quadrature, closed-form cases (g = 1, a hard core), and the identity that ties S_AB(q) to the
// Debye sum over the same histograms.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_structure.hpp"
#include "pairhist/errors.hpp"

using namespace pairhist;
using namespace pairhist::analysis;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// Composite Simpson of 4 pi r^2 sinc(q r) W(r) over [0, r].
double simpson_shell(double q, double r, double r_max, Window window, int n = 20000) {
  auto f = [&](double t) {
    const double w = window == Window::lorch ? sinc(kPi * t / r_max) : 1.0;
    return 4 * kPi * t * t * sinc(q * t) * w;
  };
  const double h = r / n;
  double s = f(0) + f(r);
  for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4 : 2) * f(i * h);
  return s * h / 3;
}

/// One species of n_atoms in one frame whose volume makes bin k hold exactly
/// m ((k+1)^3 - k^3) pairs at g = 1: the volume absorbs 4 pi / 3, so the counts are integers and
/// g is 1 to rounding. Bins below `core` are empty (a hard core at its lower edge).
HistogramResult uniform_liquid(double r_max, int nbins, int core, uint64_t m = 1) {
  HistogramResult res;
  res.r_max = r_max;
  res.nbins = nbins;
  res.box_kind = "orthorhombic";
  const int64_t n_atoms = 100;
  res.species.push_back({"A", "", n_atoms});
  const double n_pairs = n_atoms * (n_atoms - 1) / 2.0;
  const double dr = r_max / nbins;
  res.volumes.push_back(4.0 / 3.0 * kPi * dr * dr * dr * n_pairs / static_cast<double>(m));
  res.frame_indices.push_back(0);
  PairHistogram p;
  p.counts.assign(nbins, 0);
  for (int k = core; k < nbins; ++k)
    p.counts[k] = m * static_cast<uint64_t>((k + 1) * (k + 1) * (k + 1) - k * k * k);
  res.pairs.push_back(p);
  return res;
}

std::vector<double> q_grid(double q_max, int n) {
  std::vector<double> q;
  for (int i = 0; i < n; ++i) q.push_back(q_max * i / (n - 1));
  return q;
}

}  // namespace

TEST_CASE("windowed shell integrals equal a fine quadrature, near q = 0 and q = pi / r_max too") {
  const double r_max = 1.3;
  const double a = kPi / r_max;
  for (Window window : {Window::none, Window::lorch}) {
    CAPTURE(window_name(window));
    for (double q : {0.0, 1e-9, 1e-4, 0.3, a / 2 - 1e-12, a / 2, a - 1e-7, a, a + 1e-7, 4.0, 17.3,
                     60.0, 200.0}) {
      for (double r : {1e-3, 0.05, 0.4, 1.0, 1.3}) {
        CAPTURE(q);
        CAPTURE(r);
        const double expected = simpson_shell(q, r, r_max, window);
        CHECK(windowed_shell_integral(q, r, r_max, window) ==
              doctest::Approx(expected).epsilon(1e-10).scale(4 * kPi * r * r * r / 3));
      }
    }
  }
  CHECK(windowed_shell_integral(0, 1.0, 2.0, Window::none) ==
        doctest::Approx(4 * kPi / 3).epsilon(1e-15));
  CHECK(windowed_shell_integral(5, 0, 2.0, Window::lorch) == 0);
}

TEST_CASE("g = 1 gives S = 1; a hard core gives its closed form") {
  const double r_max = 1.5;
  const int nbins = 150;
  const std::vector<double> q = q_grid(80, 161);
  const std::vector<std::vector<double>> w(1, std::vector<double>(q.size(), 1.0));
  for (Window window : {Window::none, Window::lorch}) {
    for (WithinBin rule : {WithinBin::exact, WithinBin::centre}) {
      const StructureFactors s =
          structure_factors(uniform_liquid(r_max, nbins, 0), q, w, {window, rule});
      for (size_t i = 0; i < q.size(); ++i) {
        CHECK(std::abs(s.partial[0][i] - 1) < 1e-11);
        CHECK(std::abs(s.total[i] - 1) < 1e-11);
        CHECK(std::abs(s.f_total[i]) < 1e-11);
      }
    }
  }

  // g = 0 below d = 0.3 nm (a bin edge), 1 beyond: S(q) = 1 - 4 pi rho (sin(qd) - qd cos(qd)) / q^3
  // without a window, exactly (g - 1 vanishes beyond d, so r_max cuts nothing).
  const int core = 30;
  const double d = core * r_max / nbins;
  const HistogramResult res = uniform_liquid(r_max, nbins, core);
  const StructureFactors none = structure_factors(res, q, w, {Window::none, WithinBin::exact});
  const double rho = 100 / res.volumes[0];
  CHECK(none.density == doctest::Approx(rho).epsilon(1e-14));
  const double scale = 4 * kPi * rho * d * d * d / 3;  // |S(0) - 1|
  for (size_t i = 0; i < q.size(); ++i) {
    const double x = q[i] * d;
    const double expected =
        q[i] == 0 ? 1 - scale
                  : 1 - 4 * kPi * rho * (std::sin(x) - x * std::cos(x)) / std::pow(q[i], 3);
    CAPTURE(q[i]);
    CHECK(none.partial[0][i] == doctest::Approx(expected).epsilon(1e-12).scale(scale));
    CHECK(none.total[i] == none.partial[0][i]);
  }
  // With Lorch's window: 1 - rho times the windowed integral over the core.
  const StructureFactors lorch = structure_factors(res, q, w, {Window::lorch, WithinBin::exact});
  for (size_t i = 0; i < q.size(); i += 8) {
    const double expected = 1 - rho * simpson_shell(q[i], d, r_max, Window::lorch);
    CHECK(lorch.partial[0][i] == doctest::Approx(expected).epsilon(1e-10).scale(scale));
  }
}

TEST_CASE("S_AB ties to the Debye sum over the same histograms (centre rule, no window)") {
  // Random counts stand in for any histograms: per atom, the Debye pair term of A-B equals
  // c_A c_B f_A f_B (S_AB - 1 + rho sum_k K_k), times 2 for A != B and (N_A - 1) / N_A for A = A
  // (pairhist's g normalises A-A by N_A (N_A - 1) / 2 pairs, the density by N_A).
  const uint64_t seed = std::random_device{}();
  std::printf("test_scattering_structure: random histograms from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  HistogramResult res;
  res.r_max = 12.0;
  res.length_unit = "angstrom";
  res.nbins = 97;
  res.box_kind = "triclinic";
  res.species = {{"A", "", 40}, {"B", "", 17}, {"C", "", 1}};
  for (int f = 0; f < 3; ++f) {
    res.frame_indices.push_back(f);
    res.volumes.push_back(16000 + 1000 * f);  // Angstrom^3
  }
  std::uniform_int_distribution<uint64_t> count(0, 50);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      PairHistogram p;
      p.a = a;
      p.b = b;
      for (int k = 0; k < res.nbins; ++k) p.counts.push_back(a == 2 && b == 2 ? 0 : count(rng));
      res.pairs.push_back(p);
    }
  const std::vector<double> q = q_grid(40, 41);
  std::vector<std::vector<double>> w(3, std::vector<double>(q.size()));
  for (size_t i = 0; i < q.size(); ++i) {
    w[0][i] = 8 * std::exp(-0.002 * q[i] * q[i]);
    w[1][i] = -3.7;
    w[2][i] = 1 + 0.01 * q[i];
  }
  const DebyeIntensity debye = debye_intensity(res, q, w, {WithinBin::centre});
  const StructureFactors sq = structure_factors(res, q, w, {Window::none, WithinBin::centre});
  const double n = 58;
  std::vector<double> edges = bin_edges_nm(res);
  for (size_t i = 0; i < q.size(); ++i) {
    double uniform = 0;
    for (double k : structure_kernel(q[i], edges, edges.back(), Window::none, WithinBin::centre))
      uniform += k;
    double scale = 0;
    for (size_t ip = 0; ip < res.pairs.size(); ++ip) {
      const PairHistogram& p = res.pairs[ip];
      const double ca = res.species[p.a].count / n, cb = res.species[p.b].count / n;
      const double na = static_cast<double>(res.species[p.a].count);
      const double fafb = w[p.a][i] * w[p.b][i];
      double expected = (p.a == p.b ? (na - 1) / na : 2.0) * ca * cb * fafb *
                        (sq.partial[ip][i] - 1 + sq.density * uniform);
      if (p.a == p.b) expected += ca * fafb;
      CAPTURE(q[i]);
      CAPTURE(ip);
      CHECK(debye.partial[ip][i] / n == doctest::Approx(expected).epsilon(1e-12).scale(1));
      scale += std::abs(fafb);
    }
    // C has one atom: no C-C pairs, so g_CC = 0 and S_CC - 1 is the uniform term alone.
    CHECK(sq.partial[5][i] - 1 == doctest::Approx(-sq.density * uniform).epsilon(1e-12));
    // F is the weighted sum of the partials, S its normalisation by <f>^2.
    double f = 0, mean_f = 0;
    for (size_t ip = 0; ip < res.pairs.size(); ++ip) {
      const PairHistogram& p = res.pairs[ip];
      f += (p.a == p.b ? 1 : 2) * res.species[p.a].count * res.species[p.b].count / (n * n) *
           w[p.a][i] * w[p.b][i] * (sq.partial[ip][i] - 1);
    }
    for (int s = 0; s < 3; ++s) mean_f += res.species[s].count / n * w[s][i];
    CHECK(sq.f_total[i] == doctest::Approx(f).epsilon(1e-13).scale(scale));
    CHECK(sq.total[i] == doctest::Approx(1 + f / (mean_f * mean_f)).epsilon(1e-12));
  }
  CHECK(sq.density == doctest::Approx(58 * 1000 * (1 / 16000. + 1 / 17000. + 1 / 18000.) / 3));
}

TEST_CASE("structure factors refuse runs without a bulk") {
  const std::vector<double> q{0, 1};
  const std::vector<std::vector<double>> w(1, std::vector<double>(2, 1.0));
  HistogramResult res = uniform_liquid(1.0, 10, 0);
  CHECK_NOTHROW(structure_factors(res, q, w));
  HistogramResult bad = res;
  bad.box_kind = "none";
  CHECK_THROWS_WITH_AS(structure_factors(bad, q, w), doctest::Contains("need a periodic run"),
                       UsageError);
  bad = res;
  bad.volumes.clear();
  CHECK_THROWS_WITH_AS(structure_factors(bad, q, w), doctest::Contains("frame volumes"),
                       UsageError);
  bad = res;
  bad.pairs[0].excluded_pairs = 3;
  CHECK_THROWS_WITH_AS(structure_factors(bad, q, w), doctest::Contains("--exclude"), UsageError);
  CHECK_THROWS_AS(structure_factors(res, {-1.0}, {{1.0}}), UsageError);
  CHECK_THROWS_AS(parse_window("hann"), UsageError);
  CHECK(parse_window("lorch") == Window::lorch);
}
