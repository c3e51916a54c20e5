// `pairhist scattering` end to end: `pairhist run` on a fresh random cluster without a box, then
// the intensities against the brute-force Debye sum over its atoms; the water sample (names
// guessed, periodic note); bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_factors.hpp"
#include "analysis/scattering_structure.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;
using namespace pairhist::analysis;

const std::string kData = pairhist::test::data_dir();

int pairhist_cli(const std::string& args, std::string& output) {
  return pairhist::test::capture(shell_quote(pairhist::test::pairhist_binary()) + " " + args,
                                 output);
}

struct Atom {
  std::string element;
  double x, y, z;  // nm
};

std::map<std::string, std::vector<double>> read_csv(const std::string& path,
                                                    std::string* comments = nullptr) {
  return pairhist::test::read_scattering_csv(path, comments);
}

/// Two frames of 60 atoms (30 O, 15 Na, 15 Cl) scattered in a 1.5 nm cube, written as an XYZ
/// file (Angstrom, element symbols as species, no box). Fresh every run; the seed is printed.
std::vector<std::vector<Atom>> write_cluster(const std::string& path) {
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering: cluster from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> cube(0, 15.0);  // Angstrom
  std::vector<std::vector<Atom>> frames(2);
  std::string text;
  char line[160];
  for (auto& atoms : frames) {
    text += "60\nrandom cluster\n";
    for (int i = 0; i < 60; ++i) {
      const char* element = i < 30 ? "O" : i < 45 ? "Na" : "Cl";
      std::snprintf(line, sizeof line, "%s %.6f %.6f %.6f\n", element, cube(rng), cube(rng),
                    cube(rng));
      text += line;
      Atom a{element, 0, 0, 0};
      std::sscanf(line + std::string(element).size(), "%lf %lf %lf", &a.x, &a.y, &a.z);
      a.x /= 10;
      a.y /= 10;
      a.z /= 10;
      atoms.push_back(a);
    }
  }
  pairhist::test::write_all(path, text);
  return frames;
}

/// The first 10 frames of the water sample, O and H, 240 bins to 1.2 nm: run once, in `run`.
const TempDir& water_run() {
  static const std::unique_ptr<TempDir> dir = [] {
    auto d = std::make_unique<TempDir>("scattering-water");
    std::string log;
    const int status = pairhist_cli("run " + kData + "/spce_water.xtc --top " + kData +
                                        "/spce_water.gro --species O=OW --species H=HW1,HW2 " +
                                        "--rmax 1.2 --nbins 240 --last 9 --ncpu 2 -q -o " +
                                        shell_quote(d->file("run")),
                                    log);
    INFO(log);
    REQUIRE(status == 0);
    return d;
  }();
  return *dir;
}

}  // namespace

TEST_CASE("scattering of a random cluster equals the brute-force Debye sum within the bin bound") {
  TempDir dir("scattering");
  const auto frames = write_cluster(dir.file("cluster.xyz"));
  std::string log;
  const double r_max = 3.0;  // nm, beyond the cube's diagonal 2.6 nm
  const int nbins = 3000;
  REQUIRE_MESSAGE(pairhist_cli("run " + shell_quote(dir.file("cluster.xyz")) + " --top " +
                                   shell_quote(dir.file("cluster.xyz")) +
                                   " --species O=O --species Na=Na --species Cl=Cl --rmax 3 " +
                                   "--nbins 3000 --precision double --ncpu 2 -q -o " +
                                   shell_quote(dir.file("run")),
                               log) == 0,
                  log);

  for (const char* radiation : {"xray", "neutron"}) {
    CAPTURE(radiation);
    const Radiation r = parse_radiation(radiation);
    REQUIRE_MESSAGE(pairhist_cli("scattering " + shell_quote(dir.file("run")) + " --radiation " +
                                     radiation + " --q-max 40 --nq 81",
                                 log) == 0,
                    log);
    CHECK_FALSE(contains(log, "guessed"));  // the XYZ species column states the elements
    std::string comments;
    auto csv = read_csv(dir.file("run/intensity.csv"), &comments);
    CHECK(contains(comments, "every pair within r_max"));
    CHECK(contains(comments, "q in 1/nm"));
    REQUIRE(csv["q_per_nm"].size() == 81);
    const double dr = r_max / nbins;
    for (size_t i = 0; i < csv["q_per_nm"].size(); ++i) {
      const double q = csv["q_per_nm"][i];
      double exact = 0, pair_weight = 0;
      for (const auto& atoms : frames) {
        std::vector<double> f;
        for (const Atom& a : atoms) f.push_back(builtin_scatterer(a.element, r)->at(q));
        for (size_t m = 0; m < atoms.size(); ++m) {
          exact += f[m] * f[m];
          for (size_t n = m + 1; n < atoms.size(); ++n) {
            const double d = std::sqrt(std::pow(atoms[m].x - atoms[n].x, 2) +
                                       std::pow(atoms[m].y - atoms[n].y, 2) +
                                       std::pow(atoms[m].z - atoms[n].z, 2));
            exact += 2 * f[m] * f[n] * sinc(q * d);
            pair_weight += 2 * std::abs(f[m] * f[n]);
          }
        }
      }
      exact /= 2;
      pair_weight /= 2;
      CAPTURE(q);
      // The exact within-bin rule: a pair is at most one bin width (and the rounding of its
      // single-precision coordinates) from where the histogram puts it; max |sinc'| = 0.4362.
      CHECK(std::abs(csv["I"][i] - exact) <= pair_weight * 0.4362 * q * dr * 1.01 + 1e-9 * exact);
      const double parts = csv["I_O-O"][i] + csv["I_O-Na"][i] + csv["I_O-Cl"][i] +
                           csv["I_Na-Na"][i] + csv["I_Na-Cl"][i] + csv["I_Cl-Cl"][i];
      CHECK(parts == doctest::Approx(csv["I"][i]).epsilon(1e-8));
      CHECK(csv["f_Na"][i] == doctest::Approx(builtin_scatterer("Na", r)->at(q)).epsilon(1e-9));
    }
    // At q = 0 every pair adds f_i f_j: I(0) = (sum_i f_i)^2, exactly.
    const double sum_f = 30 * builtin_scatterer("O", r)->at(0) +
                         15 * builtin_scatterer("Na", r)->at(0) +
                         15 * builtin_scatterer("Cl", r)->at(0);
    CHECK(csv["I"][0] == doctest::Approx(sum_f * sum_f).epsilon(1e-9));
  }
}

