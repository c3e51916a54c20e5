// `run --sphere` centres and `scattering --subtract --match-shell`: the centre-distance counts of
// a fixed-point and a box-centred sphere against a brute-force binning, the options' refusals, and
// a solvent run at another density matched to the solution's in a shell (the inputs:
// tests/sphere_excess_inputs.hpp; the excess itself: test_cli_scattering_sphere_excess.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "io/results/histogram_result_reader.hpp"
#include "io/scattering/scattering_hdf5.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/sphere_excess_inputs.hpp"
#include "tests/test_support.hpp"

using namespace pairhist::test::sphere_excess;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

TEST_CASE("sphere centres: a fixed point and the box centre, their centre distances") {
  TempDir dir("sphere-excess-centres");
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_sphere_excess: centres from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 3.0);
  // Three frames of 300 atoms in a 3 nm periodic cube (GRO), two species.
  std::string gro;
  std::vector<Frame> frames;
  char line[128];
  for (int f = 0; f < 3; ++f) {
    frames.emplace_back();
    gro += "frame t= " + std::to_string(f) + ".0\n300\n";
    for (int i = 0; i < 300; ++i) {
      // At the GRO's 3 decimals, as pairhist reads them.
      const auto at = [&] { return std::round(u(rng) * 1000) / 1000; };
      const Atom atom{i % 3 == 0 ? "NA" : "OW", at(), at(), at()};
      frames.back().push_back(atom);
      std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", i + 1, "SOL",
                    atom.name.c_str(), i + 1, atom.x, atom.y, atom.z);
      gro += line;
    }
    gro += "   3.00000   3.00000   3.00000\n";
  }
  pairhist::test::write_all(dir.file("box.gro"), gro);
  const auto run_centre = [&](const std::string& centre, const double c[3], const char* out) {
    run_sphere(dir.file("box.gro"), "--species Na=\"name NA\" --species O=\"name OW\"",
               "--sphere 1.1 --sphere-centre " + centre + " --bin 0.01", dir.file(out));
    const auto stored = pairhist::io::read_histogram_result(dir.file(out));
    const auto& res = stored.result;
    REQUIRE(res.centre_counts.size() == 2);
    CHECK(res.centre_bin_width == doctest::Approx(0.01));
    for (size_t s = 0; s < 2; ++s) {
      std::vector<uint64_t> brute(res.centre_counts[s].size(), 0);
      const std::string name = res.species[s].name == "Na" ? "NA" : "OW";
      for (const Frame& fr : frames)
        for (const Atom& atom : fr) {
          if (atom.name != name) continue;
          double d2 = 0;
          for (int k = 0; k < 3; ++k) {
            double d = (k == 0 ? atom.x : k == 1 ? atom.y : atom.z) - c[k];
            d -= 3.0 * std::round(d / 3.0);
            d2 += d * d;
          }
          const double d = std::sqrt(d2);
          if (d > 1.1) continue;
          ++brute[std::min(brute.size() - 1, static_cast<size_t>(d / 0.01))];
        }
      uint64_t agree = 0, total = 0;
      for (size_t k = 0; k < brute.size(); ++k) {
        agree += std::min(brute[k], res.centre_counts[s][k]);
        total += brute[k];
      }
      CAPTURE(centre);
      CHECK(total > 20);
      CHECK(total - agree <= 1);  // single precision on a bin edge
    }
  };
  const double point[3] = {0.4, 2.9, 1.5}, middle[3] = {1.5, 1.5, 1.5};
  run_centre("0.4,2.9,1.5", point, "point");
  run_centre("box", middle, "box");

  // Refused, one line each: a selection with a point, a point without --sphere, a bad point,
  // mass without masses, --match-shell without a sphere or wider than it.
  const std::string run = "run " + shell_quote(dir.file("box.gro")) + " --top " +
                          shell_quote(dir.file("box.gro")) + " --species O=\"name OW\" -q ";
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--sphere 'name NA,1' --sphere-centre box -o x1", "does not use one"},
           {"--sphere-centre 1,2,3 -o x2", "give --sphere R as well"},
           {"--sphere 1 --sphere-centre 1,2 -o x3", "expected mass, geometry, box or a point"},
           {"--sphere 1 -o x4", "give SELECTION,R"},
           {"--sphere 'name NA,1' --sphere-centre mass -o x5", "states no masses"}}) {
    const auto r = pairhist_cmd(run + args);
    CAPTURE(args);
    CHECK(r.status != 0);
    CHECK(contains(r.output, says));
  }
  const auto wide = pairhist_cmd("scattering " + shell_quote(dir.file("point")) + " --subtract " +
                                 shell_quote(dir.file("box")) + " --match-shell 2");
  CHECK(wide.status != 0);
  CHECK(contains(wide.output, "is not below the spheres' radius"));
}

