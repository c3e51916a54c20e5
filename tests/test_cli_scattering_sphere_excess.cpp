// `pairhist scattering SOLUTION --subtract SOLVENT` of two `run --sphere` runs: the excess with
// the cross term against a uniform solvent background removed (CAPRIQORN's). Fresh random inputs
// every run (seeds printed), built here as XYZ files:
//  (a) a rigid 27-ion Rb/Br cube in a "water" of O and H atoms, the water outside a cavity the
//      same in both runs: dI(0) = dF^2 (where the plain difference is 10-30 times that), and dI
//      the same for two radii within 3% of its largest value over q = 2..30/nm, X-ray, neutron
//      (H2O: a negative H length) and D2O (--deuterate 1);
//  (b) a sphere of contrast (points of weight 3 inside radius a where the solvent has points of
//      weight 1): against its expected form factor, and its Guinier Rg and P(r);
//  (b') its errors from interval blocks: none at q = 0, the variance halved by twice the frames,
//      the difference of the first half's dI and the whole's as large as the errors say;
//  (c) the sphere's centres and the density matching: test_cli_scattering_sphere_centres.cpp.
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

TEST_CASE("sphere excess: a rigid ion cluster in water the same outside its cavity") {
  TempDir dir("sphere-excess-cluster");
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_sphere_excess: cluster in water from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  // Water molecules at 33.4/nm^3, with fixed numbers in the cavity (r < 0.79 nm) and in the
  // shells up to both radii, so that the removed water dF is the same in every frame. The
  // noise of dI at 3-6/nm (the cross terms of single frames) shrinks as 1/sqrt(frames): 400
  // frames keep it below 2% of dI's largest value in every try so far.
  const double cavity = 0.79, r1 = 1.0, r2 = 1.48, outer = 1.6, density = 33.4;
  const int frames = 400;
  const int removed = shell_count(density, 0, cavity);
  std::vector<Frame> solution, solvent;
  for (int f = 0; f < frames; ++f) {
    Frame outside, inside, ions;
    add_waters(rng, shell_count(density, cavity, r1), cavity, r1, outside);
    add_waters(rng, shell_count(density, r1, r2), r1, r2, outside);
    add_waters(rng, shell_count(density, r2, outer), r2, outer, outside);
    add_waters(rng, removed, 0, cavity, inside);
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j)
        for (int k = -1; k <= 1; ++k)
          ions.push_back({(i + j + k + 3) % 2 == 0 ? "Br" : "Rb", 0.33 * i, 0.33 * j, 0.33 * k});
    solution.push_back(outside);
    solution.back().insert(solution.back().end(), ions.begin(), ions.end());
    solvent.push_back(outside);
    solvent.back().insert(solvent.back().end(), inside.begin(), inside.end());
  }
  write_xyz(dir.file("solution.xyz"), solution);
  write_xyz(dir.file("solvent.xyz"), solvent);
  const std::string water = "--species O=O --species H=H";
  for (double r : {r1, r2}) {
    const std::string sphere = "--sphere " + std::to_string(r) + " --sphere-centre 0,0,0";
    const std::string tag = r == r1 ? "1" : "2";
    run_sphere(dir.file("solution.xyz"), water + " --species Rb=Rb --species Br=Br", sphere,
               dir.file("solution" + tag));
    run_sphere(dir.file("solvent.xyz"), water, sphere, dir.file("solvent" + tag));
  }

  for (const std::string radiation :
       {"--radiation xray", "--radiation neutron", "--radiation neutron --deuterate 1"}) {
    CAPTURE(radiation);
    const std::string options = radiation + " --q-max 30 --nq 61 --match-shell 0.1";
    std::string comments;
    auto one = excess_of(dir.file("solution1"), dir.file("solvent1"), options, &comments);
    auto two = excess_of(dir.file("solution2"), dir.file("solvent2"), options);
    CHECK(contains(comments, "CAPRIQORN's excess with a uniform solvent background"));
    // The shell 0.9 < d <= 1 nm holds the same water in both runs: nothing to scale.
    CHECK(contains(comments, "factor s = 1:"));
    // dF: the ions less the removed water, at q = 0.
    const double f_o = one["f_O"][0], f_h = one["f_H"][0];
    const double dF = 13 * one["f_Rb"][0] + 14 * one["f_Br"][0] - removed * (f_o + 2 * f_h);
    for (auto* e : {&one, &two}) {
      CHECK((*e)["dI"][0] == doctest::Approx(dF * dF).epsilon(1e-6));
      // The plain difference keeps 2 F_sphere dF: far from dF^2 (for H2O of the other sign).
      CHECK(std::abs((*e)["dI_raw"][0] - dF * dF) > dF * dF);
    }
    double diff = 0, largest = 0;
    compare_range(one["q_per_nm"], one["dI"], two["dI"], diff, largest);
    std::printf(
        "  %s: dF = %.1f, dI(0) raw %.4g and %.4g against dF^2 %.4g; max |dI_R1 - dI_R2| "
        "over 2-30/nm = %.4f of max |dI|\n",
        radiation.c_str(), dF, one["dI_raw"][0], two["dI_raw"][0], dF * dF, diff / largest);
    CHECK(diff <= 0.03 * largest);
  }
}