TEST_CASE("scattering of the water sample: guessed elements, the periodic truncation said") {
  const TempDir& dir = water_run();
  std::string log;
  REQUIRE(pairhist_cli("scattering " + shell_quote(dir.file("run")) + " --cut-sphere-intensity",
                       log) == 0);
  CHECK(contains(log, "warning: elements guessed from atom names: HW1 -> H, HW2 -> H, OW -> O"));
  CHECK(contains(log, "periodic box"));
  std::string comments;
  auto xray = read_csv(dir.file("run/intensity.csv"), &comments);
  CHECK(contains(comments, "truncation ripples"));
  CHECK(contains(read_all(dir.file("run/intensity.xvg")), "@ s3 legend \"I_H-H\""));

  // Deuteration: fully deuterated water scatters neutrons as D2O.
  REQUIRE(pairhist_cli("scattering " + shell_quote(dir.file("run")) +
                           " --radiation neutron --deuterate 1 --element O=O --element H=H" +
                           " --cut-sphere-intensity",
                       log) == 0);
  auto d2o = read_csv(dir.file("run/intensity.csv"));
  CHECK(d2o["f_H"][0] == doctest::Approx(6.671));
  // The same partials re-weighted from X-ray to neutron weights give the neutron intensity.
  for (size_t i = 0; i < xray["q_per_nm"].size(); i += 50) {
    double reweighted = 0;
    for (const char* pair : {"O-O", "O-H", "H-H"}) {
      const std::string a = std::string(pair).substr(0, 1), b = std::string(pair).substr(2);
      reweighted += xray[std::string("I_") + pair][i] * d2o["f_" + a][i] * d2o["f_" + b][i] /
                    (xray["f_" + a][i] * xray["f_" + b][i]);
    }
    CHECK(reweighted == doctest::Approx(d2o["I"][i]).epsilon(1e-8).scale(1e3));
  }
}