TEST_CASE("sphere excess: the solvent run matched to the solution's density in a shell") {
  TempDir dir("sphere-excess-matching");
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_sphere_excess: density matching from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  // The solution: a sphere of contrast as above (P of weight 3 inside a = 0.8 nm, S of weight 1
  // around it at 30/nm^3); the solvent run: S alone at 34.5/nm^3, its own points (an ideal gas,
  // whose pair density scales as the density squared). Fixed numbers per region, the shell 1.0
  // to 1.2 nm one of them.
  const double a = 0.8, shell = 1.0, radius = 1.2, far = 1.3, rho = 30, rho_solvent = 34.5;
  const double edges[5] = {0, a, shell, radius, far};
  const int frames = 100;
  std::vector<Frame> solution(frames), solvent(frames);
  int n_p = 0, n_w = 0;
  for (int f = 0; f < frames; ++f)
    for (int region = 0; region < 4; ++region) {
      const double lo = edges[region], hi = edges[region + 1];
      const int n1 = shell_count(rho, lo, hi), n2 = shell_count(rho_solvent, lo, hi);
      if (region == 0) n_p = n1, n_w = n2;
      for (int i = 0; i < n1; ++i) {
        const auto p = shell_point(rng, lo, hi);
        solution[f].push_back({region == 0 ? "P" : "S", p[0], p[1], p[2]});
      }
      for (int i = 0; i < n2; ++i) {
        const auto p = shell_point(rng, lo, hi);
        solvent[f].push_back({"S", p[0], p[1], p[2]});
      }
    }
  const std::string options = run_weighted_pair(dir, solution, solvent) + " --q-max 20 --nq 101";
  std::string comments;
  auto e = excess_of(dir.file("solution"), dir.file("solvent"), options + " --match-shell 0.2",
                     &comments);
  const double s = static_cast<double>(shell_count(rho, shell, radius)) /
                   shell_count(rho_solvent, shell, radius);
  char factor[64];
  std::snprintf(factor, sizeof factor, "factor s = %.8g:", s);
  CHECK(contains(comments, factor));
  const double dF = 3.0 * n_p - s * n_w, spread = 9.0 * n_p - s * n_w;
  double worst = 0;
  for (size_t i = 0; i < e["q_per_nm"].size(); ++i) {
    const double x = e["q_per_nm"][i] * a;
    const double phi = x == 0 ? 1 : 3 * (std::sin(x) - x * std::cos(x)) / (x * x * x);
    worst = std::max(
        worst, std::abs(e["dI"][i] - phi * phi * dF * dF - spread * (1 - phi * phi)) / (dF * dF));
  }
  std::printf("  matched (s = %.6f): max |dI - expected| = %.4f of dF^2 = %.0f\n", s, worst,
              dF * dF);
  CHECK(worst < 0.04);
  // Unmatched, the solvent's excess density is part of dI: far off at q = 0.
  auto plain = excess_of(dir.file("solution"), dir.file("solvent"), options, &comments);
  CHECK(contains(comments, "density matching: none"));
  CHECK(std::abs(plain["dI"][0] - dF * dF) > 0.3 * dF * dF);
}