TEST_CASE("sphere excess: a sphere of contrast against its form factor, Guinier and P(r)") {
  TempDir dir("sphere-excess-contrast");
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_sphere_excess: sphere of contrast from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const Contrast c(rng, 100);
  const double a = Contrast::a;
  const int inside = c.inside;
  std::string comments, output;
  auto e = excess_of(dir.file("solution"), dir.file("solvent"),
                     run_weighted_pair(dir, c.solution, c.solvent) + " --q-max 20 --nq 201",
                     &comments, &output);
  // Expected for fixed numbers N of P (weight 3) and of S (weight 1) inside a:
  // Phi(qa)^2 (dF)^2 + N (3^2 - 1^2) (1 - Phi(qa)^2), dF = 2 N.
  const double n = inside, dF = 2 * n, spread = n * (9 - 1);
  double worst = 0;
  for (size_t i = 0; i < e["q_per_nm"].size(); ++i) {
    const double x = e["q_per_nm"][i] * a;
    const double phi = x == 0 ? 1 : 3 * (std::sin(x) - x * std::cos(x)) / (x * x * x);
    const double expected = phi * phi * dF * dF + spread * (1 - phi * phi);
    worst = std::max(worst, std::abs(e["dI"][i] - expected) / (dF * dF));
  }
  CHECK(e["dI"][0] == doctest::Approx(dF * dF).epsilon(1e-6));
  std::printf("  sphere of contrast: max |dI - expected| = %.4f of dF^2 = %.0f\n", worst, dF * dF);
  CHECK(worst < 0.04);
  // Guinier: Rg^2 = 3 a^2 / 5 (1 - spread / dF^2) from the expansion of the expected curve.
  const double rg = std::sqrt(0.6 * a * a * (1 - spread / (dF * dF)));
  CHECK(contains(comments, "Guinier fit of dI: Rg = "));
  CHECK(contains(output, "pairhist scattering: Guinier fit of dI: Rg = "));
  const size_t at = comments.find("Guinier fit of dI: Rg = ");
  REQUIRE(at != std::string::npos);
  const double fitted = std::stod(comments.substr(at + 24));
  std::printf("  Guinier Rg %.4f nm against %.4f nm\n", fitted, rg);
  CHECK(fitted == doctest::Approx(rg).epsilon(0.03));
  // P(r): its I(0) is dI(0), computed from the same counts another way (the background's
  // distances integrate to the sphere's volume), and its Rg the sphere's.
  auto pr = pairhist::test::read_scattering_csv(dir.file("solution/excess_pr.csv"));
  double self_less = 0, sum = 0, moment = 0;
  for (size_t k = 0; k < pr["r_nm"].size(); ++k) {
    sum += pr["P"][k];
    moment += pr["P"][k] * pr["r_nm"][k] * pr["r_nm"][k];
  }
  self_less = e["dI"][0] - 2 * sum;  // the self terms: n (9 - 1) per frame
  CHECK(self_less == doctest::Approx(spread).epsilon(1e-6));
  CHECK(std::sqrt(moment / e["dI"][0]) == doctest::Approx(rg).epsilon(0.03));
  // excess.h5 holds P(r) too, at full precision.
  const auto h5 = pairhist::io::read_scattering_hdf5(dir.file("solution/excess.h5"));
  REQUIRE(h5.distribution.r.size() == pr["r_nm"].size());
  CHECK(h5.distribution.unit == "fm^2 per frame");
  for (size_t k = 0; k < pr["r_nm"].size(); ++k) {
    CHECK(h5.distribution.r[k] == doctest::Approx(pr["r_nm"][k]).epsilon(1e-9));
    CHECK(h5.distribution.total[k] == doctest::Approx(pr["P"][k]).epsilon(1e-8).scale(1));
    CHECK(h5.distribution.background[k] ==
          doctest::Approx(pr["P_background"][k]).epsilon(1e-8).scale(1));
  }

  // The summary speaks the curves' units: q in 1/A, I(0) in 1/cm (n = 1e-3 mol/L x N_A / 1000
  // per cm^3, 10^-26 cm^2 per fm^2), Rg in nm as before.
  std::string scaled_comments;
  auto scaled = excess_of(dir.file("solution"), dir.file("solvent"),
                          "--radiation neutron --table " + shell_quote(dir.file("weights.txt")) +
                              " --q-max 2 --nq 201 --q-unit A --concentration 1e-3 --molecules 1",
                          &scaled_comments, nullptr);
  const size_t line = scaled_comments.find("Guinier fit of dI: Rg = ");
  REQUIRE(line != std::string::npos);
  const std::string guinier = scaled_comments.substr(line, scaled_comments.find('\n', line) - line);
  INFO(guinier);
  CHECK(std::stod(guinier.substr(24)) == doctest::Approx(fitted).epsilon(1e-9));
  CHECK(contains(guinier, " 1/cm, q = "));
  CHECK(contains(guinier, " 1/A ("));
  const size_t i0 = guinier.find("I(0) = ");
  REQUIRE(i0 != std::string::npos);
  CHECK(std::stod(guinier.substr(i0 + 7)) == doctest::Approx(scaled["dI"][0]).epsilon(0.05));
}