TEST_CASE("structure factors of the water sample: the Debye sum's pairs, S -> 1 at large q") {
  const TempDir& dir = water_run();
  std::string log;
  const std::string run = shell_quote(dir.file("run")) + " --element O=O --element H=H";
  const std::vector<std::string> pairs{"O-O", "O-H", "H-H"};
  const double n_o = 884, n_h = 1768, n = n_o + n_h;
  const double edge_r_max = 1.2;
  const int nbins = 240;

  // With the same bins and rules, S_AB - 1 + rho U(q) is the Debye pair sum of A-B per atom
  // (pairhist's g normalises A-A by N_A (N_A - 1) / 2 pairs, rho by N_A), U(q) = the uniform
  // density's shell integral that S subtracts and the cut-sphere Debye sum keeps. The centre rule
  // puts a bin's pairs at its centre in both: equal to the files' 10 digits. The exact rules differ
  // (pairs uniform in r for Debye, in volume for g): second order in the bin width, measured 0.004.
  for (const char* rule : {"centre", "exact"}) {
    CAPTURE(rule);
    REQUIRE_MESSAGE(
        pairhist_cli("scattering " + run + " --cut-sphere-intensity --within-bin " + rule, log) ==
            0,
        log);
    auto debye = read_csv(dir.file("run/intensity.csv"));
    REQUIRE_MESSAGE(pairhist_cli("scattering " + run + " --structure-factor --window none " +
                                     "--within-bin " + rule,
                                 log) == 0,
                    log);
    CHECK(contains(log, "ripples of period 2 pi / r_max = 5.24/nm"));
    std::string comments;
    auto sq = read_csv(dir.file("run/sq.csv"), &comments);
    const size_t at = comments.find("rho = N <1/V> = ");
    REQUIRE(at != std::string::npos);
    const double rho = std::stod(comments.substr(at + 16));
    // Water at about 1 g/cm^3: 33.4 molecules, 100 atoms per nm^3. The exact value is tested
    // through U(q) below, which the pair sums only match with the run's own <1/V>.
    CHECK(rho == doctest::Approx(100).epsilon(0.03));
    REQUIRE(sq["q_per_nm"] == debye["q_per_nm"]);
    double worst = 0;
    for (size_t i = 0; i < sq["q_per_nm"].size(); ++i) {
      const double q = sq["q_per_nm"][i];
      double uniform = 0;
      for (int k = 0; k < nbins; ++k) {
        const double lo = k * edge_r_max / nbins, hi = (k + 1) * edge_r_max / nbins;
        uniform += std::string(rule) == "centre"
                       ? 4.0 / 3.0 * M_PI * (hi * hi * hi - lo * lo * lo) * sinc(q * (lo + hi) / 2)
                       : windowed_shell_integral(q, hi, edge_r_max, Window::none) -
                             windowed_shell_integral(q, lo, edge_r_max, Window::none);
      }
      for (const std::string& pair : pairs) {
        const std::string a = pair.substr(0, 1), b = pair.substr(2);
        const double ca = (a == "O" ? n_o : n_h) / n, cb = (b == "O" ? n_o : n_h) / n;
        const double fafb = debye["f_" + a][i] * debye["f_" + b][i];
        const double factor = (a == b ? (ca * n - 1) / (ca * n) : 2.0) * ca * cb * fafb;
        const double self = a == b ? ca * fafb : 0;
        const double s_from_debye = (debye["I_" + pair][i] / n - self) / factor + 1 - rho * uniform;
        worst = std::max(worst, std::abs(s_from_debye - sq["S_" + pair][i]));
      }
    }
    CHECK(worst < (std::string(rule) == "centre" ? 1e-6 : 0.01));
  }

  // Lorch's window: S -> 1 at large q. Beyond 200/nm the X-ray weight is O's (f_H < 1% of f_O),
  // and the O-O correlations are damped by thermal motion; what is left is the counting noise of
  // 10 frames and the histogram's steps: measured 0.014 (0.009 with all 101 frames).
  REQUIRE(pairhist_cli("scattering " + run + " --structure-factor --q-max 250 --nq 251", log) == 0);
  CHECK(contains(log, "Lorch's window damps"));
  CHECK(contains(read_all(dir.file("run/sq.xvg")), "@ s3 legend \"S_H-H\""));
  auto lorch = read_csv(dir.file("run/sq.csv"));
  double high = 0, middle = 0;
  for (size_t i = 0; i < lorch["q_per_nm"].size(); ++i) {
    const double q = lorch["q_per_nm"][i], s = lorch["S"][i];
    if (q >= 200) high = std::max(high, std::abs(s - 1));
    if (q >= 40 && q <= 60) middle = std::max(middle, std::abs(s - 1));
    // S is F normalised by <f>^2, F the weighted sum of the partials.
    const double fo = lorch["f_O"][i], fh = lorch["f_H"][i];
    const double mean_f = (fo + 2 * fh) / 3;
    const double f = (lorch["S_O-O"][i] - 1) * fo * fo / 9 +
                     2 * (lorch["S_O-H"][i] - 1) * fo * fh * 2 / 9 +
                     (lorch["S_H-H"][i] - 1) * fh * fh * 4 / 9;
    CHECK(lorch["F"][i] == doctest::Approx(f).epsilon(1e-9).scale(100));
    CHECK(s == doctest::Approx(1 + f / (mean_f * mean_f)).epsilon(1e-8));
  }
  CHECK(high < 0.03);
  CHECK(high < middle / 10);
}