TEST_CASE("sphere excess errors: from both runs' interval blocks, shrinking as 1/sqrt(frames)") {
  TempDir dir("sphere-excess-errors");
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_sphere_excess: errors from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  // The sphere of contrast in blocks of 5 frames: its first 100 frames (20 blocks) and all 200
  // (40 blocks), independent frames, and independent runs (the solvent's points are not the
  // solution's, as in two simulations).
  const Contrast c(rng, 200), other(rng, 200);
  const std::vector<Frame> solution(c.solution.begin(), c.solution.begin() + 100);
  const std::vector<Frame> solvent(other.solvent.begin(), other.solvent.begin() + 100);
  const std::string options =
      run_weighted_pair(dir, solution, solvent, "--interval 5", "100") + " --q-max 20 --nq 81";
  run_weighted_pair(dir, c.solution, other.solvent, "--interval 5", "200");
  std::string comments;
  auto half = excess_of(dir.file("solution100"), dir.file("solvent100"), options, &comments);
  auto all = excess_of(dir.file("solution200"), dir.file("solvent200"), options);
  CHECK(contains(comments,
                 "errors: dIerr and dIerr_A-B are standard errors of the sphere "
                 "excess from the runs' 20 (solution) and 20 (solvent) interval blocks"));
  CHECK_FALSE(contains(comments, "errors: none"));
  const double dF = 2.0 * c.inside;
  double squares_half = 0, squares_all = 0, differences = 0;
  int points = 0;
  for (auto* e : {&half, &all}) {
    // dI(0) = dF^2 on average: the solvent points' number in the sphere varies, so it has an
    // error, small beside dF^2.
    CHECK((*e)["dIerr"][0] > 0);
    CHECK((*e)["dIerr"][0] < 0.1 * dF * dF);
    CHECK(std::abs((*e)["dI"][0] - dF * dF) < 5 * (*e)["dIerr"][0]);
    for (const char* partial : {"dIerr_S-S", "dIerr_S-P", "dIerr_P-P"}) CHECK(e->count(partial));
  }
  const std::vector<double>& q = half["q_per_nm"];
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] < 1) continue;
    CAPTURE(q[i]);
    for (auto* e : {&half, &all}) {
      CHECK(std::isfinite((*e)["dIerr"][i]));
      CHECK((*e)["dIerr"][i] > 0);
      CHECK((*e)["dIerr_S-P"][i] > 0);
    }
    squares_half += half["dIerr"][i] * half["dIerr"][i];
    squares_all += all["dIerr"][i] * all["dIerr"][i];
    // Each q weighted alike: (dI_100 - dI_200)^2 against its expected var_100 / 2.
    const double d = half["dI"][i] - all["dI"][i];
    differences += d * d / (half["dIerr"][i] * half["dIerr"][i] / 2);
    ++points;
  }
  // Twice the frames, half the variance; and the first half's dI differs from the whole's as
  // the errors say: var(dI_100 - dI_200) = var_100 / 2. The q are far from independent (a few
  // fluctuations of the sphere's content dominate; measured 0.14 to 3.9 in six seeds), so only
  // errors too small by a factor of 3 or more are caught.
  const double ratio = squares_all / squares_half;
  const double spread = differences / points;
  std::printf(
      "  errors: var ratio 200/100 frames %.3f (0.5 expected); (dI_100 - dI_200)^2 over "
      "var_100 / 2 (mean over q): %.3f (1 expected)\n",
      ratio, spread);
  CHECK(ratio > 0.3);
  CHECK(ratio < 0.8);
  CHECK(spread < 9);
  // excess.h5 holds them too: the curve dIerr and every partial's.
  const pairhist::io::ScatteringData h5 =
      pairhist::io::read_scattering_hdf5(dir.file("solution200/excess.h5"));
  const auto curve =
      std::find_if(h5.curves.begin(), h5.curves.end(),
                   [](const pairhist::io::ScatteringCurve& k) { return k.name == "dIerr"; });
  REQUIRE(curve != h5.curves.end());
  REQUIRE(curve->values.size() == all["dIerr"].size());
  for (size_t i = 0; i < q.size(); ++i)  // the CSV's 10 digits
    CHECK(curve->values[i] == doctest::Approx(all["dIerr"][i]).epsilon(1e-8).scale(dF * dF));
  CHECK(h5.partial_errors.size() == 3);
}