#ifdef PAIRHIST_TEST_TPR
TEST_CASE("scattering with a .tpr topology: elements and ion charges from the force field") {
  TempDir dir("scattering-tpr");
  std::string log;
  REQUIRE_MESSAGE(pairhist_cli("run " + kData + "/nacl_dodecahedron.xtc --top " + kData +
                                   "/fixtures/gmx_nacl.tpr --species Na=\"name NA\" " +
                                   "--species Cl=\"name CL\" --species O=OW " +
                                   "--species H=\"name HW1 HW2\" --rmax 1.5 --nbins 300 " +
                                   "--last 4 --ncpu 2 -q -o " + shell_quote(dir.file("run")),
                               log) == 0,
                  log);
  REQUIRE_MESSAGE(
      pairhist_cli("scattering " + shell_quote(dir.file("run")) + " --nq 11 --cut-sphere-intensity",
                   log) == 0,
      log);
  CHECK_FALSE(contains(log, "guessed"));
  std::string comments;
  auto csv = read_csv(dir.file("run/intensity.csv"), &comments);
  CHECK(contains(comments,
                 "species Na: 14 atoms of Na1+ (topology elements, monatomic, topology "
                 "charge)"));
  CHECK(contains(comments, "species Cl: 14 atoms of Cl1- (topology elements"));
  CHECK(contains(comments, "species O: 724 atoms of O (topology elements)"));
  CHECK(csv["f_Na"][0] == doctest::Approx(9.9997));
}
#endif

TEST_CASE("scattering: bad input is one line, a non-zero status and no output") {
  TempDir dir("scattering-bad");
  std::string log;
  REQUIRE(pairhist_cli("run " + kData + "/spce_water.xtc --top " + kData +
                           "/spce_water.gro --species O=OW --species H=HW1,HW2 --species W=OW,HW1" +
                           " --rmax 0.6 --nbins 60 --last 1 --ncpu 2 -q -o " +
                           shell_quote(dir.file("run")),
                       log) == 0);
  const std::string run = shell_quote(dir.file("run"));
  struct Case {
    std::string args;
    int status;
    std::string message;
  };
  const Case cases[] = {
      {run + " --element O=O --element H=H --element W=O", 2, "share"},
      {run, 2, "species W holds atoms of several elements"},
      {run + " --element W=Qq9", 2, "--element W=Qq9: not an element"},
      {run + " --element X=O", 2, "the run has no species 'X'"},
      {run + " --element W=O --q-max -1", 2, "--q-max must be a positive number"},
      {run + " --element W=O --nq 1", 2, "--nq must be between 2"},
      {run + " --element W=O --deuterate 0.5", 2, "neutron scattering only"},
      {run + " --element W=O --radiation gamma", 2, "--radiation must be xray or neutron"},
      {run + " --element W=O --within-bin middle", 2, "--within-bin must be exact or centre"},
      {run + " --element W=O --q-max 300", 2, "fits hold for q <= 251"},
      {run + " --element W=O --radiation neutron --deuterate O=0.5", 2, "only hydrogen"},
      {run + " --element W=O --q-file " + shell_quote(dir.file("q.txt")), 1, "q.txt line 2"},
      {run + " --element W=O --table " + shell_quote(dir.file("q.txt")), 1, "q.txt line 1"},
      {shell_quote(dir.file("nothing")), 1, "no such file"},
      {run + " --element W=O --top " + kData + "/fixtures/gmx_water30.gro", 1, "the run counted"},
      {run + " --element W=O --structure-factor --window hann", 2,
       "--window must be none or lorch"},
      {run + " --element W=O --cut-sphere-intensity --window none", 2,
       "--window applies to the structure factor only"},
      {run + " --element W=O --structure-factor --nq 1", 2, "--nq must be between 2"},
      {run + " --element W=O --structure-factor --q-max 0", 2, "--q-max must be a positive"},
      {run + " --element W=O --structure-factor", 2, "share"},
      {shell_quote(dir.file("cluster")) + " --structure-factor", 2, "need a periodic run"},
  };
  pairhist::test::write_all(dir.file("q.txt"), "1.0\nabc\n");
  pairhist::test::write_all(dir.file("cluster.xyz"), "2\nno box\nO 0 0 0\nO 1.5 0 0\n");
  REQUIRE(pairhist_cli("run " + shell_quote(dir.file("cluster.xyz")) + " --top " +
                           shell_quote(dir.file("cluster.xyz")) + " --species O=O --rmax 5 " +
                           "--nbins 10 --ncpu 2 -q -o " + shell_quote(dir.file("cluster")),
                       log) == 0);
  for (const Case& c : cases) {
    CAPTURE(c.args);
    CHECK(pairhist_cli("scattering " + c.args, log) == c.status);
    CHECK(contains(log, c.message));
    CHECK(contains(log, "pairhist: error: "));
    CHECK(std::count(log.begin(), log.end(), '\n') <= 2);  // a guess warning at most, one error
    CHECK_FALSE(std::filesystem::exists(dir.file("run/intensity.csv")));
    CHECK_FALSE(std::filesystem::exists(dir.file("run/sq.csv")));
    CHECK_FALSE(std::filesystem::exists(dir.file("cluster/sq.csv")));
  }
}
